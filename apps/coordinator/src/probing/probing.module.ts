import { Logger, Module } from '@nestjs/common';
import { CLOCK, type Clock, type NatsConnection } from '#runtime';
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
import { NATS_CONNECTION, natsConnectionProvider } from './nats-connection.js';
import { PROBE_TRANSPORT } from './probe-transport.js';
import { ProbingService } from './probing.service.js';
import { createProbeTransport } from './transport.factory.js';

/** Scheduling, dispatch over the transport, evaluation, and the coordinator's /metrics. */
@Module({
  imports: [AgentsModule, ClusterModule, MonitorsModule, HistoryModule, NotifyModule],
  controllers: [MetricsController],
  providers: [
    CoordinatorMetrics,
    AgentsRegistry,
    { provide: TIMERS, useValue: systemTimers },
    natsConnectionProvider,
    MonitorBus,
    {
      provide: PROBE_TRANSPORT,
      inject: [CoordinatorConfig, CLOCK, CoordinatorMetrics, AgentsRegistry, NATS_CONNECTION],
      useFactory: (
        config: CoordinatorConfig,
        clock: Clock,
        metrics: CoordinatorMetrics,
        agents: AgentsRegistry,
        nats: NatsConnection | null,
      ) => createProbeTransport({ config, clock, metrics, agents, nats, logger: new Logger() }),
    },
    ProbingService,
  ],
  exports: [AgentsRegistry, CoordinatorMetrics, ProbingService],
})
export class ProbingModule {}
