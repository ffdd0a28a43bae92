import type { ManualClock } from '#runtime';

/** Opaque handle of a pending timer. */
export type TimerHandle = unknown;

/**
 * One-shot timers, injected beside the Clock so the scheduler can be driven in tests without
 * sleeping. `set` runs `fn` once, about `delayMs` later; `clear` cancels it (a no-op when it
 * already ran).
 */
export interface Timers {
  set(fn: () => void, delayMs: number): TimerHandle;
  clear(handle: TimerHandle): void;
}

export const TIMERS = Symbol('TIMERS');

/** The largest delay setTimeout honours (longer ones fire at once). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export const systemTimers: Timers = {
  set: (fn, delayMs) => setTimeout(fn, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS)),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Waits `delayMs` on `timers`, unless its owner stops (`stopped()`) before or during the wait:
 * then it rejects, so that what waits on it goes no further.
 */
export function pauseUnlessStopped(timers: Timers, delayMs: number, stopped: () => boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const end = () => (stopped() ? reject(new Error('stopping')) : resolve());
    if (stopped()) end();
    else timers.set(end, delayMs);
  });
}

interface ManualTimer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/**
 * Timers that fire only when the test moves a ManualClock through them. Counts what it is
 * asked to do, so tests can assert how many timers a component keeps.
 */
export class ManualTimers implements Timers {
  private pending: ManualTimer[] = [];
  private nextId = 1;
  /** How many times `set` was called. */
  sets = 0;
  /** The most timers pending at once. */
  maxActive = 0;

  constructor(readonly clock: ManualClock) {}

  set(fn: () => void, delayMs: number): TimerHandle {
    const timer: ManualTimer = { id: this.nextId++, at: this.clock.now() + Math.max(0, delayMs), fn };
    this.pending.push(timer);
    this.sets++;
    this.maxActive = Math.max(this.maxActive, this.pending.length);
    return timer.id;
  }

  clear(handle: TimerHandle): void {
    this.pending = this.pending.filter((timer) => timer.id !== handle);
  }

  /** Timers pending now. */
  get active(): number {
    return this.pending.length;
  }

  /**
   * Time passing normally: the clock moves to each due timer in turn and runs it (timers set
   * meanwhile included), then to now + ms.
   */
  advance(ms: number): void {
    const target = this.clock.now() + ms;
    for (let timer = this.earliest(target); timer; timer = this.earliest(target)) {
      if (timer.at > this.clock.now()) this.clock.set(timer.at);
      this.run(timer);
    }
    this.clock.set(target);
  }

  /**
   * The event loop was blocked (or the wall clock jumped): the clock is at now + ms at once,
   * and only then do the overdue timers run, all late.
   */
  jump(ms: number): void {
    this.clock.advance(ms);
    this.runDue();
  }

  /** Runs every timer due at the current time, including ones they set with no delay. */
  runDue(): void {
    for (let timer = this.earliest(this.clock.now()); timer; timer = this.earliest(this.clock.now())) this.run(timer);
  }

  private earliest(notAfter: number): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const timer of this.pending) {
      if (timer.at <= notAfter && (!best || timer.at < best.at || (timer.at === best.at && timer.id < best.id))) {
        best = timer;
      }
    }
    return best;
  }

  private run(timer: ManualTimer): void {
    this.clear(timer.id);
    timer.fn();
  }
}
