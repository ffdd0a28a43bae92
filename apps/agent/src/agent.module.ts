import { Module, type DynamicModule } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '#runtime';
import { AgentRuntime } from './agent-runtime.js';
import { AgentConfig } from './config.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { AgentMetrics } from './metrics.js';
import { ProbeHandler } from './probe.handler.js';

/** The regional agent: probe work from NATS, heartbeats, /healthz and /metrics. */
@Module({})
export class AgentModule {
  static forRoot(config: AgentConfig, clock: Clock = systemClock): DynamicModule {
    return {
      module: AgentModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: AgentConfig, useValue: config },
        { provide: CLOCK, useValue: clock },
        AgentMetrics,
        AgentRuntime,
        ProbeHandler,
      ],
    };
  }
}
