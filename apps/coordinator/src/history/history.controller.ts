import { Controller, Get, Param, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { MonitorIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import { ListChecksQuery, StatsQuery } from './history.dto.js';
import { DEFAULT_CHECKS_PER_PAGE, HistoryService } from './history.service.js';

/** A monitor's check history: recent results and uptime / response-time statistics. */
@Controller('api/monitors/:id')
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  @Get('checks')
  @RequirePermission('monitors:read')
  @ApiOperation({
    operationId: 'listMonitorChecks',
    tag: 'Monitors',
    summary: "List a monitor's check results",
    description:
      'Recent check results from every region, newest first, kept for RESULTS_RETENTION_DAYS (default 30). ' +
      'Never includes response bodies. Unknown or invalid query parameters get 422.',
    id: 'MonitorId',
    query: {
      ...pageQuery(DEFAULT_CHECKS_PER_PAGE, 'By check time: `desc` is newest first.'),
      region: {
        description:
          'Only results from this region (any known region, or `heartbeat` for a heartbeat monitor; one the monitor does not use gives an empty page).',
      },
    },
    success: { description: 'A page of check results.', schema: 'CheckListResponse' },
    errors: ['MONITOR_NOT_FOUND', 'VALIDATION_ERROR'],
  })
  async checks(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MonitorIdPipe) id: string,
    @Query() query: ListChecksQuery,
  ) {
    return { status: 'ok', data: await this.history.checks(principal.accountId, id, query) };
  }

  @Get('stats')
  @RequirePermission('monitors:read')
  @ApiOperation({
    operationId: 'getMonitorStats',
    tag: 'Monitors',
    summary: "Get a monitor's uptime and response times",
    description:
      'Uptime % (unknown results excluded), mean and p95 response time over a period, overall and per region. ' +
      'Unknown or invalid query parameters get 422.',
    id: 'MonitorId',
    query: {
      period: {
        default: '24h',
        description:
          '24h: the last 86400 seconds, from raw results. 7d, 30d, 90d: that many UTC days ending today, from daily roll-ups.',
      },
    },
    success: { description: 'The statistics.', schema: 'MonitorStatsResponse' },
    errors: ['MONITOR_NOT_FOUND', 'VALIDATION_ERROR'],
  })
  async stats(
    @CurrentPrincipal() principal: Principal,
    @Param('id', MonitorIdPipe) id: string,
    @Query() query: StatsQuery,
  ) {
    return { status: 'ok', data: await this.history.stats(principal.accountId, id, query) };
  }
}
