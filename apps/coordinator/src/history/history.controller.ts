import { Controller, Get, Param, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { MonitorIdPipe } from '../common/object-id.pipe.js';
import { ListChecksQuery, StatsQuery } from './history.dto.js';
import { HistoryService } from './history.service.js';

/** A monitor's check history: recent results and uptime / response-time statistics. */
@Controller('api/monitors/:id')
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  @Get('checks')
  @RequirePermission('monitors:read')
  async checks(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MonitorIdPipe) id: string,
    @Query() query: ListChecksQuery,
  ) {
    return { status: 'ok', data: await this.history.checks(principal.accountId, id, query) };
  }

  @Get('stats')
  @RequirePermission('monitors:read')
  async stats(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MonitorIdPipe) id: string,
    @Query() query: StatsQuery,
  ) {
    return { status: 'ok', data: await this.history.stats(principal.accountId, id, query) };
  }
}
