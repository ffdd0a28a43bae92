import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { checkIdOf, type ProbeRequest, type ProbeResult, type RegionId } from '#contracts';
import { CLOCK, type Clock } from '#runtime';
import { Evaluator } from '../evaluation/evaluator.js';
import { initialState, type MonitorEvent, type MonitorState } from '../evaluation/status.js';
import { ResultsWriter } from '../history/results-writer.js';
import { MonitorEvents, type MonitorChange } from '../monitors/monitor-events.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { CERTIFICATE_WARNING_DAYS, OutboxService } from '../notify/outbox.service.js';
import { Scheduler, type DueCheck } from '../scheduling/scheduler.js';
import { TIMERS, type Timers } from '../scheduling/timers.js';
import { CoordinatorMetrics } from './coordinator-metrics.js';
import { PROBE_TRANSPORT, type ProbeTransport } from './probe-transport.js';

/** How long a stopping coordinator waits for checks already sent (NATS mode). */
const STOP_GRACE_MS = 10_000;

/**
 * The probing pipeline: the scheduler says which check is due, the transport gets it run
 * in its region, every result is stored, and the evaluator (one writer per monitor) turns
 * results into last_status. Monitor changes from the API take effect at once. Paused
 * monitors keep being checked (DECISIONS §3); only notifications care about `active`.
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

  constructor(
    @Inject(PROBE_TRANSPORT) private readonly transport: ProbeTransport | null,
    private readonly repository: MonitorsRepository,
    private readonly events: MonitorEvents,
    private readonly results: ResultsWriter,
    private readonly outbox: OutboxService,
    private readonly metrics: CoordinatorMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TIMERS) timers: Timers,
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
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.transport) return;
    for (const monitor of await this.repository.listAll()) this.track(monitor);
    this.events.subscribe((change) => this.onChange(change));
    this.scheduler.start();
    this.logger.log(`scheduling ${this.monitors.size} monitors (${this.transport.kind} transport)`);
  }

  async onModuleDestroy(): Promise<void> {
    this.scheduler.stop();
    if (!this.transport) return;
    const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
    await Promise.race([Promise.allSettled([...this.inFlight]), grace]);
    await this.transport.close();
  }

  /** Monitors this process schedules (tests and metrics). */
  get scheduled(): number {
    return this.monitors.size;
  }

  private track(monitor: MonitorEntity): void {
    this.monitors.set(monitor.id, monitor);
    this.scheduler.upsert({ monitorId: monitor.id, intervalSeconds: monitor.checkInterval, regions: monitor.regions });
  }

  private onChange(change: MonitorChange): void {
    if (change.kind === 'deleted') {
      this.monitors.delete(change.monitorId);
      this.latest.delete(change.monitorId);
      this.scheduler.remove(change.monitorId);
      this.evaluator.forget(change.monitorId);
      return;
    }
    const known = this.monitors.get(change.monitor.id);
    // The evaluator owns the status: keep what it knows, take the rest from the API.
    this.track(
      known
        ? { ...change.monitor, lastStatus: known.lastStatus, lastStatusChange: known.lastStatusChange }
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
    if (!current) return;
    const byRegion = this.latest.get(monitor.id) ?? new Map<RegionId, ProbeResult>();
    byRegion.set(result.region, result);
    this.latest.set(monitor.id, byRegion);
    if (result.cert_not_after !== null) await this.checkCertificate(current, result.cert_not_after);
    await this.evaluator.submit(
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
    for (const event of events) {
      const evidence = this.latest.get(monitorId) ?? new Map<RegionId, ProbeResult>();
      await this.outbox.recordTransition({
        monitorId,
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

  private countByStatus(): Record<string, number> {
    const counts: Record<string, number> = { pending: 0, up: 0, down: 0 };
    for (const monitor of this.monitors.values()) counts[monitor.lastStatus] = (counts[monitor.lastStatus] ?? 0) + 1;
    return counts;
  }
}
