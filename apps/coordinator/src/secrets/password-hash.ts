import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords stored as scrypt hashes (docs/decisions/0020-secrets-at-rest.md): a random 16-byte
 * salt per password, the parameters kept in the stored value so they can be raised later:
 * `scrypt$<log2 N>$<r>$<p>$<salt, base64>$<hash, base64>`. A stored value never contains a `:`,
 * and a plaintext `user:password` always does, so the two are never mistaken for each other.
 */
const PREFIX = 'scrypt';

/** scrypt's cost: N = 2^logN, block size r, parallelism p. */
export interface ScryptCost {
  logN: number;
  r: number;
  p: number;
}

/** The default cost (32 MiB): status-page basic auth, checked on views whose answer is not cached. */
export const PAGE_PASSWORD_COST: ScryptCost = { logN: 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const STORED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

function derive(
  password: string | Buffer,
  salt: Buffer,
  logN: number,
  r: number,
  p: number,
  length: number,
): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 };
  return new Promise((done, fail) => {
    scrypt(password, salt, length, options, (error, key) => (error ? fail(error) : done(key)));
  });
}

/** A fresh salt and the stored form; the asynchronous scrypt runs on libuv's pool, never blocking the event loop. */
export async function hashPassword(password: string, cost: ScryptCost = PAGE_PASSWORD_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { logN, r, p } = cost;
  const hash = await derive(password, salt, logN, r, p, HASH_BYTES);
  return [PREFIX, logN, r, p, salt.toString('base64'), hash.toString('base64')].join('$');
}

/** Whether `stored` is a hash this module made (and not a plaintext from before hashing). */
export function isPasswordHash(stored: string): boolean {
  return STORED.test(stored);
}

/** Whether `password` (its UTF-8 bytes, compared as given) is the one `stored` was made from; constant time in the comparison. */
export async function verifyPassword(password: string | Buffer, stored: string): Promise<boolean> {
  const m = STORED.exec(stored);
  if (!m) return false;
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN < 10 || logN > 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(m[5] ?? '', 'base64');
  if (expected.length < 16) return false;
  const actual = await derive(password, Buffer.from(m[4] ?? '', 'base64'), logN, r, p, expected.length);
  return timingSafeEqual(actual, expected);
}
