/**
 * SECRETS_KEY and SECRETS_KEY_PREVIOUS, read (docs/decisions/0020-secrets-at-rest.md): 32 bytes
 * as 64 hex characters or as base64 (44 characters with padding, or 43 without). Here because
 * the configuration validates them; secrets/ seals and opens with the keys.
 */
export const SECRETS_KEY_BYTES = 32;

/** How an operator makes a key, as the messages say it. */
export const GENERATE_SECRETS_KEY = 'openssl rand -base64 32';

/** The 32 key bytes of a hex or base64 value, or what is wrong with it (a message naming no value). */
export function parseSecretsKey(value: unknown): Buffer | string {
  const advice = `must be ${SECRETS_KEY_BYTES} random bytes as 64 hex characters or as base64; generate one with \`${GENERATE_SECRETS_KEY}\``;
  if (typeof value !== 'string') return advice;
  const text = value.trim();
  let key: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(text)) key = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/]{43}=?$/.test(text) || /^[A-Za-z0-9_-]{43}=?$/.test(text)) {
    key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  }
  if (key === null || key.length !== SECRETS_KEY_BYTES) return advice;
  if (new Set(key).size < 8) return `is a placeholder, not a random key (too few distinct bytes); ${advice}`;
  return key;
}
