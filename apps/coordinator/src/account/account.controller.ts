import { Controller, Get } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { AccountService } from './account.service.js';

@Controller('api/account')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get()
  @RequirePermission('account:read')
  @ApiOperation({
    operationId: 'getAccount',
    tag: 'Account',
    summary: 'Get the account',
    description: 'The account the API key belongs to, with monitor counts.',
    success: { description: 'The account.', schema: 'AccountResponse' },
  })
  async get(@CurrentPrincipal() principal: Principal) {
    return { status: 'ok', data: await this.account.get(principal.accountId) };
  }
}
