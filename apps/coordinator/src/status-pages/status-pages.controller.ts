import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { StatusPageIdPipe } from '../common/object-id.pipe.js';
import { CreateStatusPageDto, ListStatusPagesQuery } from './status-page.dto.js';
import { StatusPagesService } from './status-pages.service.js';

@Controller('api/status_pages')
export class StatusPagesController {
  constructor(private readonly pages: StatusPagesService) {}

  @Get()
  @RequirePermission('status_pages:read')
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListStatusPagesQuery) {
    return { status: 'ok', data: await this.pages.list(principal.accountId, query) };
  }

  @Get(':id')
  @RequirePermission('status_pages:read')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', StatusPageIdPipe) id: string) {
    return { status: 'ok', data: await this.pages.get(principal.accountId, id) };
  }

  @Post()
  @RequirePermission('status_pages:write')
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateStatusPageDto) {
    return { status: 'ok', data: await this.pages.create(principal.accountId, body) };
  }

  @Put(':id')
  @RequirePermission('status_pages:write')
  async put(
    @CurrentPrincipal() principal: Principal,
    @Param('id', StatusPageIdPipe) id: string,
    @Body() body: unknown,
  ) {
    return { status: 'ok', data: await this.pages.update(principal.accountId, id, body) };
  }

  @Patch(':id')
  @RequirePermission('status_pages:write')
  async patch(
    @CurrentPrincipal() principal: Principal,
    @Param('id', StatusPageIdPipe) id: string,
    @Body() body: unknown,
  ) {
    return { status: 'ok', data: await this.pages.update(principal.accountId, id, body) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('status_pages:write')
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', StatusPageIdPipe) id: string): Promise<void> {
    await this.pages.delete(principal.accountId, id);
  }
}
