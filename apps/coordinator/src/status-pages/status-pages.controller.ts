import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { StatusPageIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import { CreateStatusPageDto, DEFAULT_STATUS_PAGES_PER_PAGE, ListStatusPagesQuery } from './status-page.dto.js';
import { StatusPagesService } from './status-pages.service.js';

/** PUT and PATCH are the same partial update. */
const updateOperation = (method: 'PUT' | 'PATCH') =>
  ApiOperation({
    operationId: method === 'PUT' ? 'updateStatusPage' : 'patchStatusPage',
    tag: 'Status pages',
    summary: `Update a status page (${method}, partial)`,
    description: 'Only the supplied fields change. The page is looked up (404) before the body is judged (422).',
    id: 'StatusPageId',
    body: { schema: 'StatusPageUpdate', required: false, description: 'The fields to change.' },
    success: { description: 'The page after the change.', schema: 'StatusPageResponse' },
    errors: ['STATUS_PAGE_NOT_FOUND', 'VALIDATION_ERROR'],
  });

@Controller('api/status_pages')
export class StatusPagesController {
  constructor(private readonly pages: StatusPagesService) {}

  @Get()
  @RequirePermission('status_pages:read')
  @ApiOperation({
    operationId: 'listStatusPages',
    tag: 'Status pages',
    summary: 'List status pages',
    description: 'Newest first unless order=asc.',
    query: pageQuery(DEFAULT_STATUS_PAGES_PER_PAGE, 'By created_at: `desc` is newest first.'),
    success: { description: 'A page of status pages.', schema: 'StatusPageListResponse' },
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListStatusPagesQuery) {
    return { status: 'ok', data: await this.pages.list(principal.accountId, query) };
  }

  @Get(':id')
  @RequirePermission('status_pages:read')
  @ApiOperation({
    operationId: 'getStatusPage',
    tag: 'Status pages',
    summary: 'Get a status page',
    id: 'StatusPageId',
    success: { description: 'The page.', schema: 'StatusPageResponse' },
    errors: ['STATUS_PAGE_NOT_FOUND'],
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', StatusPageIdPipe) id: string) {
    return { status: 'ok', data: await this.pages.get(principal.accountId, id) };
  }

  @Post()
  @RequirePermission('status_pages:write')
  @ApiOperation({
    operationId: 'createStatusPage',
    tag: 'Status pages',
    summary: 'Create a status page',
    body: { schema: 'StatusPageCreate', required: true, description: 'The new page.' },
    success: { description: 'The page as stored.', schema: 'StatusPageResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateStatusPageDto) {
    return { status: 'ok', data: await this.pages.create(principal.accountId, body) };
  }

  @Put(':id')
  @RequirePermission('status_pages:write')
  @updateOperation('PUT')
  async put(
    @CurrentPrincipal() principal: Principal,
    @Param('id', StatusPageIdPipe) id: string,
    @Body() body: unknown,
  ) {
    return { status: 'ok', data: await this.pages.update(principal.accountId, id, body) };
  }

  @Patch(':id')
  @RequirePermission('status_pages:write')
  @updateOperation('PATCH')
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
  @ApiOperation({
    operationId: 'deleteStatusPage',
    tag: 'Status pages',
    summary: 'Delete a status page',
    id: 'StatusPageId',
    success: { description: 'Deleted; no body.' },
    errors: ['STATUS_PAGE_NOT_FOUND'],
  })
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', StatusPageIdPipe) id: string): Promise<void> {
    await this.pages.delete(principal.accountId, id);
  }
}
