import { describe, expect, it } from '@jest/globals';
import { checkInput } from '#validation';
import { SPEC_WRITABLE_CHANNELS } from '../../../../test/support/spec-lists.js';
import {
  CHANNEL_TABLE,
  CHANNELS,
  completeDetails,
  emailAddress,
  isChannel,
  redactDetails,
  REDACTED,
  webhookSecret,
  type Channel,
} from './channels.js';

/** One valid details object per channel: the table test below walks all of them. */
const VALID: { readonly [K in Channel]: Record<string, unknown> } = {
  email: { email: 'ops@example.com' },
  webhook: { url: 'https://hooks.example.com/picket', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
  chatone: { webhook_url: 'https://hooks.slack.com/services/T/B/x' },
  chattwo: { webhook_url: 'https://discord.com/api/webhooks/1/x' },
  chatthree: { webhook_url: 'https://prod.westus.logic.azure.com/workflows/x' },
  paging: { integration_key: 'R0UTINGKEY0123456789ABCDEFGHIJKL' },
  incidentmgmt: { webhook_url: 'https://api.incident.io/v2/alert_events/http/x', bearer_token: 'tok_123' },
  alerting: { api_key: 'eb243592-faa2-4ba2-a551q-1afdf565c889' },
  ticketing: { subdomain: 'acme', email: 'agent@acme.com', api_token: 'zd_token' },
  push: { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh: 'BNc', auth: 'tB' } },
};

describe('channel table', () => {
  it.each(CHANNELS.map((c) => [c]))('%s: valid details pass and every secret is redacted on output', (channel) => {
    const { value, problems } = checkInput(CHANNEL_TABLE[channel].details, VALID[channel]);
    expect(problems).toEqual([]);
    const stored = completeDetails(channel, { ...value });
    for (const [key, fallback] of Object.entries(CHANNEL_TABLE[channel].defaults)) {
      expect(stored).toHaveProperty(key);
      if (VALID[channel][key] === undefined) expect(stored[key]).toEqual(fallback);
    }
    const shown = redactDetails(channel, stored);
    for (const secret of CHANNEL_TABLE[channel].secrets) {
      if (stored[secret] !== null && stored[secret] !== undefined) expect(shown[secret]).toBe(REDACTED);
    }
    const text = JSON.stringify(shown);
    for (const secret of CHANNEL_TABLE[channel].secrets) {
      const original = VALID[channel][secret];
      if (typeof original === 'string') expect(text).not.toContain(original);
    }
  });

  it.each(CHANNELS.map((c) => [c]))('%s: an empty details object reports each required field', (channel) => {
    const { problems } = checkInput(CHANNEL_TABLE[channel].details, {}, 'details');
    const required = Object.keys(VALID[channel]).filter(
      (k) => !(k in CHANNEL_TABLE[channel].defaults) && !(channel === 'webhook' && k === 'secret'),
    );
    expect(problems.map((p) => p.field).sort()).toEqual(required.map((k) => `details.${k}`).sort());
    for (const p of problems) expect(p.message).toBe('is required');
  });

  it('only push is read-only', () => {
    expect(CHANNELS.filter((c) => CHANNEL_TABLE[c].readOnly)).toEqual(['push']);
  });

  it('lists the channels in table order', () => {
    expect(CHANNELS).toEqual([...SPEC_WRITABLE_CHANNELS, 'push']);
    expect(CHANNELS.every(isChannel)).toBe(true);
    expect(['sms', 'toString', '__proto__', 'EMAIL', 1].some(isChannel)).toBe(false);
  });

  it.each(CHANNELS.map((c) => [c]))('%s: refuses creation through the API exactly when read-only', (channel) => {
    const { readOnly, createRefusal } = CHANNEL_TABLE[channel];
    expect(createRefusal !== undefined).toBe(readOnly);
  });

  it('shows the host of a push endpoint after the stored fields, never the endpoint', () => {
    const stored = completeDetails('push', { ...VALID.push });
    expect(Object.entries(redactDetails('push', stored))).toEqual([
      ['endpoint', REDACTED],
      ['keys', REDACTED],
      ['endpoint_host', 'fcm.googleapis.com'],
    ]);
  });

  it('completes a partial severity mapping from the defaults', () => {
    expect(completeDetails('paging', { integration_key: 'k', severity_mapping: { low: 'warning' } })).toEqual({
      integration_key: 'k',
      severity_mapping: { critical: 'critical', high: 'error', medium: 'warning', low: 'warning' },
      auto_resolve_incidents: true,
    });
  });

  it('shows an unset webhook secret as null, not as [REDACTED]', () => {
    expect(redactDetails('webhook', completeDetails('webhook', { url: 'https://x.example' }))).toEqual({
      url: 'https://x.example',
      secret: null,
    });
  });
});

describe('field checkers', () => {
  it.each(['a@example.com', 'first.last+tag@sub.example.co.uk', 'x@bücher.example'])('email accepts %j', (v) => {
    expect(emailAddress(v)).toBeNull();
  });
  it.each([
    '',
    'a',
    'a@',
    '@example.com',
    'a@localhost',
    'a b@example.com',
    'a@exa mple.com',
    'a@[127.0.0.1]',
    'a\n@x.com',
    'a@exa\r\nmple.com',
    'a\u202e@x.com',
    'a\u0085@x.com',
    'a@exa\u00admple.com',
    'a@exa\u200bmple.com',
  ])('email refuses %j', (v) => {
    expect(emailAddress(v)).not.toBeNull();
  });

  it('webhook secrets are whsec_ + base64 of 24..64 bytes and never the redaction marker', () => {
    expect(webhookSecret(`whsec_${Buffer.alloc(24).toString('base64')}`)).toBeNull();
    expect(webhookSecret(`whsec_${Buffer.alloc(64).toString('base64')}`)).toBeNull();
    expect(webhookSecret(`whsec_${Buffer.alloc(23).toString('base64')}`)).not.toBeNull();
    expect(webhookSecret(`whsec_${Buffer.alloc(65).toString('base64')}`)).not.toBeNull();
    expect(webhookSecret('secret')).not.toBeNull();
    expect(webhookSecret(REDACTED)).toMatch(/real value/);
  });
});
