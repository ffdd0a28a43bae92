import { Injectable } from '@nestjs/common';
import { isRegionId, type RegionId } from '#contracts';
import { Interner } from '#runtime';
import { PartitionManager } from '../cluster/partition-manager.js';
import { partitionOf } from '../cluster/partitions.js';
import type { MonitorState } from '../evaluation/status.js';
import type { MonitorChange } from '../monitors/monitor-events.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import { effectiveStatus } from '../monitors/monitor-status.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';

/**
 * A monitor this replica starts checking (`added`), whose settings changed while it checks it,
 * or that it stops checking.
 */
export type RosterChange =
  { kind: 'tracked'; monitor: RosterMonitor; added: boolean } | { kind: 'untracked'; monitorId: string };

/**
 * What the roster keeps of a monitor: what checking, evaluating, counting and logging it read.
 * Not the heartbeat token or the notification rules (read from the database where needed).
 * Every field is set in the constructor, in one order, so that V8 lays them out inside the
 * object: an entity as TypeORM hydrates it keeps most of its fields in a second, out-of-object
 * array (docs/decisions/0037-steady-state-heap-and-sqlite-batches.md).
 */
export class RosterMonitor {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly active: boolean;
  readonly checkInterval: number;
  readonly timeout: number;
  readonly failThreshold: number;
  readonly regions: MonitorEntity['regions'];
  readonly monitorType: MonitorEntity['monitorType'];
  readonly settings: MonitorEntity['settings'];
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Recorded here by the evaluation (recordStatus), not by the API. */
  lastStatus: MonitorEntity['lastStatus'];
  lastStatusChange: number;
  lastCheckedAt: number | null;
  /**
   * The evaluation's counters (MonitorState), recorded after each applied result
   * (recordEvaluated): held here rather than by the evaluator between results, so that an idle
   * monitor costs no evaluator state (docs/decisions/0046-exact-arrays-and-fewer-sets-per-monitor.md).
   * Not stored: a restart starts them from zero, as it always did.
   */
  consecutiveDown: number;
  lastScheduledAt: number;

  constructor(
    monitor: Pick<MonitorEntity, Exclude<keyof RosterMonitor, 'consecutiveDown' | 'lastScheduledAt'>>,
    strings: Interner,
  ) {
    this.id = monitor.id;
    // Each row read brings its own copies of strings most monitors share.
    this.accountId = strings.intern(monitor.accountId);
    this.name = monitor.name;
    this.active = monitor.active;
    this.checkInterval = monitor.checkInterval;
    this.timeout = monitor.timeout;
    this.failThreshold = monitor.failThreshold;
    this.regions = monitor.regions.map((region) => strings.intern(region));
    this.monitorType = strings.intern(monitor.monitorType);
    this.settings = monitor.settings;
    this.createdAt = monitor.createdAt;
    this.updatedAt = monitor.updatedAt;
    this.lastStatus = strings.intern(monitor.lastStatus);
    this.lastStatusChange = monitor.lastStatusChange;
    this.lastCheckedAt = monitor.lastCheckedAt;
    this.consecutiveDown = 0;
    this.lastScheduledAt = 0;
  }
}

/**
 * The monitors this replica checks, as the API last saved them, with their status as this
 * replica last recorded it: the one place a monitor's status lives in memory (the database
 * holds the durable copy, written by transitions/). With several replicas, only monitors of the
 * partitions this replica leases are here. The scheduler, the evidence and the evaluation follow
 * its changes (`onChange`).
 */
@Injectable()
export class MonitorRoster {
  private readonly monitors = new Map<string, RosterMonitor>();
  private readonly listeners: ((change: RosterChange) => void)[] = [];
  private readonly strings = new Interner();
  /** Per resync under way: the monitors a change was applied to since it began. */
  private readonly resyncs = new Set<Set<string>>();
  /**
   * Monitors checked here per public region, kept as monitors are tracked and untracked: read
   * every 5 s (region watch) and on every scrape, a count over 100,000 monitors held the event
   * loop about 20 ms each time (docs/decisions/0047-wal-checkpoints-off-the-event-loop.md).
   */
  private readonly regionCounts = new Map<RegionId, number>();
  /** Monitors added or removed since the start: a resync reads it to know the set did not change meanwhile. */
  private membershipChanges = 0;

  constructor(
    private readonly repository: MonitorsRepository,
    private readonly partitions: PartitionManager,
  ) {}

  /** Called when a monitor is tracked (added or changed) or untracked. */
  onChange(listener: (change: RosterChange) => void): void {
    this.listeners.push(listener);
  }

  /** Monitors checked by this replica. */
  get size(): number {
    return this.monitors.size;
  }

  get(monitorId: string): RosterMonitor | undefined {
    return this.monitors.get(monitorId);
  }

  /** Whether this replica checks the monitor and still leases its partition (only then it evaluates). */
  owns(monitorId: string): boolean {
    return this.monitors.has(monitorId) && this.partitions.ownsMonitor(monitorId);
  }

  /** The monitor's evaluation state as the last applied result left it; null when it is not checked here. */
  stateOf(monitorId: string): MonitorState | null {
    const monitor = this.monitors.get(monitorId);
    if (!monitor) return null;
    return {
      status: monitor.lastStatus,
      consecutiveDown: monitor.consecutiveDown,
      lastChange: monitor.lastStatusChange,
      lastScheduledAt: monitor.lastScheduledAt,
    };
  }

  /**
   * A result was applied and its state saved: the counters the next evaluation starts from. The
   * status itself is recorded by recordStatus, once the change it belongs to is written.
   */
  recordEvaluated(monitorId: string, state: Pick<MonitorState, 'consecutiveDown' | 'lastScheduledAt'>): void {
    const monitor = this.monitors.get(monitorId);
    if (!monitor) return;
    monitor.consecutiveDown = state.consecutiveDown;
    monitor.lastScheduledAt = state.lastScheduledAt;
  }

  /** The run of DOWNs starts again from zero (a result taken in maintenance). */
  restartCount(monitorId: string): void {
    const monitor = this.monitors.get(monitorId);
    if (monitor) monitor.consecutiveDown = 0;
  }

  /** A status change was recorded (transitions/). */
  recordStatus(monitorId: string, status: 'up' | 'down', changedAt: number): void {
    const monitor = this.monitors.get(monitorId);
    if (!monitor) return;
    monitor.lastStatus = status;
    monitor.lastStatusChange = changedAt;
  }

  /** An UP or DOWN result of the monitor arrived at `at` (Unix s): what the `unknown` overlay reads. */
  recordChecked(monitorId: string, at: number): void {
    const monitor = this.monitors.get(monitorId);
    if (monitor) monitor.lastCheckedAt = Math.max(monitor.lastCheckedAt ?? 0, at);
  }

  /** A committed monitor change (this replica's API, or a notice from another replica). */
  apply(change: MonitorChange): void {
    const id = change.kind === 'deleted' ? change.monitorId : change.monitor.id;
    for (const applied of this.resyncs) applied.add(id);
    if (change.kind === 'deleted') {
      this.untrack(change.monitorId);
      return;
    }
    if (!this.partitions.ownsMonitor(change.monitor.id)) {
      this.untrack(change.monitor.id);
      return;
    }
    const known = this.monitors.get(change.monitor.id);
    const monitor = new RosterMonitor(change.monitor, this.strings);
    if (known) {
      // Status is recorded here, not by the API: keep what is known, take the rest from the change.
      monitor.lastStatus = known.lastStatus;
      monitor.lastStatusChange = known.lastStatusChange;
      monitor.lastCheckedAt = Math.max(known.lastCheckedAt ?? 0, change.monitor.lastCheckedAt ?? 0) || null;
      monitor.consecutiveDown = known.consecutiveDown;
      monitor.lastScheduledAt = known.lastScheduledAt;
    }
    this.track(monitor);
  }

  /** Partitions leased to this replica: their monitors are tracked from their stored state. */
  async adopt(partitions: readonly number[]): Promise<void> {
    const wanted = new Set(partitions);
    for await (const page of this.repository.pagesOfAll()) {
      for (const monitor of page) {
        if (wanted.has(partitionOf(monitor.id)) && !this.monitors.has(monitor.id)) {
          this.track(new RosterMonitor(monitor, this.strings));
        }
      }
    }
  }

  /** Partitions this replica no longer leases: their monitors stop here at once. */
  release(partitions: readonly number[]): void {
    const gone = new Set(partitions);
    for (const id of [...this.monitors.keys()]) if (gone.has(partitionOf(id))) this.untrack(id);
  }

  /**
   * Brings the roster in line with the database (changes made through other replicas whose
   * notice did not arrive): reads every monitor's id and updated_at a page at a time, loads only
   * those that differ. A change applied while it reads is newer than what it read: the monitor
   * keeps it and is not dropped for missing from a page read before it existed.
   *
   * The sweep for monitors gone from the database (one pass over every monitor here, about 50 ms
   * at 100,000 in one go) runs only when the pages did not account for every monitor here: when
   * no monitor was added or removed while they were read and every one of them was in a page and
   * owned, there is nothing for it to drop.
   *
   * `pause`, awaited after each page, spreads the read out: a safety net that runs every 30 s need
   * not read 100,000 rows in one burst (docs/decisions/0048-api-latency-at-a-fixed-rate.md).
   */
  async resync({ pause }: { pause?: () => Promise<void> } = {}): Promise<void> {
    const appliedMeanwhile = new Set<string>();
    this.resyncs.add(appliedMeanwhile);
    const changesBefore = this.membershipChanges;
    try {
      const seen = new Set<string>();
      const changed: string[] = [];
      let present = 0;
      for await (const page of this.repository.versionPages()) {
        for (const [id, updatedAt] of page) {
          seen.add(id);
          if (!this.partitions.ownsMonitor(id)) continue;
          const known = this.monitors.get(id);
          if (known) present++;
          if (known?.updatedAt !== updatedAt) changed.push(id);
        }
        // Before the next page is asked for (after the last one too: one pause more, nothing lost).
        if (pause) await pause();
      }
      const accounted = this.membershipChanges === changesBefore && present === this.monitors.size;
      for (const monitor of await this.repository.findByIds(changed)) {
        if (this.partitions.ownsMonitor(monitor.id) && !appliedMeanwhile.has(monitor.id)) {
          this.apply({ kind: 'saved', monitor });
        }
      }
      if (accounted) return;
      for (const id of [...this.monitors.keys()]) {
        if (appliedMeanwhile.has(id)) continue;
        if (!seen.has(id) || !this.partitions.ownsMonitor(id)) this.untrack(id);
      }
    } finally {
      this.resyncs.delete(appliedMeanwhile);
    }
  }

  /** How many monitors checked here use each public region (private ones are their accounts' to watch). */
  byRegion(): Map<RegionId, number> {
    return new Map(this.regionCounts);
  }

  /** Monitors checked here by the status the API shows (with the `unknown` overlay) at `now` (Unix s). */
  countByStatus(now: number): Record<string, number> {
    const counts: Record<string, number> = { pending: 0, up: 0, down: 0, unknown: 0 };
    for (const monitor of this.monitors.values()) {
      const status = effectiveStatus(monitor, now);
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  }

  private track(monitor: RosterMonitor): void {
    const known = this.monitors.get(monitor.id);
    if (known) this.countRegions(known, -1);
    else this.membershipChanges++;
    this.monitors.set(monitor.id, monitor);
    this.countRegions(monitor, 1);
    this.emit({ kind: 'tracked', monitor, added: !known });
  }

  private untrack(monitorId: string): void {
    const known = this.monitors.get(monitorId);
    if (!known) return;
    this.monitors.delete(monitorId);
    this.membershipChanges++;
    this.countRegions(known, -1);
    this.emit({ kind: 'untracked', monitorId });
  }

  private countRegions(monitor: RosterMonitor, by: 1 | -1): void {
    for (const region of monitor.regions) {
      if (!isRegionId(region)) continue;
      const count = (this.regionCounts.get(region) ?? 0) + by;
      if (count === 0) this.regionCounts.delete(region);
      else this.regionCounts.set(region, count);
    }
  }

  private emit(change: RosterChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
