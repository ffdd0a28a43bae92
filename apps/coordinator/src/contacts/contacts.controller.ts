import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ContactIdPipe } from '../common/object-id.pipe.js';
import { ListContactsQuery } from './contact.dto.js';
import { ContactsService } from './contacts.service.js';

/** Contacts use top-level `contacts` / `contact` keys (the spec), except reactivate. */
@Controller('api/contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @RequirePermission('contacts:read')
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListContactsQuery) {
    return { status: 'ok', ...(await this.contacts.list(principal.accountId, query)) };
  }

  @Get(':id')
  @RequirePermission('contacts:read')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', ContactIdPipe) id: string) {
    return { status: 'ok', contact: await this.contacts.get(principal.accountId, id) };
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('contacts:write')
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return { status: 'ok', contact: await this.contacts.create(principal.accountId, body) };
  }

  @Put(':id')
  @RequirePermission('contacts:write')
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
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', ContactIdPipe) id: string): Promise<void> {
    await this.contacts.delete(principal.accountId, id);
  }

  @Post(':id/reactivate')
  @HttpCode(200)
  @RequirePermission('contacts:write')
  async reactivate(@CurrentPrincipal() principal: Principal, @Param('id', ContactIdPipe) id: string) {
    return { status: 'ok', data: { contact: await this.contacts.reactivate(principal.accountId, id) } };
  }
}
