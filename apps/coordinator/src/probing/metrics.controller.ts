import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/auth.guard.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: CoordinatorMetrics) {}

  /** Prometheus scrape endpoint (no API key: restrict it at the network or proxy). */
  @Get('metrics')
  @Public()
  @ApiOperation({
    operationId: 'getMetrics',
    tag: 'Meta',
    summary: 'Prometheus metrics',
    description:
      "The coordinator's metrics in the Prometheus text format (checks, statuses, scheduler lateness, agents per " +
      'region, process). Served without an API key: restrict it at the network or the reverse proxy.',
    success: { description: 'Prometheus text exposition format 0.0.4.', text: 'text/plain' },
  })
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
