import { Module } from '@nestjs/common';
import { FailureThrottle } from './failure-throttle.js';
import { RateLimitStore } from './rate-limit.store.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * The per-account API budget (docs/decisions/0003-auth-permissions-rate-limit.md), applied by the API
 * key guard, and the per-address budget of failed authentications
 * (docs/decisions/0018-abuse-limits-and-quotas.md), applied by the key check and the status pages' basic auth.
 */
@Module({
  providers: [RateLimitStore, RateLimiter, FailureThrottle],
  exports: [RateLimiter, FailureThrottle],
})
export class RateLimitModule {}
