import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The key format and the rule that refuses keys too regular to be secret, defined beside the
 * configuration (BOOTSTRAP_API_KEY is validated with both).
 */
export { API_KEY_PATTERN, weakApiKeyProblem } from '../config/api-key-pattern.js';

/** A new key of the form API_KEY_PATTERN. */
export function generateApiKey(): string {
  return `pkt_${randomBytes(32).toString('hex')}`;
}

/** What is stored: the SHA-256 of the whole key, as lowercase hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The non-secret beginning of a key, shown in listings so people can tell keys apart. */
export function displayPrefix(key: string): string {
  return key.slice(0, 12);
}

/** Constant-time comparison of two hex SHA-256 digests (always 32 bytes each). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === 32 && right.length === 32 && timingSafeEqual(left, right);
}
