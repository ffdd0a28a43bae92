import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { costOf, describe, HOUR_MS, nextTat, type Decision, type Limits } from './gcra.js';
import { RateLimitStore } from './rate-limit.store.js';

/**
 * The per-account budget of docs/decisions/0003-auth-permissions-rate-limit.md: decides, charges,
 * and says what to put in the headers.
 */
@Injectable()
export class RateLimiter {
  private readonly limits: Limits;

  constructor(
    private readonly store: RateLimitStore,
    config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.limits = { budget: config.RATE_LIMIT_POINTS_PER_HOUR };
  }

  async charge(accountId: string, method: string, path: string): Promise<Decision> {
    const now = this.clock.now();
    const cost = costOf(method, path);
    const increment = (cost * HOUR_MS) / this.limits.budget;
    const tat = increment <= HOUR_MS ? await this.store.admit('account', accountId, now, increment) : null;
    if (tat !== null) return describe(tat, now, this.limits, null);
    const stored = await this.store.tatOf('account', accountId);
    return describe(Math.max(stored ?? now, now), now, this.limits, nextTat(stored, now, cost, this.limits));
  }
}

/** The response headers of a decision (docs/decisions/0003-auth-permissions-rate-limit.md). */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.reset),
    ...(decision.retryAfter === null ? {} : { 'Retry-After': String(decision.retryAfter) }),
  };
}
