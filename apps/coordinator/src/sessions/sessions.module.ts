import { Module } from '@nestjs/common';
import { SessionsService } from './sessions.service.js';

/** Dashboard sessions, for the global guard and the sign-in routes (docs/decisions/0022-users-and-sessions.md). */
@Module({ providers: [SessionsService], exports: [SessionsService] })
export class SessionsModule {}
