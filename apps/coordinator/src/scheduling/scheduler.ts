import type { MonitorRegionId } from '#contracts';
import type { Clock } from '#runtime';
import { PriorityQueue, type Queued } from './priority-queue.js';
import {
  isSlot,
  nextRegionIndex,
  nextSlot,
  rotationPlan,
  slotsBetween,
  type RotationPlan,
  type Slot,
} from './rotation.js';
import { MAX_TIMER_DELAY_MS, type TimerHandle, type Timers } from './timers.js';

/** What the scheduler needs to know about a monitor. */
export interface ScheduleEntry {
  readonly monitorId: string;
  /** Seconds between two checks from the same region (check_interval). */
  readonly intervalSeconds: number;
  /** The monitor's regions in stored order: the rotation order. At least one. */
  readonly regions: readonly MonitorRegionId[];
}

/** One check to send now. */
export interface DueCheck {
  readonly monitorId: string;
  readonly region: MonitorRegionId;
  /** Index of `region` in the monitor's regions when the check was planned. */
  readonly regionIndex: number;
  /**
   * When the check was due (ms since the epoch). Unique per monitor among the checks this
   * scheduler issues, so (monitor, scheduledAt) orders and identifies checks.
   */
  readonly scheduledAt: number;
  /** True for an out-of-rotation confirmation check (see `confirmNow`). */
  readonly confirmation: boolean;
}

export interface SchedulerOptions {
  readonly clock: Clock;
  readonly timers: Timers;
  /**
   * Called for each due check, in due order (ties in the order they were planned). Must not
   * block: start the probe and return. The scheduler may be called back from inside it.
   */
  readonly dispatch: (due: DueCheck) => void;
  /** now − scheduledAt for every dispatched check (ms, ≥ 0): for a lateness metric. */
  readonly onLateness?: (lateMs: number, due: DueCheck) => void;
  /** Regular slots of a monitor passed over after a pause (see the class note). */
  readonly onSkipped?: (monitorId: string, slots: number) => void;
  /**
   * A `dispatch` that threw. Without this handler the first such error is rethrown from the
   * timer callback once the tick has finished and the timer is re-armed.
   */
  readonly onDispatchError?: (error: unknown, due: DueCheck) => void;
  /** Most checks dispatched per timer callback before yielding to the event loop. */
  readonly maxPerTick?: number;
}

export type UpsertOutcome = 'added' | 'updated' | 'unchanged';

/** A monitor's pending out-of-rotation check: a queue item of its own. */
class Confirmation implements Queued {
  position = -1;

  constructor(
    readonly plan: MonitorPlan,
    readonly due: number,
    readonly seq: number,
    public regionIndex: number,
  ) {}
}

/**
 * A monitor's schedule, which is also the queue item of its next regular slot (`due`,
 * `regionIndex`): one object per monitor. Separate plan, slot, rotation and queue item objects
 * cost about 11 MB of heap at 100,000 monitors.
 */
class MonitorPlan implements Queued, RotationPlan {
  position = -1;
  due = 0;
  seq = 0;
  regionIndex = 0;
  regions: readonly MonitorRegionId[] = [];
  phaseMs = 0;
  intervalMs = 0;
  /** The pending confirmation check, at most one. */
  confirmation: Confirmation | null = null;
  /** scheduledAt of the newest confirmation issued, so the next one is strictly later. */
  lastConfirmationAt = Number.NEGATIVE_INFINITY;

  constructor(readonly monitorId: string) {}

  /** The rotation's n: the monitor's regions. */
  get regionCount(): number {
    return this.regions.length;
  }
}

type QueueItem = MonitorPlan | Confirmation;

const DEFAULT_MAX_PER_TICK = 5000;

/**
 * The coordinator's clock: every monitor's next check in ONE priority queue (binary min-heap on
 * due time, ties by planning order) under ONE timer, armed for the earliest due item.
 * upsert, remove, confirmNow and each dispatch are O(log n) in the number of monitors.
 *
 * - Regular slots follow rotation.ts. A new monitor starts at its first slot strictly after
 *   now; a changed interval or region list re-plans the monitor from now at once (same rule);
 *   an unchanged entry keeps its plan.
 * - Removal and re-planning move or take out the monitor's queue items in place (the queue
 *   knows each item's position), so the queue holds exactly the checks planned.
 * - After a pause (blocked event loop, clock jump, stop/start), an overdue monitor fires once,
 *   late, with its original scheduledAt, then continues from its first slot at or after now:
 *   no storm of missed slots. The slots passed over are reported through `onSkipped`.
 */
export class Scheduler {
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly dispatch: (due: DueCheck) => void;
  private readonly options: SchedulerOptions;
  private readonly maxPerTick: number;
  private readonly plans = new Map<string, MonitorPlan>();
  private readonly queue = new PriorityQueue<QueueItem>();
  private counter = 0;
  private running = false;
  private ticking = false;
  private handle: TimerHandle = undefined;
  private armed = false;
  private armedFor = 0;

  constructor(options: SchedulerOptions) {
    this.options = options;
    this.clock = options.clock;
    this.timers = options.timers;
    this.dispatch = options.dispatch;
    this.maxPerTick = options.maxPerTick ?? DEFAULT_MAX_PER_TICK;
    if (!Number.isSafeInteger(this.maxPerTick) || this.maxPerTick < 1) {
      throw new RangeError(`maxPerTick must be a positive integer, got ${this.maxPerTick}`);
    }
  }

  /** Monitors scheduled. */
  get size(): number {
    return this.plans.size;
  }

  /** Checks in the queue: each monitor's next slot and the pending confirmations (for a gauge). */
  get queueLength(): number {
    return this.queue.size;
  }

  has(monitorId: string): boolean {
    return this.plans.has(monitorId);
  }

  /** The monitor's next regular slot and pending confirmation, if scheduled. */
  upcoming(
    monitorId: string,
  ):
    | { next: { at: number; regionIndex: number }; confirmation: { at: number; regionIndex: number } | null }
    | undefined {
    const plan = this.plans.get(monitorId);
    if (!plan) return undefined;
    const pending = plan.confirmation;
    const confirmation = pending && { at: pending.due, regionIndex: pending.regionIndex };
    return { next: { at: plan.due, regionIndex: plan.regionIndex }, confirmation };
  }

  /** Adds a monitor or re-plans it when its interval or regions changed. */
  upsert(entry: ScheduleEntry): UpsertOutcome {
    const { monitorId, intervalSeconds } = entry;
    if (typeof monitorId !== 'string' || monitorId.length === 0) throw new RangeError('monitorId must be non-empty');
    if (!Number.isSafeInteger(intervalSeconds) || intervalSeconds < 1) {
      throw new RangeError(`intervalSeconds must be a positive integer, got ${intervalSeconds}`);
    }
    if (entry.regions.length === 0) throw new RangeError(`monitor ${monitorId} has no regions`);

    const existing = this.plans.get(monitorId);
    if (existing && existing.intervalMs === intervalSeconds * 1000 && sameRegions(existing.regions, entry.regions)) {
      return 'unchanged';
    }
    const regions = [...entry.regions];
    const rotation = rotationPlan(monitorId, intervalSeconds * 1000, regions.length);
    const slot = nextSlot(rotation, this.clock.now());
    const plan = existing ?? new MonitorPlan(monitorId);
    const pending = plan.confirmation;
    if (pending) {
      // A pending confirmation survives when its region still belongs to the monitor.
      const index = regions.indexOf(regionAt(plan, pending.regionIndex));
      if (index >= 0) pending.regionIndex = index;
      else {
        this.queue.remove(pending);
        plan.confirmation = null;
      }
    }
    plan.regions = regions;
    plan.phaseMs = rotation.phaseMs;
    plan.intervalMs = rotation.intervalMs;
    this.planNext(plan, slot);
    if (!existing) this.plans.set(monitorId, plan);
    this.arm();
    return existing ? 'updated' : 'added';
  }

  /** Stops scheduling a monitor: none of its planned checks will fire. False if unknown. */
  remove(monitorId: string): boolean {
    const plan = this.plans.get(monitorId);
    if (!plan) return false;
    this.plans.delete(monitorId);
    this.queue.remove(plan);
    if (plan.confirmation) this.queue.remove(plan.confirmation);
    return true;
  }

  /**
   * Schedules the region after `afterRegionIndex` (wrapping) to check now, as a confirmation,
   * besides the regular rotation, which is left as it was. Its scheduledAt is now, moved on by
   * a millisecond while it would equal a regular slot or not follow the previous confirmation.
   * Returns false (and does nothing) for an unknown monitor or while a confirmation of this
   * monitor is still pending.
   */
  confirmNow(monitorId: string, afterRegionIndex: number): boolean {
    const plan = this.plans.get(monitorId);
    if (!plan || plan.confirmation) return false;
    const regionIndex = nextRegionIndex(afterRegionIndex, plan.regions.length);
    let at = Math.max(this.clock.now(), plan.lastConfirmationAt + 1);
    while (isSlot(plan, at)) at++;
    plan.confirmation = new Confirmation(plan, at, ++this.counter, regionIndex);
    this.queue.push(plan.confirmation);
    plan.lastConfirmationAt = at;
    this.arm();
    return true;
  }

  /** Arms the timer. Idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm();
  }

  /** Disarms the timer; plans are kept, and `start` resumes them (overdue ones fire once). */
  stop(): void {
    this.running = false;
    this.disarm();
  }

  private readonly tick = (): void => {
    this.armed = false;
    this.handle = undefined;
    if (!this.running) return;
    let failure: { error: unknown } | undefined;
    this.ticking = true;
    try {
      const now = this.clock.now();
      let dispatched = 0;
      while (this.running && dispatched < this.maxPerTick) {
        const item = this.queue.peek();
        if (!item || item.due > now) break;
        this.queue.pop();
        const due = this.take(item, now);
        dispatched++;
        try {
          this.dispatch(due);
        } catch (error) {
          if (this.options.onDispatchError) this.options.onDispatchError(error, due);
          else failure ??= { error };
        }
        this.options.onLateness?.(Math.max(0, now - due.scheduledAt), due);
      }
    } finally {
      this.ticking = false;
      this.arm();
    }
    if (failure) throw failure.error;
  };

  /** The check a popped item stands for; a regular slot is followed by the monitor's next one. */
  private take(item: QueueItem, now: number): DueCheck {
    if (item instanceof Confirmation) {
      item.plan.confirmation = null;
      return this.dueCheck(item.plan, item.due, item.regionIndex, true);
    }
    const plan = item;
    const due = this.dueCheck(plan, plan.due, plan.regionIndex, false);
    // Late: fire this slot once, then resume at the first slot at or after now.
    const resumeAfter = Math.max(plan.due, now - 1);
    const skipped = slotsBetween(plan, plan.due, resumeAfter);
    this.planNext(plan, nextSlot(plan, resumeAfter));
    if (skipped > 0) this.options.onSkipped?.(plan.monitorId, skipped);
    return due;
  }

  private dueCheck(plan: MonitorPlan, at: number, regionIndex: number, confirmation: boolean): DueCheck {
    return {
      monitorId: plan.monitorId,
      region: regionAt(plan, regionIndex),
      regionIndex,
      scheduledAt: at,
      confirmation,
    };
  }

  /** Sets the plan's next regular slot, after every check planned so far among ties, and queues it there. */
  private planNext(plan: MonitorPlan, slot: Slot): void {
    plan.due = slot.at;
    plan.seq = ++this.counter;
    plan.regionIndex = slot.regionIndex;
    if (this.queue.has(plan)) this.queue.update(plan);
    else this.queue.push(plan);
  }

  /** Makes sure the one timer fires no later than the earliest queued check. */
  private arm(): void {
    if (!this.running || this.ticking) return;
    const top = this.queue.peek();
    if (!top) return; // a timer still armed fires, finds nothing due and stops
    if (this.armed && this.armedFor <= top.due) return;
    this.disarm();
    const now = this.clock.now();
    const delay = Math.min(Math.max(0, top.due - now), MAX_TIMER_DELAY_MS);
    this.armedFor = now + delay;
    this.armed = true;
    this.handle = this.timers.set(this.tick, delay);
  }

  private disarm(): void {
    if (!this.armed) return;
    this.timers.clear(this.handle);
    this.armed = false;
    this.handle = undefined;
  }
}

function sameRegions(a: readonly MonitorRegionId[], b: readonly MonitorRegionId[]): boolean {
  return a.length === b.length && a.every((region, i) => region === b[i]);
}

function regionAt(plan: MonitorPlan, index: number): MonitorRegionId {
  const region = plan.regions[index];
  if (region === undefined) throw new Error(`monitor ${plan.monitorId} has no region ${index}`);
  return region;
}
