import { Controller, Get } from '@nestjs/common';
import { CurrentPrincipal, RequireSession } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { notFound } from '../errors.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { describedPermissions } from './roles.js';
import { UsersService } from './users.service.js';

@Controller('api/me')
export class MeController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @RequireSession('session')
  @ApiOperation({
    operationId: 'getMe',
    tag: 'Sessions',
    summary: 'The signed-in user',
    description:
      'The user of the session cookie, their account and permissions, and the CSRF token their state-changing ' +
      'requests must send as `X-CSRF-Token`. API keys get 403.',
    success: { description: 'The signed-in user.', schema: 'MeResponse' },
  })
  async me(@CurrentPrincipal() principal: Principal) {
    const session = principal.user;
    const user = session ? await this.users.findInAccount(session.accountId, session.userId) : null;
    if (!session || !user) throw notFound.user();
    return {
      status: 'ok',
      data: {
        user: {
          id: user.id,
          email: user.email,
          name: user.name,
          role: user.role,
          created_at: user.createdAt,
          last_login_at: user.lastLoginAt,
        },
        account_id: user.accountId,
        permissions: describedPermissions(user.role),
        csrf_token: session.csrfToken,
      },
    };
  }
}
