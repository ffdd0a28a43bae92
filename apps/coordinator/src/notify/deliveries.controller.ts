import { Controller, Get, Param, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ContactIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import { DEFAULT_DELIVERIES_PER_PAGE, DeliveriesService, ListDeliveriesQuery } from './deliveries.service.js';

/** A contact's delivery log: what each attempt to notify it came to. */
@Controller('api/contacts')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get(':id/deliveries')
  @RequirePermission('contacts:read')
  @ApiOperation({
    operationId: 'listContactDeliveries',
    tag: 'Contacts',
    summary: "List a contact's delivery attempts",
    description:
      'Every attempt to deliver a notification (monitor.down, monitor.up, certificate.expiring) to the contact, ' +
      'newest first: when, the outcome class (`ok`, `retry`, `disable`, `bug`, `config`), the HTTP or SMTP status and ' +
      'a short reason that never carries a provider body, a URL or a secret. Contact tests are answered at once and ' +
      'not listed. Unknown or invalid query parameters get 422.',
    id: 'ContactId',
    query: pageQuery(DEFAULT_DELIVERIES_PER_PAGE, 'By attempt time: `desc` is newest first.'),
    success: { description: 'A page of delivery attempts.', schema: 'DeliveryListResponse' },
    errors: ['CONTACT_NOT_FOUND', 'VALIDATION_ERROR'],
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ContactIdPipe) id: string,
    @Query() query: ListDeliveriesQuery,
  ) {
    return { status: 'ok', data: await this.deliveries.list(principal.accountId, id, query) };
  }
}
