import { createParamDecorator, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { socketAddress } from '../rate-limit/client-address.js';
import { rateLimitHeaders, RateLimiter } from '../rate-limit/rate-limiter.js';
import { AuthService, type Principal } from './auth.service.js';
import type { Permission } from './permissions.js';

const PERMISSION_KEY = 'picket:permission';
const PUBLIC_KEY = 'picket:public';

/** The permission a route needs; every API route names one. */
export const RequirePermission = (permission: Permission) => SetMetadata(PERMISSION_KEY, permission);

/** A route served without an API key (documents, public pages, health). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);

/**
 * What a route declares, the handler's word over its controller's: `public`, the permission it
 * needs, or nothing (a bug the guard refuses loudly). The guard and the OpenAPI document read it.
 */
export function declaredAccess(handler: object, controller: object): Permission | 'public' | undefined {
  const read = <T>(key: string): T | undefined =>
    (Reflect.getMetadata(key, handler) as T | undefined) ?? (Reflect.getMetadata(key, controller) as T | undefined);
  return read<boolean>(PUBLIC_KEY) ? 'public' : read<Permission>(PERMISSION_KEY);
}

type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/** The principal of an authenticated request, for controller parameters. */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return principal;
});

/**
 * Global guard: authenticate (401; 429 once the client address spent its budget of failures,
 * docs/decisions/0018-abuse-limits-and-quotas.md), charge the account's rate limit (429,
 * docs/decisions/0003-auth-permissions-rate-limit.md; the X-RateLimit-* headers go on every answer
 * from here on, errors included), then check the route's permission (403).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly auth: AuthService,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = declaredAccess(context.getHandler(), context.getClass());
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = await this.auth.authenticate(request.headers.authorization, socketAddress(request));
    request.principal = principal;
    const decision = await this.limiter.charge(principal.accountId, request.method, request.url.split('?')[0] ?? '/');
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        'The rate limit of this account is exhausted; retry later.',
        undefined,
        headers,
      );
    }
    void context.switchToHttp().getResponse<FastifyReply>().headers(headers);
    if (access === undefined) throw new Error(`route ${request.url} declares no permission`);
    if (!principal.permissions.has(access)) {
      throw new AppError('FORBIDDEN', `This API key lacks the permission ${access}.`);
    }
    return true;
  }
}
