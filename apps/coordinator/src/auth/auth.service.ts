import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, unixSeconds, type Clock } from '#runtime';
import { AppError } from '../errors.js';
import { AccountsRepository } from './accounts.repository.js';
import { API_KEY_PATTERN, digestsEqual, hashApiKey } from './api-key.js';
import { isPermission, type Permission } from './permissions.js';

export interface Principal {
  accountId: string;
  keyId: string;
  permissions: ReadonlySet<Permission>;
}

/** `last_used_at` is written at most this often per key, never on every request. */
const TOUCH_INTERVAL_SECONDS = 300;

export function unauthorized(): AppError {
  return new AppError('UNAUTHORIZED', 'A valid API key is required: send "Authorization: Bearer pkt_…".', undefined, {
    'WWW-Authenticate': 'Bearer',
  });
}

/**
 * Turns an Authorization header into the principal it stands for. Every failure (missing,
 * malformed, unknown, revoked) is the same 401, so the answer never says which it was.
 */
@Injectable()
export class AuthService {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly accounts: AccountsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async authenticate(header: string | string[] | undefined): Promise<Principal> {
    const match = typeof header === 'string' ? /^Bearer +(\S+) *$/i.exec(header) : null;
    const token = match?.[1];
    if (token === undefined || !API_KEY_PATTERN.test(token)) throw unauthorized();
    const digest = hashApiKey(token);
    const key = await this.accounts.findKeyByHash(digest);
    if (!key || !digestsEqual(key.keyHash, digest) || key.revokedAt !== null) throw unauthorized();

    const now = unixSeconds(this.clock);
    if (key.lastUsedAt === null || now - key.lastUsedAt >= TOUCH_INTERVAL_SECONDS) {
      this.accounts.touchKey(key.id, now).catch((error: unknown) => {
        this.logger.warn(`could not record last use of key ${key.id}: ${String(error)}`);
      });
    }
    const permissions = new Set(key.permissions.split(',').filter(isPermission));
    return { accountId: key.accountId, keyId: key.id, permissions };
  }
}
