import { Controller, Get, Headers, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { acceptsGzip, gzipAsync } from '../http/gzip.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { MonitorSummaryService } from './monitor-summary.service.js';

/** The account's monitors in one answer, for overviews (the dashboard's); the paged list stays as it is. */
@Controller('api/monitor_summary')
export class MonitorSummaryController {
  constructor(private readonly summaries: MonitorSummaryService) {}

  @Get()
  @RequirePermission('monitors:read')
  @ApiOperation({
    operationId: 'getMonitorSummary',
    tag: 'Monitors',
    summary: 'Summarise every monitor',
    description:
      'Every monitor of the account in one answer (bounded by the monitor quota; gzip when accepted): status, ' +
      '24 h and 30 d uptime (as /stats computes them) and 24 hourly mean response times, with counts by status. ' +
      'Built from three queries whatever the number of monitors. Query parameters get 422.',
    success: { description: 'The summary.', schema: 'MonitorSummaryResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async summary(
    @CurrentPrincipal() principal: Principal,
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer | string> {
    const body = JSON.stringify({ status: 'ok', data: await this.summaries.summary(principal.accountId) });
    void reply.type('application/json; charset=utf-8').header('vary', 'Accept-Encoding');
    if (!acceptsGzip(acceptEncoding)) return body;
    void reply.header('content-encoding', 'gzip');
    return gzipAsync(body);
  }
}
