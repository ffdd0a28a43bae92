import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { codePoints, described, type Checker } from '#validation';

/** Password length in Unicode code points (docs/decisions/0022-users-and-sessions.md). */
export const PASSWORD_LIMITS = { min: 10, max: 256 } as const;

/** What a new password must be: 10..256 code points, no NUL. */
export const newPassword: Checker = described(
  (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (value.includes('\u0000')) return 'must not contain NUL characters';
    const length = codePoints(value);
    if (length < PASSWORD_LIMITS.min) return `must be at least ${PASSWORD_LIMITS.min} characters long`;
    if (length > PASSWORD_LIMITS.max) return `must be at most ${PASSWORD_LIMITS.max} characters long`;
    return null;
  },
  {
    type: 'string',
    minLength: PASSWORD_LIMITS.min,
    maxLength: PASSWORD_LIMITS.max,
    writeOnly: true,
    description: `${PASSWORD_LIMITS.min} to ${PASSWORD_LIMITS.max} Unicode code points.`,
  },
);

/** A password offered at sign-in: any string up to a bound (a wrong length is a mismatch, never a 422). */
export const offeredPassword: Checker = described(
  (value) => (typeof value !== 'string' ? 'must be a string' : value.length > 4096 ? 'is too long' : null),
  { type: 'string', maxLength: 4096, writeOnly: true },
);

/**
 * scrypt's cost: N = 2^17, r = 8, p = 1 (128 MiB, the OWASP minimum for scrypt). Stored with each
 * hash, so raising it later leaves older hashes verifiable.
 */
export const SCRYPT_COST = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  // 128 * N * r bytes, plus room: Node refuses above `maxmem` (32 MiB by default).
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    // The asynchronous form runs on libuv's thread pool: the event loop is never blocked.
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$<salt base64>$<hash base64>`, with a fresh 16-byte salt. */
export async function hashPassword(
  password: string,
  cost: { N: number; r: number; p: number } = SCRYPT_COST,
): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

const STORED = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/**
 * Whether `password` matches `stored`. With `stored` null (unknown email, no password set yet)
 * the same work is done against a throw-away hash and the answer is false, so the time taken
 * does not tell whether the account exists.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const match = STORED.exec(stored ?? (await decoy()));
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const expected = Buffer.from(match[5]!, 'base64');
  const key = await derive(password, Buffer.from(match[4]!, 'base64'), { N, r, p });
  return stored !== null && key.length === expected.length && timingSafeEqual(key, expected);
}

let decoyHash: Promise<string> | undefined;
/** A hash of a random password at the current cost, made once per process. */
function decoy(): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return decoyHash;
}
