import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { MaintenanceWindowIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import {
  CreateMaintenanceWindowDto,
  DEFAULT_MAINTENANCE_WINDOWS_PER_PAGE,
  ListMaintenanceWindowsQuery,
} from './maintenance-window.dto.js';
import { MaintenanceWindowsService } from './maintenance-windows.service.js';

/** Maintenance windows (docs/decisions/0026-maintenance-windows.md). */
@Controller('api/maintenance_windows')
export class MaintenanceWindowsController {
  constructor(private readonly windows: MaintenanceWindowsService) {}

  @Get()
  @RequirePermission('maintenance:read')
  @ApiOperation({
    operationId: 'listMaintenanceWindows',
    tag: 'Maintenance windows',
    summary: 'List maintenance windows',
    description: 'Newest first unless order=asc.',
    query: pageQuery(DEFAULT_MAINTENANCE_WINDOWS_PER_PAGE, 'By created_at: `desc` is newest first.'),
    success: { description: 'A page of maintenance windows.', schema: 'MaintenanceWindowListResponse' },
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListMaintenanceWindowsQuery) {
    return { status: 'ok', data: await this.windows.list(principal.accountId, query) };
  }

  /**
   * A literal segment beside `/:id`: Fastify's router prefers it, so only POST reaches this;
   * GET, PUT and DELETE of `/preview` still reach the `:id` routes (404, a malformed id).
   */
  @Post('preview')
  @HttpCode(200)
  @RequirePermission('maintenance:read')
  @ApiOperation({
    operationId: 'previewMaintenanceWindow',
    tag: 'Maintenance windows',
    summary: 'Preview the occurrences of a maintenance window',
    description:
      "The body of a create, judged exactly as a create judges it (the same 422 details, the account's monitors included); nothing is stored. Answers the next 10 occurrences from now, one under way included, computed as `next_start_at` is (in `timezone`, across DST changes); a one-off window has one, an ended window none. `active` is not looked at.",
    body: { schema: 'MaintenanceWindowCreate', required: true, description: 'The window as it would be created.' },
    success: { description: 'Its next occurrences, by start.', schema: 'MaintenanceWindowPreviewResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async preview(@CurrentPrincipal() principal: Principal, @Body() body: CreateMaintenanceWindowDto) {
    return { status: 'ok', data: await this.windows.preview(principal.accountId, body) };
  }

  @Get(':id')
  @RequirePermission('maintenance:read')
  @ApiOperation({
    operationId: 'getMaintenanceWindow',
    tag: 'Maintenance windows',
    summary: 'Get a maintenance window',
    id: 'MaintenanceWindowId',
    success: { description: 'The window, with its state now.', schema: 'MaintenanceWindowResponse' },
    errors: ['MAINTENANCE_WINDOW_NOT_FOUND'],
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', MaintenanceWindowIdPipe) id: string) {
    return { status: 'ok', data: await this.windows.get(principal.accountId, id) };
  }

  @Post()
  @RequirePermission('maintenance:write')
  @ApiOperation({
    operationId: 'createMaintenanceWindow',
    tag: 'Maintenance windows',
    summary: 'Create a maintenance window',
    description:
      'One-off (`starts_at`, `ends_at`) or recurring (`rrule`, `starts_at` as the first occurrence, `duration`, `timezone`). While a window covers a monitor its checks go on, flagged `in_maintenance`, and it opens no incident and notifies nobody.',
    body: { schema: 'MaintenanceWindowCreate', required: true, description: 'The new window.' },
    success: { description: 'The window as stored.', schema: 'MaintenanceWindowResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateMaintenanceWindowDto) {
    return { status: 'ok', data: await this.windows.create(principal.accountId, body) };
  }

  @Put(':id')
  @RequirePermission('maintenance:write')
  @ApiOperation({
    operationId: 'updateMaintenanceWindow',
    tag: 'Maintenance windows',
    summary: 'Update a maintenance window (partial)',
    description:
      'Only the supplied fields change; null clears `ends_at`, `rrule` or `duration`. The window is looked up (404) before the body is judged (422), and judged whole after the change.',
    id: 'MaintenanceWindowId',
    body: { schema: 'MaintenanceWindowUpdate', required: false, description: 'The fields to change.' },
    success: { description: 'The window after the change.', schema: 'MaintenanceWindowResponse' },
    errors: ['MAINTENANCE_WINDOW_NOT_FOUND', 'VALIDATION_ERROR'],
  })
  async put(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MaintenanceWindowIdPipe) id: string,
    @Body() body: unknown,
  ) {
    return { status: 'ok', data: await this.windows.update(principal.accountId, id, body) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('maintenance:write')
  @ApiOperation({
    operationId: 'deleteMaintenanceWindow',
    tag: 'Maintenance windows',
    summary: 'Delete a maintenance window',
    id: 'MaintenanceWindowId',
    success: { description: 'Deleted; no body.' },
    errors: ['MAINTENANCE_WINDOW_NOT_FOUND'],
  })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MaintenanceWindowIdPipe) id: string,
  ): Promise<void> {
    await this.windows.delete(principal.accountId, id);
  }
}
