import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CLOCK, PICKET_VERSION, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { TIMERS, type TimerHandle, type Timers } from '../scheduling/timers.js';
import { LeaseStore } from './lease.store.js';
import { modeConflict, partitionOf, planLeases, type ReplicaMode } from './partitions.js';

/** What the owner of the monitors (MonitorRoster, through CheckPath) does when partitions come and go. */
export interface PartitionListener {
  /** Start scheduling these partitions' monitors (loaded from the database). */
  gained(partitions: readonly number[]): Promise<void>;
  /** Stop scheduling them at once (another replica takes them, or the lease is no longer sure). */
  lost(partitions: readonly number[]): void;
}

/** A replica refuses to start because the live replicas on its database run checks another way. */
export class ReplicaModeConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplicaModeConflictError';
  }
}

/** Members older than this many ticks' worth of time are purged now and then. */
const PURGE_EVERY_TICKS = 240;

/**
 * This replica's share of the monitors. Every quarter of the lease time it heart-beats its
 * membership, renews its leases, and follows the plan of partitions.ts (claim what its balanced
 * share gives it once free, hand over what belongs to a newcomer).
 *
 * When the leases cannot be renewed (database unreachable), the replica keeps checking the
 * partitions it had (docs/decisions/0001-truth-when-blind.md: an outage of the target during
 * a database outage must still be recorded): `partitions` (the leases it is sure of) turns
 * empty when they could have expired, but `ownsMonitor` stays true, so checks go on and
 * results and status changes are held in memory. Once the database answers, the next round
 * learns which partitions are still its own and drops the others. A status change is written
 * only through `fence`: in the same transaction, the lease row must still name this replica
 * and the partition must not have been dropped since the change was decided, so a replica
 * that kept checking while another took over never writes behind the new owner's back. (If
 * only this replica lost the database, the other may check the same monitors meanwhile:
 * doubled probes, never doubled writes.)
 */
@Injectable()
export class PartitionManager {
  private readonly logger = new Logger('Partitions');
  private readonly ttlMs: number;
  private readonly owned = new Set<number>();
  private validUntil = 0;
  private listener: PartitionListener | null = null;
  private tickTimer: TimerHandle = null;
  private expiryTimer: TimerHandle = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failing = false;
  /** The leases ran past their expiry unrenewed and the replica checks on without them. */
  private overdueSince: number | null = null;
  /** Per partition, bumped each time it is dropped: a status change decided before is not written. */
  private readonly generations = new Map<number, number>();
  private ticks = 0;
  private readonly startedAt: number;

  constructor(
    private readonly store: LeaseStore,
    private readonly config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TIMERS) private readonly timers: Timers,
  ) {
    this.ttlMs = config.COORDINATOR_LEASE_SECONDS * 1000;
    this.startedAt = clock.now();
  }

  get replicaId(): string {
    return this.config.COORDINATOR_ID;
  }

  /** Partitions this replica schedules now. */
  get partitions(): number[] {
    return this.usable() ? [...this.owned].sort((a, b) => a - b) : [];
  }

  /**
   * Whether this replica schedules and evaluates `monitorId` now: its partition was leased
   * to it and not dropped since (also while the leases are overdue through a database outage).
   */
  ownsMonitor(monitorId: string): boolean {
    return this.owned.has(partitionOf(monitorId));
  }

  /** Since when (Unix ms) the leases are past their expiry unrenewed; null while they are renewed in time. */
  get overdue(): number | null {
    return this.overdueSince;
  }

  /** The partition's generation now, to be passed back to `fence` with a status change decided now. */
  generationOf(monitorId: string): number {
    return this.generations.get(partitionOf(monitorId)) ?? 0;
  }

  /**
   * Inside a status-change transaction: this replica still holds the monitor's partition in
   * the database (the lease row is locked until the commit, so nobody claims it meanwhile),
   * and has not dropped it since `generation` was read. A replica that was paused or cut off
   * past its lease while another took over fails here instead of writing behind its back.
   */
  async fence(m: EntityManager, monitorId: string, generation = this.generationOf(monitorId)): Promise<boolean> {
    if (generation !== this.generationOf(monitorId)) return false;
    return this.store.holds(m, this.replicaId, partitionOf(monitorId));
  }

  /** How this replica runs checks, recorded with its membership and compared with the others'. */
  get mode(): ReplicaMode {
    return this.config.NATS_URL
      ? { mode: 'nats', subjectPrefix: this.config.NATS_SUBJECT_PREFIX }
      : { mode: 'embedded', subjectPrefix: '' };
  }

  /**
   * Joins: the first round runs before this resolves, so a lone replica starts with every
   * partition. Refuses (ReplicaModeConflictError) when live replicas on this database run
   * checks another way (embedded vs NATS, or another subject prefix): joining them would run
   * the same monitors two ways and send false alerts.
   */
  async start(listener: PartitionListener): Promise<void> {
    const now = this.clock.now();
    const others = (await this.store.liveMembers(now, this.ttlMs)).filter((m) => m.id !== this.replicaId);
    const conflict = modeConflict(this.replicaId, this.mode, others, now);
    if (conflict) throw new ReplicaModeConflictError(conflict);
    this.listener = listener;
    this.stopped = false;
    await this.round();
  }

  /** Leaves: stops scheduling, frees the leases at once (no waiting for expiry) and removes the membership. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.tickTimer !== null) this.timers.clear(this.tickTimer);
    if (this.expiryTimer !== null) this.timers.clear(this.expiryTimer);
    await this.running?.catch(() => undefined);
    this.drop([...this.owned]);
    await this.store.leave(this.replicaId).catch((error: unknown) => {
      this.logger.warn(`could not free the leases on stop (they expire by themselves): ${String(error)}`);
    });
  }

  /** Resolves when the round in progress (if any) has finished. */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  private usable(): boolean {
    return this.clock.now() < this.validUntil;
  }

  private round(): Promise<void> {
    const run = this.tick().finally(() => {
      this.running = null;
      if (!this.stopped) this.tickTimer = this.timers.set(() => void this.round(), this.ttlMs / 4);
    });
    this.running = run;
    return run;
  }

  private async tick(): Promise<void> {
    const me = this.replicaId;
    const now = this.clock.now();
    const expiresAt = now + this.ttlMs;
    try {
      await this.store.heartbeat(me, PICKET_VERSION, this.startedAt, now, this.mode);
      const held = new Set(await this.store.renew(me, expiresAt));
      // Owned but not renewed: the lease lapsed or moved, however briefly. Dropped now (a new
      // generation) even if this round claims the partition back, so a change decided before
      // can never be written behind the back of whoever held it meanwhile.
      this.drop([...this.owned].filter((p) => !held.has(p)));
      const members = await this.store.liveMembers(now, this.ttlMs);
      const plan = planLeases(me, members, await this.store.leases(), now);
      if (plan.release.length > 0) {
        this.drop(plan.release);
        for (const p of plan.release) held.delete(p);
        await this.store.release(me, plan.release);
      }
      for (const partition of plan.claim) {
        if (await this.store.claim(me, partition, now, expiresAt)) held.add(partition);
      }
      if (this.stopped) return;
      // Trust the leases until they could expire, less a margin for clock drift and a slow statement.
      this.setValidUntil(expiresAt - Math.min(2000, this.ttlMs / 5));
      this.drop([...this.owned].filter((p) => !held.has(p)));
      const gained = [...held].filter((p) => !this.owned.has(p)).sort((a, b) => a - b);
      if (gained.length > 0) await this.adopt(gained);
      if (this.failing) this.logger.log(`partition leases renewed again; scheduling ${this.owned.size} partitions`);
      this.failing = false;
      this.overdueSince = null;
      if (++this.ticks % PURGE_EVERY_TICKS === 0) await this.store.forgetDeadMembers(now);
    } catch (error) {
      if (!this.failing) {
        this.logger.warn(
          `cannot renew partition leases (${error instanceof Error ? error.message : String(error)}); ` +
            `checks go on; status changes are held until the database answers`,
        );
      }
      this.failing = true;
    }
  }

  private async adopt(partitions: number[]): Promise<void> {
    for (const p of partitions) this.owned.add(p);
    try {
      await this.listener?.gained(partitions);
      this.logger.log(`now scheduling partitions ${partitions.join(',')} (${this.owned.size} in all)`);
    } catch (error) {
      // Not scheduled after all: the next round sees them held but not owned and tries again.
      for (const p of partitions) this.owned.delete(p);
      throw error;
    }
  }

  private drop(partitions: readonly number[]): void {
    const gone = partitions.filter((p) => this.owned.delete(p));
    if (gone.length === 0) return;
    for (const p of gone) this.generations.set(p, (this.generations.get(p) ?? 0) + 1);
    this.listener?.lost(gone);
    this.logger.log(`stopped scheduling partitions ${gone.join(',')} (${this.owned.size} left)`);
  }

  private setValidUntil(at: number): void {
    this.validUntil = at;
    this.armExpiry();
  }

  /**
   * Marks the leases overdue once `validUntil` passes unrenewed. A timer can fire early by the
   * wall clock (a 100 ms timer measured 99 ms of `Date.now()`: Node's timers run on a monotonic
   * clock in whole ms): then it waits out the rest, or the outage would never be marked
   * (a renewal in time clears this timer and sets a new one, so only an early firing finds the
   * leases still valid here).
   */
  private armExpiry(): void {
    if (this.expiryTimer !== null) this.timers.clear(this.expiryTimer);
    this.expiryTimer = this.timers.set(() => {
      this.expiryTimer = null;
      if (this.owned.size === 0 || this.stopped) return;
      if (this.usable()) {
        this.armExpiry();
        return;
      }
      this.overdueSince = this.clock.now();
      this.logger.error(
        `partition leases could not be renewed in time (database unreachable?): still checking ` +
          `${this.owned.size} partitions; their status changes are held and written once the database ` +
          `answers, unless another replica took a partition over meanwhile`,
      );
    }, this.validUntil - this.clock.now());
  }
}
