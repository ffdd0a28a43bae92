import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { MonitorIdPipe } from '../common/object-id.pipe.js';
import { CreateMonitorDto, ListMonitorsQuery } from './monitor.dto.js';
import { MonitorsService } from './monitors.service.js';

@Controller('api/monitors')
export class MonitorsController {
  constructor(private readonly monitors: MonitorsService) {}

  @Get()
  @RequirePermission('monitors:read')
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListMonitorsQuery) {
    return { status: 'ok', data: await this.monitors.list(principal.accountId, query) };
  }

  @Get(':id')
  @RequirePermission('monitors:read')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', MonitorIdPipe) id: string) {
    return { status: 'ok', data: await this.monitors.get(principal.accountId, id) };
  }

  @Post()
  @HttpCode(201)
  @RequirePermission('monitors:write')
  async create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateMonitorDto) {
    return { status: 'ok', data: await this.monitors.create(principal.accountId, dto) };
  }

  @Put(':id')
  @RequirePermission('monitors:write')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MonitorIdPipe) id: string,
    @Body() body: unknown,
  ) {
    return { status: 'ok', data: await this.monitors.update(principal.accountId, id, body) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('monitors:write')
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', MonitorIdPipe) id: string): Promise<void> {
    await this.monitors.delete(principal.accountId, id);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @RequirePermission('monitors:write')
  async pause(@CurrentPrincipal() principal: Principal, @Param('id', MonitorIdPipe) id: string) {
    return { status: 'ok', data: await this.monitors.pause(principal.accountId, id) };
  }

  @Post(':id/resume')
  @HttpCode(200)
  @RequirePermission('monitors:write')
  async resume(@CurrentPrincipal() principal: Principal, @Param('id', MonitorIdPipe) id: string) {
    return { status: 'ok', data: await this.monitors.resume(principal.accountId, id) };
  }
}
