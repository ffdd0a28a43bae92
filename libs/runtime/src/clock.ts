/**
 * Time, injected. Production code never calls Date.now() directly, so the scheduler,
 * retries, rate limits and timestamps can be tested without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to: for tests. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}
