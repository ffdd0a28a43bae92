import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '#runtime';
import { AgentsRegistry } from '../agents/agents.registry.js';
import { PartitionManager } from '../cluster/partition-manager.js';
import { Readiness } from '../health/readiness.service.js';
import { ResultsWriter } from '../history/results-writer.js';
import { MonitorEvents, type MonitorChange } from '../monitors/monitor-events.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { Scheduler } from '../scheduling/scheduler.js';
import { pauseUnlessStopped, TIMERS, type TimerHandle, type Timers } from '../scheduling/timers.js';
import { TransitionRecorder } from '../transitions/transition-recorder.js';
import { CheckDispatch } from './check-dispatch.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { MonitorBus } from './monitor-bus.js';
import { PROBE_TRANSPORT, type ProbeTransport } from './probe-transport.js';
import { describeRegionChange, RegionWatch } from './region-watch.js';

/** How long a stopping coordinator waits for checks already sent (NATS mode). */
const STOP_GRACE_MS = 10_000;

/**
 * How often the monitors of this replica's partitions are compared with the database: the
 * safety net for changes made through another replica whose notice did not arrive.
 */
export const RESYNC_INTERVAL_MS = 30_000;
/**
 * The resync waits 25 ms after each page of monitors it reads (pages of 1000, the repository's):
 * 100,000 monitors take about 3 s instead of one burst of about 1 s in which PostgreSQL and the
 * coordinator each spent most of a core and the list's answers waited up to 200 ms
 * (docs/decisions/0048-api-latency-at-a-fixed-rate.md).
 */
export const RESYNC_PAGE_PAUSE_MS = 25;

/** How often the regions monitors need are compared with the live agents (a log line per change). */
export const REGION_WATCH_INTERVAL_MS = 5_000;

/**
 * Starts and stops the check path, whose stages are wired by dependency injection
 * (docs/architecture.md, "The life of a check"): schedule (Scheduler over the MonitorRoster) →
 * dispatch (CheckDispatch) → ingest (ResultIngest) → evaluate (StatusEvaluation) → record
 * transition (TransitionStage) → notify (Dispatcher). This class carries no check: it feeds
 * monitor changes into the roster, starts the scheduler and the partition leases, runs the
 * resync and blind-region timers, and on stop waits for checks in flight. Paused monitors keep
 * being checked (docs/decisions/0004-monitors.md); only notifications care about `active`.
 */
@Injectable()
export class CheckPath implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Probing');
  private readonly regions = new RegionWatch();
  private resyncTimer: TimerHandle = null;
  private regionTimer: TimerHandle = null;
  private stopping = false;

  constructor(
    @Inject(PROBE_TRANSPORT) private readonly transport: ProbeTransport | null,
    private readonly roster: MonitorRoster,
    private readonly scheduler: Scheduler,
    private readonly dispatch: CheckDispatch,
    private readonly events: MonitorEvents,
    private readonly bus: MonitorBus,
    private readonly partitions: PartitionManager,
    private readonly agents: AgentsRegistry,
    private readonly results: ResultsWriter,
    private readonly transitions: TransitionRecorder,
    metrics: CoordinatorMetrics,
    readiness: Readiness,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TIMERS) private readonly timers: Timers,
  ) {
    metrics.trackMonitors(() => roster.countByStatus(Math.floor(clock.now() / 1000)));
    metrics.trackRegionMonitors(() => Object.fromEntries(roster.byRegion()));
    metrics.trackResultsPending(() => results.pending);
    metrics.trackTransitionsPending(() => transitions.pending);
    metrics.trackPartitions(() => partitions.partitions.length);
    results.onDropped((n) => metrics.recordOutageDrop('results', n));
    transitions.onDropped((n) => metrics.recordOutageDrop('transitions', n));
    // Degraded, still serving: what the database outage left held in memory (docs/decisions/0001).
    readiness.register({ name: 'outage_buffers', required: false, problem: () => this.heldBack() });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.transport) return;
    const apply = (change: MonitorChange) => {
      this.roster.apply(change);
    };
    this.events.subscribe(apply);
    this.bus.listen(apply);
    this.scheduler.start();
    await this.partitions.start({
      gained: (ps) => this.roster.adopt(ps),
      lost: (ps) => {
        this.roster.release(ps);
      },
    });
    this.scheduleResync();
    this.scheduleRegionWatch();
    this.logger.log(
      `replica ${this.partitions.replicaId} schedules ${this.roster.size} monitors ` +
        `(${this.partitions.partitions.length} partitions, ${this.transport.kind} transport)`,
    );
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    this.scheduler.stop();
    if (this.resyncTimer !== null) this.timers.clear(this.resyncTimer);
    if (this.regionTimer !== null) this.timers.clear(this.regionTimer);
    if (!this.transport) return;
    await this.partitions.stop();
    // One grace for running checks, not two: in embedded mode closing the transport drains the
    // executor whose checks the dispatch waits for, so both run at once.
    await Promise.all([this.dispatch.settle(STOP_GRACE_MS), this.transport.close()]);
  }

  /** Tells the operator once per region and change when monitors need a region no live agent serves. */
  watchRegions(): void {
    for (const change of this.regions.update(this.roster.byRegion(), this.agents.countByRegion())) {
      if (change.blind) this.logger.warn(describeRegionChange(change));
      else this.logger.log(describeRegionChange(change));
    }
  }

  private scheduleResync(): void {
    this.resyncTimer = this.timers.set(() => {
      void this.roster
        .resync({
          // A stop, also one during a pause, ends a resync before its next page: nothing after it
          // may read a closing database.
          pause: () => pauseUnlessStopped(this.timers, RESYNC_PAGE_PAUSE_MS, () => this.stopping),
        })
        .catch((error: unknown) => {
          if (!this.stopping) this.logger.warn(`monitor resync failed (retried later): ${String(error)}`);
        })
        .finally(() => {
          if (!this.stopping) this.scheduleResync();
        });
    }, RESYNC_INTERVAL_MS);
  }

  private scheduleRegionWatch(): void {
    this.regionTimer = this.timers.set(() => {
      this.watchRegions();
      if (!this.stopping) this.scheduleRegionWatch();
    }, REGION_WATCH_INTERVAL_MS);
  }

  /** What a database outage holds back, for readiness ("degraded"); null when nothing is. */
  private heldBack(): string | null {
    const parts: string[] = [];
    if (this.transitions.pending > 0) parts.push(`${this.transitions.pending} status changes held`);
    if (this.results.outage) parts.push(`${this.results.pending} check results held`);
    const overdue = this.partitions.overdue;
    if (overdue !== null) {
      parts.push(`partition leases unrenewed for ${Math.round((this.clock.now() - overdue) / 1000)} s`);
    }
    return parts.length > 0 ? `database outage: ${parts.join(', ')}` : null;
  }
}
