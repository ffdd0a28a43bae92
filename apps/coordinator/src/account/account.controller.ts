import { Controller, Get } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { AccountService } from './account.service.js';

@Controller('api/account')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get()
  @RequirePermission('account:read')
  async get(@CurrentPrincipal() principal: Principal) {
    return { status: 'ok', data: await this.account.get(principal.accountId) };
  }
}
