import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { HeartbeatSettings } from '#contracts';
import { CLOCK, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { ResultIngest } from '../evaluation/result-ingest.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { MonitorRoster, type RosterMonitor } from '../scheduling/monitor-roster.js';
import { TIMERS, type TimerHandle, type Timers } from '../scheduling/timers.js';
import { deadlineOf, heartbeatResult } from './heartbeat.js';

/** How often the deadlines of this replica's heartbeat monitors are compared with the clock. */
export const HEARTBEAT_SWEEP_MS = 1_000;

/**
 * The deadlines of the heartbeat monitors this replica owns (docs/decisions/0027-heartbeat-monitors.md).
 * They live nowhere but in what the roster holds from the database: each monitor's newest decided
 * result (`last_checked_at`) or its creation, plus `period + grace`. So nothing is lost in a
 * restart or a partition handover: the new owner reads the same columns, and a deadline that
 * passed while no coordinator was watching is found on the first sweep after the start.
 *
 * Every HEARTBEAT_SWEEP_MS the owned heartbeats are compared with the injected clock (one pass
 * over memory). A passed deadline is confirmed against the database first (a ping another
 * replica took may be stored and not yet forwarded); if it still stands, a DOWN result dated at
 * the deadline goes through ingestion like a probe's, so the monitor turns down at once, with its
 * incident and notifications. That result is itself the newest result, so while no ping comes
 * the next deadline is `period + grace` later.
 */
@Injectable()
export class HeartbeatWatch implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('HeartbeatWatch');
  private readonly watched = new Set<string>();
  private readonly busy = new Set<string>();
  private timer: TimerHandle = null;
  private stopped = false;

  constructor(
    private readonly roster: MonitorRoster,
    private readonly monitors: MonitorsRepository,
    private readonly ingest: ResultIngest,
    private readonly config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TIMERS) private readonly timers: Timers,
  ) {
    roster.onChange((change) => {
      if (change.kind === 'untracked') this.watched.delete(change.monitorId);
      else if (change.monitor.monitorType === 'heartbeat') this.watched.add(change.monitor.id);
      else this.watched.delete(change.monitor.id);
    });
  }

  /** Heartbeat monitors whose deadline this replica keeps. */
  get size(): number {
    return this.watched.size;
  }

  onApplicationBootstrap(): void {
    // A coordinator that checks nothing owns no partition: the replicas that check keep the deadlines.
    if (this.config.CHECKS_ENABLED === 'false') return;
    this.schedule();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    if (this.timer !== null) this.timers.clear(this.timer);
  }

  /** One pass: every owned heartbeat whose deadline has passed is confirmed and, if late, turned down. */
  async sweep(): Promise<void> {
    const now = Math.floor(this.clock.now() / 1000);
    const late: Promise<void>[] = [];
    for (const id of this.watched) {
      const monitor = this.roster.get(id);
      if (!monitor || this.busy.has(id) || now < this.deadline(monitor)) continue;
      this.busy.add(id);
      late.push(
        this.confirm(id)
          .catch((error: unknown) => {
            this.logger.warn(`deadline of heartbeat ${id} not judged yet (next sweep retries): ${String(error)}`);
          })
          .finally(() => this.busy.delete(id)),
      );
    }
    await Promise.all(late);
  }

  private deadline(monitor: RosterMonitor): number {
    return deadlineOf(monitor.settings as HeartbeatSettings, monitor.lastCheckedAt, monitor.createdAt);
  }

  /** The deadline passed in memory: read the stored last result, and record the miss if it stands. */
  private async confirm(id: string): Promise<void> {
    const stored = await this.monitors.findById(id);
    const monitor = this.roster.get(id);
    if (!stored || !monitor || monitor.monitorType !== 'heartbeat' || !this.roster.owns(id)) return;
    if (stored.lastCheckedAt !== null) this.roster.recordChecked(id, stored.lastCheckedAt);
    const deadline = this.deadline(monitor);
    const now = Math.floor(this.clock.now() / 1000);
    if (now < deadline) return;
    const since = monitor.lastCheckedAt ?? monitor.createdAt;
    const result = heartbeatResult(id, { kind: 'missed', silentFor: now - since }, deadline * 1000);
    await this.ingest.accept(monitor, { regionIndex: 0 }, result);
  }

  private schedule(): void {
    this.timer = this.timers.set(() => {
      void this.sweep().finally(() => {
        if (!this.stopped) this.schedule();
      });
    }, HEARTBEAT_SWEEP_MS);
  }
}
