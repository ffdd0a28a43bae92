import { Logger, Module } from '@nestjs/common';
import { CLOCK, type Clock, type NatsLink } from '#runtime';
import { AgentsModule } from '../agents/agents.module.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { CoordinatorConfig } from '../config.js';
import { HistoryModule } from '../history/history.module.js';
import { MonitorsModule } from '../monitors/monitors.module.js';
import { NotifyModule } from '../notify/notify.module.js';
import { systemTimers, TIMERS } from '../scheduling/timers.js';
import { AgentsRegistry } from './agents.registry.js';
import { CoordinatorMetrics } from './coordinator-metrics.js';
import { MetricsController } from './metrics.controller.js';
import { MonitorBus } from './monitor-bus.js';
import { NATS_LINK } from './nats-connection.js';
import { NatsReadiness } from './nats-readiness.js';
import { PROBE_TRANSPORT } from './probe-transport.js';
import { ProbingService } from './probing.service.js';
import { createProbeTransport } from './transport.factory.js';

/**
 * Scheduling, dispatch over the transport, evaluation, and the coordinator's /metrics. NATS_LINK
 * comes from the global NatsLinkModule (app.ts), which /readyz reads too.
 */
@Module({
  imports: [AgentsModule, ClusterModule, MonitorsModule, HistoryModule, NotifyModule],
  controllers: [MetricsController],
  providers: [
    CoordinatorMetrics,
    AgentsRegistry,
    { provide: TIMERS, useValue: systemTimers },
    MonitorBus,
    NatsReadiness,
    {
      provide: PROBE_TRANSPORT,
      inject: [CoordinatorConfig, CLOCK, CoordinatorMetrics, AgentsRegistry, NATS_LINK],
      useFactory: (
        config: CoordinatorConfig,
        clock: Clock,
        metrics: CoordinatorMetrics,
        agents: AgentsRegistry,
        nats: NatsLink | null,
      ) => createProbeTransport({ config, clock, metrics, agents, nats, logger: new Logger() }),
    },
    ProbingService,
  ],
  exports: [AgentsRegistry, CoordinatorMetrics, ProbingService],
})
export class ProbingModule {}
