import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ContactIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import { REDACTED } from './channels.js';
import { ListContactsQuery } from './contact.dto.js';
import { ContactsService, DEFAULT_CONTACTS_PER_PAGE } from './contacts.service.js';

/** Contacts use top-level `contacts` / `contact` keys (the spec), except reactivate. */
@Controller('api/contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @RequirePermission('contacts:read')
  @ApiOperation({
    operationId: 'listContacts',
    tag: 'Contacts',
    summary: 'List contacts',
    description: "A page of the account's contacts, secrets redacted. Unknown or invalid query parameters get 422.",
    query: {
      ...pageQuery(DEFAULT_CONTACTS_PER_PAGE),
      search: { description: 'Case-insensitive substring of the name.' },
      channel: { description: 'Only contacts of this channel.' },
      sort: { default: 'created_at', description: 'Sort field.' },
    },
    success: { description: 'A page of contacts.', schema: 'ContactListResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListContactsQuery) {
    return { status: 'ok', ...(await this.contacts.list(principal.accountId, query)) };
  }

  @Get(':id')
  @RequirePermission('contacts:read')
  @ApiOperation({
    operationId: 'getContact',
    tag: 'Contacts',
    summary: 'Get a contact',
    id: 'ContactId',
    success: { description: 'The contact, secrets redacted.', schema: 'ContactResponse' },
    errors: ['CONTACT_NOT_FOUND'],
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ContactIdPipe) id: string) {
    return { status: 'ok', contact: await this.contacts.get(principal.accountId, id) };
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('contacts:write')
  @ApiOperation({
    operationId: 'createContact',
    tag: 'Contacts',
    summary: 'Create a contact',
    description:
      'Optional details fields get their defaults, which are always returned. Secrets come back as ' +
      `${REDACTED}. Read-only channels (push) cannot be created (422).`,
    body: { schema: 'ContactCreate', required: true, description: 'The new contact.' },
    success: { description: 'The created contact.', schema: 'ContactResponse' },
    errors: ['VALIDATION_ERROR', 'QUOTA_EXCEEDED'],
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return { status: 'ok', contact: await this.contacts.create(principal.accountId, body) };
  }

  @Put(':id')
  @RequirePermission('contacts:write')
  @ApiOperation({
    operationId: 'updateContact',
    tag: 'Contacts',
    summary: 'Update a contact (partial)',
    description:
      'Only the supplied fields change; details merge over the stored ones. Checked in this order: ' +
      '404, then 403 READONLY_CHANNEL, then the body (422).',
    id: 'ContactId',
    body: { schema: 'ContactUpdate', required: false, description: 'The fields to change.' },
    success: { description: 'The whole contact after the change.', schema: 'ContactResponse' },
    errors: ['CONTACT_NOT_FOUND', 'READONLY_CHANNEL', 'VALIDATION_ERROR'],
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ContactIdPipe) id: string,
    @Body() body: unknown,
  ) {
    return { status: 'ok', contact: await this.contacts.update(principal.accountId, id, body) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('contacts:write')
  @ApiOperation({
    operationId: 'deleteContact',
    tag: 'Contacts',
    summary: 'Delete a contact',
    description: 'The contact also leaves every monitor that listed it.',
    id: 'ContactId',
    success: { description: 'Deleted; no body.' },
    errors: ['CONTACT_NOT_FOUND', 'READONLY_CHANNEL'],
  })
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', ContactIdPipe) id: string): Promise<void> {
    await this.contacts.delete(principal.accountId, id);
  }

  @Post(':id/reactivate')
  @HttpCode(200)
  @RequirePermission('contacts:write')
  @ApiOperation({
    operationId: 'reactivateContact',
    tag: 'Contacts',
    summary: 'Reactivate a contact',
    description: 'Turns an (automatically) deactivated contact back on and clears its error. No body.',
    id: 'ContactId',
    success: { description: 'The reactivated contact.', schema: 'ContactReactivateResponse' },
    errors: ['CONTACT_NOT_FOUND'],
  })
  async reactivate(@CurrentPrincipal() principal: Principal, @Param('id', ContactIdPipe) id: string) {
    return { status: 'ok', data: { contact: await this.contacts.reactivate(principal.accountId, id) } };
  }
}
