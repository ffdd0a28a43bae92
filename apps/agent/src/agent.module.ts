import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { CLOCK, systemClock, type Clock, type NatsLink } from '#runtime';
import { AgentRuntime } from './agent-runtime.js';
import { AgentConfig } from './config.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { AgentMetrics } from './metrics.js';
import { AGENT_NATS_LINK, createAgentNatsLink } from './nats-link.js';
import { createProbeServer, PROBE_SERVER } from './probe-routes.js';
import { ProbeController } from './probe.controller.js';

/** The regional agent: probe work from NATS (a Nest microservice), heartbeats, /healthz, /readyz and /metrics. */
@Module({})
export class AgentModule {
  /**
   * `natsLink`: the link main.ts started. Without one (in-process tests) the module makes its
   * own, whose give-up is only logged: there is no process of its own to end.
   */
  static forRoot(config: AgentConfig, clock: Clock = systemClock, natsLink?: NatsLink): DynamicModule {
    return {
      module: AgentModule,
      controllers: [HealthController, MetricsController, ProbeController],
      providers: [
        { provide: AgentConfig, useValue: config },
        { provide: CLOCK, useValue: clock },
        {
          provide: AGENT_NATS_LINK,
          useFactory: () => natsLink ?? createAgentNatsLink(config, (message) => new Logger('NATS').error(message)),
        },
        {
          provide: PROBE_SERVER,
          inject: [AGENT_NATS_LINK],
          useFactory: (link: NatsLink) => createProbeServer(link, config),
        },
        AgentMetrics,
        AgentRuntime,
      ],
    };
  }
}
