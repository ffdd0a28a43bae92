import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ContactIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { ContactTestService } from './contact-test.service.js';

@Controller('api/contacts')
export class ContactTestController {
  constructor(private readonly tests: ContactTestService) {}

  @Post(':id/test')
  @HttpCode(200)
  @RequirePermission('contacts:write')
  @ApiOperation({
    operationId: 'testContact',
    tag: 'Contacts',
    summary: 'Send a test notification',
    description:
      "Delivers a real `contact.test` notification through the contact's channel (any channel, push and inactive " +
      'contacts included) and waits for the answer. 200 when the destination accepted it; 422 CONTACT_TEST_FAILED when ' +
      'it did not, with `message` "Test notification not delivered: <class>: <reason> (…)" where the class is ' +
      '`retry` (temporary: network error, timeout, 5xx, 429), `disable` (destination gone or credentials rejected), ' +
      "`bug` (the destination rejected the message) or `config` (the server's own configuration, e.g. no SMTP relay). " +
      'Provider answers are never echoed. Does not change the contact. No body.',
    id: 'ContactId',
    success: { description: 'The destination accepted the test notification.', schema: 'ContactTestResponse' },
    errors: ['CONTACT_NOT_FOUND', 'CONTACT_TEST_FAILED'],
  })
  async test(@CurrentPrincipal() principal: Principal, @Param('id', ContactIdPipe) id: string) {
    return { status: 'ok', data: await this.tests.send(principal.accountId, id) };
  }
}
