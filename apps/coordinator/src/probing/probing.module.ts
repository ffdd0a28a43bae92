import { Logger, Module } from '@nestjs/common';
import { CLOCK, type Clock, type NatsLink } from '#runtime';
import { AgentsModule } from '../agents/agents.module.js';
import { AgentsRegistry } from '../agents/agents.registry.js';
import { ClusterModule } from '../cluster/cluster.module.js';
import { CoordinatorConfig } from '../config.js';
import { CertificateWatch } from '../evaluation/certificate-watch.js';
import { Evidence } from '../evaluation/evidence.js';
import { ResultIngest } from '../evaluation/result-ingest.js';
import { StatusEvaluation } from '../evaluation/status-evaluation.js';
import { WindowResume } from '../evaluation/window-resume.js';
import { HistoryModule } from '../history/history.module.js';
import { MaintenanceModule } from '../maintenance/maintenance.module.js';
import { MonitorsModule } from '../monitors/monitors.module.js';
import { NotifyModule } from '../notify/notify.module.js';
import { createCheckScheduler } from '../scheduling/check-scheduler.js';
import { Confirmations } from '../scheduling/confirmations.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { Scheduler } from '../scheduling/scheduler.js';
import { systemTimers, TIMERS, type Timers } from '../scheduling/timers.js';
import { TransitionStage } from '../transitions/transition.stage.js';
import { LiveModule } from '../live/live.module.js';
import { TransitionsModule } from '../transitions/transitions.module.js';
import { CheckDispatch } from './check-dispatch.js';
import { CheckPath } from './check-path.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { MonitorSeries } from '../metrics/monitor-series.js';
import { MetricsController } from './metrics.controller.js';
import { MonitorBusController } from './monitor-bus.controller.js';
import { MonitorBus } from './monitor-bus.js';
import { NATS_LINK } from './nats-connection.js';
import { NatsReadiness } from './nats-readiness.js';
import { PROBE_TRANSPORT } from './probe-transport.js';
import { createProbeTransport } from './transport.factory.js';

/**
 * The check path (CheckPath: schedule → dispatch → ingest → evaluate → record transition; the
 * notify stage is NotifyModule's Dispatcher), the transport, and the coordinator's /metrics.
 * NATS_LINK comes from the global NatsLinkModule (app.ts), which /readyz reads too.
 */
@Module({
  imports: [
    AgentsModule,
    ClusterModule,
    MonitorsModule,
    HistoryModule,
    NotifyModule,
    TransitionsModule,
    LiveModule,
    MaintenanceModule,
  ],
  controllers: [MetricsController, MonitorBusController],
  providers: [
    CoordinatorMetrics,
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
    MonitorRoster,
    MonitorSeries,
    Confirmations,
    Evidence,
    CertificateWatch,
    TransitionStage,
    StatusEvaluation,
    WindowResume,
    ResultIngest,
    CheckDispatch,
    {
      provide: Scheduler,
      inject: [CLOCK, TIMERS, CoordinatorMetrics, MonitorRoster, Confirmations, CheckDispatch],
      useFactory: (
        clock: Clock,
        timers: Timers,
        metrics: CoordinatorMetrics,
        roster: MonitorRoster,
        confirmations: Confirmations,
        dispatch: CheckDispatch,
      ) => createCheckScheduler({ clock, timers, metrics, roster, confirmations, dispatch }),
    },
    CheckPath,
  ],
  exports: [CoordinatorMetrics, MonitorRoster, CheckPath, ResultIngest, TIMERS],
})
export class ProbingModule {}
