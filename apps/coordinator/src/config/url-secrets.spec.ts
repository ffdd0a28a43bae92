import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../config.js';

/** What refusing the configuration says (it must refuse). */
function refusal(env: Record<string, string>): string {
  try {
    loadCoordinatorConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('accepted');
}

/** Boot refusals show URL-valued secrets masked, whatever their password holds (libs/runtime/src/mask-url.ts). */
describe('URL-valued secrets in boot refusals', () => {
  it.each(['s3cret', 'p/ss', 'p#ss', 'p,ss', 'p@ss', 'p?ss', 'a/b#c,d@e?f'])(
    'password %p is never shown',
    (password) => {
      // Each value is refused (a wrong scheme, a space, a bad server), so the refusal shows it.
      const message = refusal({
        DATABASE_URL: `mysql://picket:${password}@db.internal/picket`,
        SMTP_URL: `smtp://mailer:${password}@smtp.example:587 x`,
        NATS_URL: `http://agent:${password}@nats.internal:4222`,
      });
      for (const name of ['DATABASE_URL', 'SMTP_URL', 'NATS_URL']) expect(message).toContain(name);
      expect(message).not.toContain(password);
      // Nothing of it either: between the scheme and the host, at most the user name and ***.
      expect(message).toMatch(/"mysql:\/\/(picket:)?\*\*\*@db\.internal\/picket"/);
      expect(message).toMatch(/"smtp:\/\/(mailer:)?\*\*\*@smtp\.example:587 x"/);
      expect(message).toMatch(/"http:\/\/(agent:)?\*\*\*@nats\.internal:4222"/);
    },
  );
});
