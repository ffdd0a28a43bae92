import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';
import { ApiKeyGuard } from './auth.guard.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { AuthService } from './auth.service.js';

/** API keys, accounts and the global guard. */
@Module({
  imports: [RateLimitModule, SessionsModule],
  providers: [AccountsRepository, AccountsService, AuthService, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [AccountsRepository, AccountsService, AuthService],
})
export class AuthModule {}
