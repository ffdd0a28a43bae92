import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { codePoints, described, type Checker } from '#validation';
import { CoordinatorConfig } from '../config.js';
import {
  hashPassword as hashStored,
  verifyPassword as verifyStored,
  type ScryptCost,
} from '../secrets/password-hash.js';

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
 * scrypt's default cost for sign-in passwords: N = 2^17, r = 8, p = 1 (128 MiB, the OWASP minimum
 * for scrypt); PASSWORD_SCRYPT_LOG_N changes N (docs/decisions/0032-password-hash-cost.md).
 * Stored with each hash (one format with status-page passwords, `secrets/password-hash.ts`), so
 * changing it later leaves older hashes verifiable.
 */
export const SCRYPT_COST: ScryptCost = { logN: 17, r: 8, p: 1 };

/** `scrypt$logN$r$p$<salt base64>$<hash base64>` of the NFC form, with a fresh 16-byte salt. */
export function hashPassword(password: string, cost: ScryptCost = SCRYPT_COST): Promise<string> {
  return hashStored(password.normalize('NFC'), cost);
}

/**
 * Whether `password` matches `stored`. With `stored` null (unknown email, no password set yet)
 * the same work is done against a throw-away hash at `cost` and the answer is false, so the time
 * taken does not tell whether the account exists.
 */
export async function verifyPassword(
  password: string,
  stored: string | null,
  cost: ScryptCost = SCRYPT_COST,
): Promise<boolean> {
  const matches = await verifyStored(password.normalize('NFC'), stored ?? (await decoy(cost)));
  return stored !== null && matches;
}

const decoys = new Map<string, Promise<string>>();
/** A hash of a random password at `cost`, made once per process and cost. */
function decoy(cost: ScryptCost): Promise<string> {
  const key = `${cost.logN}$${cost.r}$${cost.p}`;
  let hash = decoys.get(key);
  if (!hash) {
    hash = hashPassword(randomBytes(16).toString('hex'), cost);
    decoys.set(key, hash);
  }
  return hash;
}

/**
 * Sign-in passwords at the configured cost, as an injectable, so that what a check costs is a
 * seam: a throttled sign-in must not reach it (users.service.ts, docs/decisions/0022-users-and-sessions.md).
 */
@Injectable()
export class PasswordHasher {
  private readonly cost: ScryptCost;

  constructor(config: CoordinatorConfig) {
    this.cost = { ...SCRYPT_COST, logN: config.PASSWORD_SCRYPT_LOG_N };
  }

  hash(password: string): Promise<string> {
    return hashPassword(password, this.cost);
  }

  verify(password: string, stored: string | null): Promise<boolean> {
    return verifyPassword(password, stored, this.cost);
  }
}
