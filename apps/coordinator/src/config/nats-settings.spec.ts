import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../config.js';

/** The coordinator's NATS settings (docs/decisions/0019-securing-nats.md); the shared rules are table-tested in libs/runtime. */
function refusal(env: Record<string, string>): string {
  try {
    loadCoordinatorConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
}

describe('coordinator NATS settings', () => {
  it.each(['nats://127.0.0.1:4222', 'tls://nats.example:4222,tls://nats-2.example:4222', 'nats://u:p@h:4222'])(
    'takes NATS_URL=%s',
    (url) => {
      expect(loadCoordinatorConfig({ NATS_URL: url }).NATS_URL).toBe(url);
    },
  );

  it('keeps plain nats:// as it was: no credentials, no TLS files, embedded mode without NATS_URL', () => {
    expect(refusal({ NATS_URL: 'nats://127.0.0.1:4222' })).toBe('');
    expect(refusal({})).toBe('');
  });

  it('refuses a bad NATS_URL without showing the password or token in it', () => {
    const message = refusal({ NATS_URL: 'http://coordinator:hunter2@nats.example:4222' });
    expect(message).toContain(
      'NATS_URL ("http://coordinator:***@nats.example:4222"): must be nats://host:port or tls://',
    );
    expect(message).not.toContain('hunter2');
    const mixed = refusal({ NATS_URL: 'tls://s3cr3t-token@a:4222,nats://b:4222' });
    expect(mixed).toContain('all of one scheme');
    expect(mixed).not.toContain('s3cr3t-token');
  });

  it('refuses conflicting or half-given settings, naming the variables and never the secrets', () => {
    const message = refusal({
      NATS_URL: 'tls://coordinator:hunter2@h:4222',
      NATS_TOKEN: 'tok3n-secret',
      NATS_CERT_FILE: '/nonexistent/client.crt',
    });
    expect(message).toContain('credentials in NATS_URL, NATS_TOKEN: choose one way to authenticate to NATS');
    expect(message).toContain('NATS_CERT_FILE and NATS_KEY_FILE: set both or neither');
    expect(message).toContain('NATS_CERT_FILE (/nonexistent/client.crt): cannot be read (ENOENT)');
    expect(message).not.toMatch(/hunter2|tok3n-secret/);
  });

  it('refuses NATS security settings in embedded mode (no NATS_URL)', () => {
    expect(refusal({ NATS_USER: 'coordinator', NATS_PASSWORD: 'p' })).toContain(
      'NATS_USER, NATS_PASSWORD: set without NATS_URL',
    );
  });
});

describe('other settings that carry secrets', () => {
  it('refuses a bad DATABASE_URL, SMTP_URL or BOOTSTRAP_API_KEY without showing the password or key', () => {
    const message = refusal({
      DATABASE_URL: 'mysql://picket:db-hunter2@db.example/picket',
      SMTP_URL: 'smtp://mailer:smtp-hunter2@mail.example:587 x',
      BOOTSTRAP_API_KEY: `pkt_${'0'.repeat(64)}`,
    });
    expect(message).toContain('DATABASE_URL ("mysql://picket:***@db.example/picket")');
    expect(message).toContain('SMTP_URL ("smtp://mailer:***@mail.example:587 x")');
    expect(message).toContain('BOOTSTRAP_API_KEY');
    expect(message).not.toMatch(/hunter2|0{64}/);
  });
});
