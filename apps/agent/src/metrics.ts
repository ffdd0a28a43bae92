import { Injectable } from '@nestjs/common';
import type { MonitorType, ProbeResult } from '#contracts';
import {
  createRegistry,
  natsConnectedGauge,
  probeDurationHistogram,
  probesInFlightGauge,
  type Registry,
} from '#runtime';
import { AgentConfig } from './config.js';

/** The agent's Prometheus metrics (names from libs/runtime/src/metrics.ts). */
@Injectable()
export class AgentMetrics {
  readonly registry: Registry;
  private readonly duration;

  constructor(config: AgentConfig) {
    this.registry = createRegistry({ agent_id: config.AGENT_ID });
    this.duration = probeDurationHistogram(this.registry);
  }

  recordProbe(result: ProbeResult, type: MonitorType): void {
    this.duration.observe({ region: result.region, type, result: result.status }, result.timings.total_ms / 1000);
  }

  trackInFlight(read: () => number): void {
    probesInFlightGauge(this.registry, read);
  }

  trackNats(connected: () => boolean): void {
    natsConnectedGauge(this.registry, connected);
  }
}
