import { Module } from '@nestjs/common';
import { RateLimitStore } from './rate-limit.store.js';
import { RateLimiter } from './rate-limiter.js';

/** The per-account API budget (DECISIONS §2), applied by the API key guard. */
@Module({
  providers: [RateLimitStore, RateLimiter],
  exports: [RateLimiter],
})
export class RateLimitModule {}
