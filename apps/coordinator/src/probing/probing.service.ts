import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { checkIdOf, isDecided, type ProbeRequest, type ProbeResult, type RegionId } from '#contracts';
import { CLOCK, within, type Clock } from '#runtime';
import { PartitionManager } from '../cluster/partition-manager.js';
import { partitionOf } from '../cluster/partitions.js';
import { Evaluator } from '../evaluation/evaluator.js';
import { initialState, type MonitorEvent, type MonitorState } from '../evaluation/status.js';
import { Readiness } from '../health/readiness.service.js';
import { ResultsWriter } from '../history/results-writer.js';
import { MonitorEvents, type MonitorChange } from '../monitors/monitor-events.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import { effectiveStatus } from '../monitors/monitor-status.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { CERTIFICATE_WARNING_DAYS, LeaseLostError, OutboxService } from '../notify/outbox.service.js';
import { TransitionRecorder } from '../notify/transition-recorder.js';
import { Scheduler, type DueCheck } from '../scheduling/scheduler.js';
import { TIMERS, type TimerHandle, type Timers } from '../scheduling/timers.js';
import { AgentsRegistry } from './agents.registry.js';
import { CoordinatorMetrics } from './coordinator-metrics.js';
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

/** How often the regions monitors need are compared with the live agents (a log line per change). */
export const REGION_WATCH_INTERVAL_MS = 5_000;

/**
 * The probing pipeline: the scheduler says which check is due, the transport gets it run in its
 * region, every result is stored, and the evaluator (one writer per monitor) turns results into
 * last_status. Monitor changes from the API take effect at once. Paused monitors keep being
 * checked (docs/decisions/0004-monitors.md); only notifications care about `active`. With several
 * coordinator replicas, each schedules only the monitors of the partitions it leases
 * (PartitionManager); a status change is fenced by that lease.
 */
@Injectable()
export class ProbingService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Probing');
  private readonly monitors = new Map<string, MonitorEntity>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The latest result per region of every monitor: an incident's evidence. */
  private readonly latest = new Map<string, Map<RegionId, ProbeResult>>();
  /** Certificate warnings already recorded, `<monitor>:<notAfter>:<days>`. */
  private readonly certificateWarnings = new Set<string>();
  private readonly scheduler: Scheduler;
  private readonly evaluator: Evaluator;
  private readonly regions = new RegionWatch();
  private resyncTimer: TimerHandle = null;
  private regionTimer: TimerHandle = null;
  private stopping = false;

  constructor(
    @Inject(PROBE_TRANSPORT) private readonly transport: ProbeTransport | null,
    private readonly repository: MonitorsRepository,
    private readonly events: MonitorEvents,
    private readonly results: ResultsWriter,
    private readonly outbox: OutboxService,
    private readonly transitions: TransitionRecorder,
    private readonly metrics: CoordinatorMetrics,
    private readonly agents: AgentsRegistry,
    readiness: Readiness,
    private readonly partitions: PartitionManager,
    private readonly bus: MonitorBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TIMERS) private readonly timers: Timers,
  ) {
    this.scheduler = new Scheduler({
      clock,
      timers,
      dispatch: (due) => this.dispatch(due),
      onLateness: (lateMs) => metrics.recordLateness(lateMs),
      onDispatchError: (error, due) => {
        metrics.recordDispatchError('internal');
        this.logger.error(
          `dispatch of ${due.monitorId} failed: ${error instanceof Error ? error.stack : String(error)}`,
        );
      },
    });
    this.evaluator = new Evaluator({
      load: (id) => Promise.resolve(this.stateOf(id)),
      save: (id, state, events) => this.save(id, state, events),
      confirm: (id, regionIndex) => {
        this.scheduler.confirmNow(id, regionIndex);
      },
    });
    metrics.trackMonitors(() => this.countByStatus());
    metrics.trackRegionMonitors(() => Object.fromEntries(this.monitorsByRegion()));
    metrics.trackResultsPending(() => results.pending);
    metrics.trackTransitionsPending(() => transitions.pending);
    metrics.trackPartitions(() => this.partitions.partitions.length);
    results.onDropped((n) => metrics.recordOutageDrop('results', n));
    transitions.onDropped((n) => metrics.recordOutageDrop('transitions', n));
    // Degraded, still serving: what the database outage left held in memory (docs/decisions/0001).
    readiness.register({ name: 'outage_buffers', required: false, problem: () => this.heldBack() });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.transport) return;
    const apply = (change: MonitorChange) => {
      this.onChange(change);
    };
    this.events.subscribe(apply);
    this.bus.listen(apply);
    this.scheduler.start();
    await this.partitions.start({ gained: (ps) => this.adopt(ps), lost: (ps) => this.release(ps) });
    this.scheduleResync();
    this.scheduleRegionWatch();
    this.logger.log(
      `replica ${this.partitions.replicaId} schedules ${this.monitors.size} monitors ` +
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
    await within(Promise.allSettled([...this.inFlight]), STOP_GRACE_MS, undefined);
    await this.transport.close();
  }

  /** Monitors this process schedules (tests and metrics). */
  get scheduled(): number {
    return this.monitors.size;
  }

  /** The monitor as this process schedules it, if it does (tests). */
  scheduledMonitor(id: string): MonitorEntity | undefined {
    return this.monitors.get(id);
  }

  private track(monitor: MonitorEntity): void {
    this.monitors.set(monitor.id, monitor);
    this.scheduler.upsert({ monitorId: monitor.id, intervalSeconds: monitor.checkInterval, regions: monitor.regions });
  }

  private untrack(monitorId: string): void {
    this.monitors.delete(monitorId);
    this.latest.delete(monitorId);
    this.scheduler.remove(monitorId);
    this.evaluator.forget(monitorId);
  }

  /** Partitions leased to this replica: their monitors are scheduled from their stored state. */
  private async adopt(partitions: readonly number[]): Promise<void> {
    const wanted = new Set(partitions);
    for await (const page of this.repository.pagesOfAll()) {
      for (const monitor of page) {
        if (wanted.has(partitionOf(monitor.id)) && !this.monitors.has(monitor.id)) this.track(monitor);
      }
    }
  }

  /** Partitions this replica no longer leases: their monitors stop here at once. */
  private release(partitions: readonly number[]): void {
    const gone = new Set(partitions);
    for (const id of [...this.monitors.keys()]) if (gone.has(partitionOf(id))) this.untrack(id);
  }

  private scheduleResync(): void {
    this.resyncTimer = this.timers.set(() => {
      void this.resync()
        .catch((error: unknown) => {
          this.logger.warn(`monitor resync failed (retried later): ${String(error)}`);
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

  /** Tells the operator once per region and change when monitors need a region no live agent serves. */
  watchRegions(): void {
    for (const change of this.regions.update(this.monitorsByRegion(), this.agents.countByRegion())) {
      if (change.blind) this.logger.warn(describeRegionChange(change));
      else this.logger.log(describeRegionChange(change));
    }
  }

  /** How many monitors scheduled here are checked from each region. */
  private monitorsByRegion(): Map<RegionId, number> {
    const needed = new Map<RegionId, number>();
    for (const monitor of this.monitors.values()) {
      for (const region of monitor.regions) needed.set(region, (needed.get(region) ?? 0) + 1);
    }
    return needed;
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

  /**
   * Brings this replica's monitors in line with the database (changes made through other
   * replicas): reads every monitor's id and updated_at, and loads only the ones that differ.
   */
  async resync(): Promise<void> {
    const versions = await this.repository.versions();
    const changed: string[] = [];
    for (const [id, updatedAt] of versions) {
      if (this.partitions.ownsMonitor(id) && this.monitors.get(id)?.updatedAt !== updatedAt) changed.push(id);
    }
    for (const monitor of await this.repository.findByIds(changed)) {
      if (this.partitions.ownsMonitor(monitor.id)) this.onChange({ kind: 'saved', monitor });
    }
    for (const id of [...this.monitors.keys()]) {
      if (!versions.has(id) || !this.partitions.ownsMonitor(id)) this.untrack(id);
    }
  }

  /** A committed monitor change (this replica's API, or a notice from another replica). */
  onChange(change: MonitorChange): void {
    if (change.kind === 'deleted') {
      this.untrack(change.monitorId);
      return;
    }
    if (!this.partitions.ownsMonitor(change.monitor.id)) {
      this.untrack(change.monitor.id);
      return;
    }
    const known = this.monitors.get(change.monitor.id);
    // The evaluator owns the status: keep what it knows, take the rest from the API.
    this.track(
      known
        ? {
            ...change.monitor,
            lastStatus: known.lastStatus,
            lastStatusChange: known.lastStatusChange,
            lastCheckedAt: Math.max(known.lastCheckedAt ?? 0, change.monitor.lastCheckedAt ?? 0) || null,
          }
        : change.monitor,
    );
  }

  private dispatch(due: DueCheck): void {
    const monitor = this.monitors.get(due.monitorId);
    if (!monitor || !this.transport) return;
    const request = {
      check_id: checkIdOf(monitor.id, due.scheduledAt, due.region),
      monitor_id: monitor.id,
      region: due.region,
      scheduled_at: due.scheduledAt,
      type: monitor.monitorType,
      settings: monitor.settings,
      timeout_ms: monitor.timeout * 1000,
    } as ProbeRequest;
    const work = this.transport
      .request(request)
      .then((result) => this.ingest(monitor, due, result))
      .catch((error: unknown) => {
        if (error instanceof LeaseLostError) {
          this.logger.warn(`result of ${request.check_id} not evaluated: ${error.message}`);
          return;
        }
        this.metrics.recordDispatchError('ingest');
        this.logger.error(
          `result of ${request.check_id} not processed: ${error instanceof Error ? error.stack : String(error)}`,
        );
      })
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  private async ingest(monitor: MonitorEntity, due: DueCheck, result: ProbeResult): Promise<void> {
    this.metrics.recordResult(result, monitor.monitorType);
    this.results.add(result);
    const current = this.monitors.get(monitor.id);
    // Stored above either way; only the partition's owner evaluates.
    if (!current || !this.partitions.ownsMonitor(monitor.id)) return;
    const byRegion = this.latest.get(monitor.id) ?? new Map<RegionId, ProbeResult>();
    byRegion.set(result.region, result);
    this.latest.set(monitor.id, byRegion);
    if (isDecided(result.status)) {
      current.lastCheckedAt = Math.max(current.lastCheckedAt ?? 0, Math.floor(this.clock.now() / 1000));
    }
    if (result.cert_not_after !== null) {
      // A database outage must not keep the result from evaluation; the next check tries again.
      await this.checkCertificate(current, result.cert_not_after).catch((error: unknown) => {
        this.logger.warn(`certificate expiry of ${monitor.id} not recorded yet: ${String(error)}`);
      });
    }
    const submitted = await this.evaluator.submit(
      monitor.id,
      {
        status: result.status,
        scheduledAt: result.scheduled_at,
        checkedAt: this.clock.now(),
        region: result.region,
        regionIndex: due.regionIndex,
      },
      current.failThreshold,
    );
    if (!submitted.applied && submitted.reason === 'out_of_order' && isDecided(result.status)) {
      this.metrics.recordLate(result.region, result.status);
    }
  }

  private stateOf(monitorId: string): MonitorState | null {
    const monitor = this.monitors.get(monitorId);
    return monitor ? initialState(monitor.lastStatus, monitor.lastStatusChange) : null;
  }

  /**
   * A status change commits with its incident and outbox rows in one transaction
   * (OutboxService), so a crash can never keep the change and lose the notification.
   */
  private async save(monitorId: string, state: MonitorState, events: readonly MonitorEvent[]): Promise<void> {
    const monitor = this.monitors.get(monitorId);
    if (!monitor) return;
    // Written only while this replica still holds the partition it held when deciding.
    const generation = this.partitions.generationOf(monitorId);
    for (const event of events) {
      const evidence = this.latest.get(monitorId) ?? new Map<RegionId, ProbeResult>();
      // Written now, or held through a database outage and written in order when it returns.
      await this.transitions.record({
        monitorId,
        fence: (m) => this.partitions.fence(m, monitorId, generation),
        status: event.to,
        changedAt: state.lastChange,
        reason: event.to === 'down' ? (evidence.get(event.region)?.error ?? null) : null,
        evidence: Object.fromEntries(
          [...evidence.values()].map((r) => [
            r.region,
            {
              status: r.status,
              response_time_ms: r.response_time_ms,
              error: r.error,
              checked_at: Math.floor(r.started_at / 1000),
              checker_ip: r.checker_ip,
            },
          ]),
        ),
      });
      monitor.lastStatus = state.status;
      monitor.lastStatusChange = state.lastChange;
      this.metrics.recordStatusChange(event.to);
      this.logger.log(`monitor ${monitorId} is ${event.to} (${event.region}, was ${event.from})`);
    }
  }

  /** Certificate warnings at 14 days and 1 day before notAfter, once per certificate each. */
  private async checkCertificate(monitor: MonitorEntity, notAfter: number): Promise<void> {
    const now = Math.floor(this.clock.now() / 1000);
    const due = CERTIFICATE_WARNING_DAYS.filter((days) => notAfter > now && notAfter - now <= days * 86_400);
    const key = (days: number) => `${monitor.id}:${notAfter}:${days}`;
    if (due.every((days) => this.certificateWarnings.has(key(days)))) return;
    await this.outbox.recordCertificate(monitor.id, notAfter);
    for (const days of due) this.certificateWarnings.add(key(days));
  }

  /** This replica's monitors by the status the API shows (with the `unknown` overlay). */
  private countByStatus(): Record<string, number> {
    const now = Math.floor(this.clock.now() / 1000);
    const counts: Record<string, number> = { pending: 0, up: 0, down: 0, unknown: 0 };
    for (const monitor of this.monitors.values()) {
      const status = effectiveStatus(monitor, now);
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  }
}
