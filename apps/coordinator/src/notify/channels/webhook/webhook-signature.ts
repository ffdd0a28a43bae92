import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks 1.0 signing (docs/decisions/0011-notification-channels.md §5):
 * `v1,` + base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")), where the key
 * is the base64-decoded part of the secret after `whsec_`.
 */

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A stored secret that is not `whsec_<base64>`: the API refuses those, so this is an internal fault. */
export class WebhookSecretError extends Error {
  constructor() {
    super('the webhook secret is not whsec_ followed by base64');
    this.name = 'WebhookSecretError';
  }
}

/** The HMAC key of a `whsec_…` secret. */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : '';
  if (!BASE64.test(encoded)) throw new WebhookSecretError();
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new WebhookSecretError();
  return key;
}

/**
 * The `webhook-signature` header value for the exact bytes of `body`. Several secrets (a
 * rotation's overlap window: newest first) give a space-separated list, one `v1,` entry each.
 */
export function signWebhook(
  secrets: string | readonly string[],
  webhookId: string,
  timestamp: number,
  body: Buffer | string,
): string {
  if (webhookId.includes('.')) throw new Error('a webhook-id never contains "."');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error('webhook-timestamp must be Unix seconds');
  const signed = Buffer.concat([
    Buffer.from(`${webhookId}.${timestamp}.`, 'utf8'),
    typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  ]);
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return list
    .map((secret) => `v1,${createHmac('sha256', webhookSecretKey(secret)).update(signed).digest('base64')}`)
    .join(' ');
}
