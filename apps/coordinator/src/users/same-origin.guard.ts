import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CoordinatorConfig } from '../config.js';
import { AppError } from '../errors.js';
import { headerOf, ownOrigins } from '../sessions/request-origin.js';
import { originAllowed } from '../sessions/session-rules.js';

/**
 * The sign-in routes (no session yet, so no CSRF token) refuse a foreign `Origin` with 403, before
 * the body is judged (docs/decisions/0022-users-and-sessions.md): another site cannot sign a
 * browser in to an account of its choosing (login CSRF), nor out.
 */
@Injectable()
export class SameOriginGuard implements CanActivate {
  constructor(private readonly config: CoordinatorConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!originAllowed(headerOf(request, 'origin'), ownOrigins(request, this.config.PUBLIC_URL))) {
      throw new AppError('FORBIDDEN', 'Cross-site request refused: the Origin header is not this server.');
    }
    return true;
  }
}
