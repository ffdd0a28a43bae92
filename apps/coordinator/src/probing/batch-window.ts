/**
 * When a coalesced batch of checks leaves the coordinator (docs/decisions/0034-batched-probe-traffic.md).
 * Pure: times in ms of the coordinator's clock.
 */

/** No check is sent later than its slot + this because of coalescing (it may be later for other reasons). */
export const MAX_COALESCING_DELAY_MS = 50;

/**
 * PROBE_BATCH_WINDOW_MS's default: 40 ms, not 20, because a wakeup is most of what a check costs
 * an agent at a few hundred checks a second, and 40 ms still leaves 10 ms to the 50 ms bound for
 * a late scheduler tick (docs/decisions/0049-a-40-ms-batch-window.md). The benchmarks read it, so
 * they model what a coordinator does by default.
 */
export const DEFAULT_BATCH_WINDOW_MS = 40;

/** A check waiting in a batch: its slot (`scheduled_at`) and when dispatch handed it over. */
export interface WaitingCheck {
  readonly scheduledAt: number;
  readonly queuedAt: number;
}

/**
 * The latest a waiting check may leave: its slot + MAX_COALESCING_DELAY_MS, or at once when it
 * came later than that already (a late scheduler tick: coalescing adds nothing to its lateness).
 */
export function latestSend(check: WaitingCheck, boundMs: number = MAX_COALESCING_DELAY_MS): number {
  return Math.max(check.queuedAt, check.scheduledAt + boundMs);
}

/**
 * When a batch opened at `openedAt` (its first check queued) is sent: at the end of its window,
 * or earlier when a check in it would otherwise leave later than `latestSend`; at `now` at the
 * latest once full. Never before `openedAt`.
 */
export function flushAt(
  openedAt: number,
  checks: readonly WaitingCheck[],
  windowMs: number,
  options: { maxChecks: number; now: number; boundMs?: number },
): number {
  if (checks.length >= options.maxChecks) return Math.max(openedAt, options.now);
  let at = openedAt + windowMs;
  for (const check of checks) at = Math.min(at, latestSend(check, options.boundMs));
  return Math.max(openedAt, at);
}
