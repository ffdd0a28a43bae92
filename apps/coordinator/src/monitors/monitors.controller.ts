import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { MonitorIdPipe } from '../common/object-id.pipe.js';
import { RequestOrigin } from '../http/request-origin.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import { CreateMonitorDto, ListMonitorsQuery } from './monitor.dto.js';
import { DEFAULT_MONITORS_PER_PAGE, MonitorsService } from './monitors.service.js';

@Controller('api/monitors')
export class MonitorsController {
  constructor(private readonly monitors: MonitorsService) {}

  @Get()
  @Header('content-type', 'application/json; charset=utf-8')
  @RequirePermission('monitors:read')
  @ApiOperation({
    operationId: 'listMonitors',
    tag: 'Monitors',
    summary: 'List monitors',
    description: "A page of the account's monitors. Unknown or invalid query parameters get 422.",
    query: {
      ...pageQuery(DEFAULT_MONITORS_PER_PAGE),
      sort: { default: 'created_at', description: 'Sort field.' },
      active: { description: 'Only active (`true`) or paused (`false`) monitors.' },
      monitor_type: { description: 'Only monitors of this type.' },
    },
    success: { description: 'A page of monitors.', schema: 'MonitorListResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListMonitorsQuery,
    @RequestOrigin() origin: string,
  ): Promise<string> {
    // Serialised by the service, not by the framework (docs/decisions/0044-the-monitor-list-as-text.md).
    return `{"status":"ok","data":${await this.monitors.list(principal.accountId, query, origin)}}`;
  }

  @Get(':id')
  @RequirePermission('monitors:read')
  @ApiOperation({
    operationId: 'getMonitor',
    tag: 'Monitors',
    summary: 'Get a monitor',
    id: 'MonitorId',
    success: { description: 'The monitor.', schema: 'MonitorResponse' },
    errors: ['MONITOR_NOT_FOUND'],
  })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MonitorIdPipe) id: string,
    @RequestOrigin() origin: string,
  ) {
    return { status: 'ok', data: await this.monitors.get(principal.accountId, id, origin) };
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('monitors:write')
  @ApiOperation({
    operationId: 'createMonitor',
    tag: 'Monitors',
    summary: 'Create a monitor',
    body: { schema: 'MonitorCreate', required: true, description: 'The new monitor.' },
    success: { description: 'The created monitor, last_status pending.', schema: 'MonitorResponse' },
    errors: ['VALIDATION_ERROR', 'SUBSCRIPTION_NOT_ACTIVE', 'QUOTA_EXCEEDED'],
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateMonitorDto,
    @RequestOrigin() origin: string,
  ) {
    return { status: 'ok', data: await this.monitors.create(principal.accountId, dto, origin) };
  }

  @Put(':id')
  @RequirePermission('monitors:write')
  @ApiOperation({
    operationId: 'updateMonitor',
    tag: 'Monitors',
    summary: 'Update a monitor (partial)',
    description: 'Only the supplied fields change. The monitor is looked up (404) before the body is judged (422).',
    id: 'MonitorId',
    body: { schema: 'MonitorUpdate', required: false, description: 'The fields to change; no body changes nothing.' },
    success: { description: 'The whole monitor after the change.', schema: 'MonitorResponse' },
    errors: ['MONITOR_NOT_FOUND', 'VALIDATION_ERROR'],
  })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MonitorIdPipe) id: string,
    @Body() body: unknown,
    @RequestOrigin() origin: string,
  ) {
    return { status: 'ok', data: await this.monitors.update(principal.accountId, id, body, origin) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('monitors:write')
  @ApiOperation({
    operationId: 'deleteMonitor',
    tag: 'Monitors',
    summary: 'Delete a monitor',
    description: 'Removes the monitor with its check history, statistics and incidents. Cannot be undone.',
    id: 'MonitorId',
    success: { description: 'Deleted; no body.' },
    errors: ['MONITOR_NOT_FOUND'],
  })
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', MonitorIdPipe) id: string): Promise<void> {
    await this.monitors.delete(principal.accountId, id);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @RequirePermission('monitors:write')
  @ApiOperation({
    operationId: 'pauseMonitor',
    tag: 'Monitors',
    summary: 'Pause alerting',
    description: 'Sets active to false. Checks keep running; no notifications are sent. No body.',
    id: 'MonitorId',
    success: { description: 'The paused monitor.', schema: 'MonitorActivityResponse' },
    errors: ['MONITOR_NOT_FOUND'],
  })
  async pause(@CurrentPrincipal() principal: Principal, @Param('id', MonitorIdPipe) id: string) {
    return { status: 'ok', data: await this.monitors.pause(principal.accountId, id) };
  }

  @Post(':id/resume')
  @HttpCode(200)
  @RequirePermission('monitors:write')
  @ApiOperation({
    operationId: 'resumeMonitor',
    tag: 'Monitors',
    summary: 'Resume alerting',
    description: 'Sets active to true, if the account subscription is active. No body.',
    id: 'MonitorId',
    success: { description: 'The resumed monitor.', schema: 'MonitorActivityResponse' },
    errors: ['MONITOR_NOT_FOUND', 'SUBSCRIPTION_NOT_ACTIVE'],
  })
  async resume(@CurrentPrincipal() principal: Principal, @Param('id', MonitorIdPipe) id: string) {
    return { status: 'ok', data: await this.monitors.resume(principal.accountId, id) };
  }
}
