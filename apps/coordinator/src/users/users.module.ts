import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysService } from './api-keys.service.js';
import { MeController } from './me.controller.js';
import { PasswordHasher } from './passwords.js';
import { SameOriginGuard } from './same-origin.guard.js';
import { SignInController } from './sign-in.controller.js';
import { UsersController } from './users.controller.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

/** Dashboard users: sign-in, setup, invitations, and the admins' users and API keys routes (docs/decisions/0022-users-and-sessions.md). */
@Module({
  imports: [AuthModule, RateLimitModule, SessionsModule],
  controllers: [SignInController, MeController, UsersController, ApiKeysController],
  providers: [UsersRepository, UsersService, ApiKeysService, SameOriginGuard, PasswordHasher],
  exports: [UsersService],
})
export class UsersModule {}
