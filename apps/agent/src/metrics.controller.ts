import { Controller, Get, Header } from '@nestjs/common';
import { AgentMetrics } from './metrics.js';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: AgentMetrics) {}

  /** Prometheus scrape endpoint. */
  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metricsText(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
