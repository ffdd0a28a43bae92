import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ContactIdPipe } from '../common/object-id.pipe.js';
import { ContactTestService } from './contact-test.service.js';

@Controller('api/contacts')
export class ContactTestController {
  constructor(private readonly tests: ContactTestService) {}

  @Post(':id/test')
  @HttpCode(200)
  @RequirePermission('contacts:write')
  async test(@CurrentPrincipal() principal: Principal, @Param('id', ContactIdPipe) id: string) {
    return { status: 'ok', data: await this.tests.send(principal.accountId, id) };
  }
}
