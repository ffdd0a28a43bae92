import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `pkt_` + 64 lowercase hex characters: 256 random bits (docs/decisions/0003-auth-permissions-rate-limit.md). */
export const API_KEY_PATTERN = /^pkt_[0-9a-f]{64}$/;

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
