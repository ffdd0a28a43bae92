import { Module } from '@nestjs/common';
import { RateLimitStore } from './rate-limit.store.js';
import { RateLimiter } from './rate-limiter.js';

/** The per-account API budget (docs/decisions/0003-auth-permissions-rate-limit.md), applied by the API key guard. */
@Module({
  providers: [RateLimitStore, RateLimiter],
  exports: [RateLimiter],
})
export class RateLimitModule {}
