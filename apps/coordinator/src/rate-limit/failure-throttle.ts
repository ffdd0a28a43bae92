import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CLOCK, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { AppError } from '../errors.js';
import { addressBucket } from './client-address.js';
import { describe, HOUR_MS, nextTat, type Decision, type Limits } from './gcra.js';
import { RateLimitStore } from './rate-limit.store.js';
import { rateLimitHeaders } from './rate-limiter.js';

/**
 * What failed: a bearer API key, the basic auth of a status page, or a dashboard sign-in
 * (docs/decisions/0022-users-and-sessions.md). Each has its own budget per address.
 */
export type FailureKind = 'api_key' | 'basic_auth' | 'password';

const addressKey = (kind: FailureKind, address: string | undefined) => `${kind}:${addressBucket(address)}`;

/** The budget of one email address at sign-in, by its SHA-256: the table never holds people's addresses. */
const emailKey = (email: string) => `email:${createHash('sha256').update(email.toLowerCase(), 'utf8').digest('hex')}`;

/** Expired failure buckets are deleted at most this often per replica. */
const PRUNE_INTERVAL_MS = 60_000;

/**
 * Failed authentications per client address (docs/decisions/0018-abuse-limits-and-quotas.md):
 * the GCRA of the account budget over a second table, one failure costing one point of
 * AUTH_FAILURES_PER_HOUR. Shared by every replica through the database; a failure is charged
 * by the same single atomic statement, so concurrent guesses cannot together take more.
 */
@Injectable()
export class FailureThrottle {
  private readonly logger = new Logger('FailureThrottle');
  private readonly limits: Limits;
  private lastPrune = 0;

  constructor(
    private readonly store: RateLimitStore,
    config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.limits = { budget: config.AUTH_FAILURES_PER_HOUR };
  }

  /** Charges one failure from `address`: null when it fit, or the refusal when the budget was already spent. */
  failed(kind: FailureKind, address: string | undefined): Promise<Decision | null> {
    return this.charge(addressKey(kind, address));
  }

  /** Charges one failed sign-in to `email`'s own budget (whatever address it came from): as `failed`. */
  failedEmail(email: string): Promise<Decision | null> {
    return this.charge(emailKey(email));
  }

  private async charge(id: string): Promise<Decision | null> {
    const now = this.clock.now();
    const tat = await this.store.admit('auth_failure', id, now, HOUR_MS / this.limits.budget);
    this.prune(now);
    return tat === null ? this.refusal(id, now) : null;
  }

  /**
   * The refusal when `address` has no failure left to spend, or null. For credentials that can be
   * guessed (basic auth), a success is admitted only when a failure would have been: otherwise
   * the answer to the right guess would tell a throttled guesser that it won.
   */
  spent(kind: FailureKind, address: string | undefined): Promise<Decision | null> {
    return this.spentOf(addressKey(kind, address));
  }

  /** As `spent`, for the budget of one email address at sign-in. */
  spentEmail(email: string): Promise<Decision | null> {
    return this.spentOf(emailKey(email));
  }

  private async spentOf(id: string): Promise<Decision | null> {
    const now = this.clock.now();
    const stored = await this.store.tatOf('auth_failure', id);
    return nextTat(stored, now, 1, this.limits) - now <= HOUR_MS ? null : this.decide(stored, now);
  }

  private async refusal(id: string, now: number): Promise<Decision> {
    return this.decide(await this.store.tatOf('auth_failure', id), now);
  }

  private decide(stored: number | null, now: number): Decision {
    return describe(Math.max(stored ?? now, now), now, this.limits, nextTat(stored, now, 1, this.limits));
  }

  private prune(now: number): void {
    if (now - this.lastPrune < PRUNE_INTERVAL_MS) return;
    this.lastPrune = now;
    this.store.pruneAuthFailures(now).catch((error: unknown) => {
      this.logger.warn(`could not prune expired failure budgets: ${String(error)}`);
    });
  }
}

/** The 429 of a spent failure budget: Retry-After, and the X-RateLimit-* headers of that budget. */
export function tooManyFailures(decision: Decision): AppError {
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    'Too many failed authentications from this address; retry later.',
    undefined,
    rateLimitHeaders(decision),
  );
}
