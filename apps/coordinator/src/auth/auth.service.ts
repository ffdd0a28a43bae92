import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, unixSeconds, type Clock } from '#runtime';
import { AppError } from '../errors.js';
import { FailureThrottle, tooManyFailures } from '../rate-limit/failure-throttle.js';
import { AccountsRepository } from './accounts.repository.js';
import { API_KEY_PATTERN, digestsEqual, hashApiKey, weakApiKeyProblem } from './api-key.js';
import { isPermission, type Permission } from './permissions.js';
import type { SessionUser } from '../sessions/sessions.service.js';

/**
 * Who a request stands for: an API key (`keyId`), or a dashboard user's session (`user`;
 * docs/decisions/0022-users-and-sessions.md). Exactly one of the two is set.
 */
export interface Principal {
  accountId: string;
  keyId: string | null;
  user: SessionUser | null;
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
    private readonly throttle: FailureThrottle,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The principal, or 401. A failed attempt from `address` (the socket's peer) is charged to its
   * failure budget, and once that is spent the answer is 429 instead
   * (docs/decisions/0018-abuse-limits-and-quotas.md). A request without any Authorization is
   * no guess and is not charged. A valid key is never slowed: with 2^256 keys, admitting it
   * while the address is throttled tells a guesser nothing, and a client sharing an address
   * with a guesser keeps working.
   */
  async authenticate(header: string | string[] | undefined, address: string | undefined): Promise<Principal> {
    const principal = await this.principalOf(header);
    if (principal) return principal;
    if (header === undefined || header === '') throw unauthorized();
    const refusal = await this.throttle.failed('api_key', address);
    throw refusal ? tooManyFailures(refusal) : unauthorized();
  }

  private async principalOf(header: string | string[] | undefined): Promise<Principal | null> {
    const match = typeof header === 'string' ? /^Bearer +(\S+) *$/i.exec(header) : null;
    const token = match?.[1];
    // A key too regular to be secret (the all-zero example a deploy file once shipped) never
    // authenticates, even if it was registered before BOOTSTRAP_API_KEY refused such keys.
    if (token === undefined || !API_KEY_PATTERN.test(token) || weakApiKeyProblem(token) !== null) return null;
    const digest = hashApiKey(token);
    const key = await this.accounts.findKeyByHash(digest);
    if (!key || !digestsEqual(key.keyHash, digest) || key.revokedAt !== null) return null;

    const now = unixSeconds(this.clock);
    if (key.lastUsedAt === null || now - key.lastUsedAt >= TOUCH_INTERVAL_SECONDS) {
      this.accounts.touchKey(key.id, now).catch((error: unknown) => {
        this.logger.warn(`could not record last use of key ${key.id}: ${String(error)}`);
      });
    }
    const permissions = new Set(key.permissions.split(',').filter(isPermission));
    return { accountId: key.accountId, keyId: key.id, user: null, permissions };
  }
}
