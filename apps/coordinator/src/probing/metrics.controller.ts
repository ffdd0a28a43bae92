import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/auth.guard.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: CoordinatorMetrics) {}

  /** Prometheus scrape endpoint (no API key: restrict it at the network or proxy). */
  @Get('metrics')
  @Public()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
