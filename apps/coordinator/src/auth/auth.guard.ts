import { createParamDecorator, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CoordinatorConfig } from '../config.js';
import { AppError } from '../errors.js';
import { socketAddress } from '../rate-limit/client-address.js';
import { rateLimitHeaders, RateLimiter } from '../rate-limit/rate-limiter.js';
import { headerOf, ownOrigins } from '../sessions/request-origin.js';
import { CSRF_HEADER, csrfRefusal, sessionTokenFrom } from '../sessions/session-rules.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { AuthService, unauthorized, type Principal } from './auth.service.js';
import type { Permission } from './permissions.js';

const PERMISSION_KEY = 'picket:permission';
const PUBLIC_KEY = 'picket:public';

/**
 * What a route asks of its caller: a permission (an API key or a session holding it), `session`
 * (any signed-in dashboard user, never a key), `admin` (an admin's session: users and API keys,
 * docs/decisions/0022-users-and-sessions.md), or `public`.
 */
export type Access = Permission | 'session' | 'admin' | 'public';

/** The permission a route needs; every API route names one. */
export const RequirePermission = (permission: Permission) => SetMetadata(PERMISSION_KEY, permission);

/** A route for signed-in dashboard users only (`admin`: admins only); API keys get 403. */
export const RequireSession = (who: 'session' | 'admin') => SetMetadata(PERMISSION_KEY, who);

/** A route served without an API key (documents, public pages, health). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);

/**
 * What a route declares, the handler's word over its controller's: `public`, the permission it
 * needs, or nothing (a bug the guard refuses loudly). The guard and the OpenAPI document read it.
 */
export function declaredAccess(handler: object, controller: object): Access | undefined {
  const read = <T>(key: string): T | undefined =>
    (Reflect.getMetadata(key, handler) as T | undefined) ?? (Reflect.getMetadata(key, controller) as T | undefined);
  return read<boolean>(PUBLIC_KEY) ? 'public' : read<Exclude<Access, 'public'>>(PERMISSION_KEY);
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
 * docs/decisions/0018-abuse-limits-and-quotas.md) by the Bearer key, or when no Authorization is
 * sent by the session cookie, whose state-changing requests must pass the CSRF check (403,
 * docs/decisions/0022-users-and-sessions.md); charge the account's rate limit (429,
 * docs/decisions/0003-auth-permissions-rate-limit.md; the X-RateLimit-* headers go on every answer
 * from here on, errors included), then check the route's access (403).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionsService,
    private readonly limiter: RateLimiter,
    private readonly config: CoordinatorConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = declaredAccess(context.getHandler(), context.getClass());
    if (access === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = await this.authenticate(request);
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
    const refusal = accessRefusal(principal, access);
    if (refusal !== null) throw new AppError('FORBIDDEN', refusal);
    return true;
  }

  /**
   * A Bearer key when Authorization is sent (it wins over a cookie), else the session cookie,
   * else 401. A session's write is refused (403) before it is charged when it fails the CSRF
   * check, so a forged cross-site request costs the account nothing.
   */
  private async authenticate(request: FastifyRequest): Promise<Principal> {
    const authorization = request.headers.authorization;
    const token = authorization === undefined ? sessionTokenFrom(headerOf(request, 'cookie')) : undefined;
    if (token === undefined) return this.auth.authenticate(authorization, socketAddress(request));
    const user = await this.sessions.authenticate(token);
    if (user === null) throw sessionEnded();
    const csrf = csrfRefusal({
      method: request.method,
      header: headerOf(request, CSRF_HEADER),
      expected: user.csrfToken,
      origin: headerOf(request, 'origin'),
      ownOrigins: ownOrigins(request, this.config.PUBLIC_URL),
    });
    if (csrf !== null) throw new AppError('FORBIDDEN', csrf);
    return { accountId: user.accountId, keyId: null, user, permissions: user.permissions };
  }
}

/** The 403 message when `principal` may not use a route of this access, or null. */
export function accessRefusal(principal: Principal, access: Exclude<Access, 'public'>): string | null {
  if (access === 'session' || access === 'admin') {
    if (principal.user === null) return 'This operation is for signed-in dashboard users; API keys cannot use it.';
    if (access === 'admin' && principal.user.role !== 'admin') return 'This operation needs an admin user.';
    return null;
  }
  if (principal.permissions.has(access)) return null;
  return principal.user === null
    ? `This API key lacks the permission ${access}.`
    : `Your role (${principal.user.role}) lacks the permission ${access}.`;
}

/** The 401 of a session cookie that no longer stands for anyone (expired, revoked, user disabled). */
function sessionEnded(): AppError {
  const base = unauthorized();
  return new AppError(
    'UNAUTHORIZED',
    'Your session has ended; sign in again (or send "Authorization: Bearer pkt_…").',
    undefined,
    base.headers,
  );
}
