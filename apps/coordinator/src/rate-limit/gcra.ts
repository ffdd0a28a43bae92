/**
 * The rate limit's arithmetic (docs/decisions/0003-auth-permissions-rate-limit.md), pure: the
 * generic cell rate algorithm over one number per account, the theoretical arrival time (TAT). A
 * budget of B points per hour means one point is earned back every 3600 s / B, and a full bucket
 * holds all B points.
 */

export const HOUR_MS = 3_600_000;

/** Points a request costs (docs/decisions/0003-auth-permissions-rate-limit.md). */
export function costOf(method: string, path: string): number {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') return 1;
  if (m === 'POST' && /^\/api\/contacts\/[^/]+\/test\/?$/.test(path)) return 10;
  return 5;
}

export interface Limits {
  /** Points per rolling window (RATE_LIMIT_POINTS_PER_HOUR for the API). */
  readonly budget: number;
  /** The window, an hour unless given (heartbeat pings: a minute, docs/decisions/0027-heartbeat-monitors.md). */
  readonly windowMs?: number;
}

/** What a request leads to, and the headers that say so. */
export interface Decision {
  readonly allowed: boolean;
  /** The bucket's TAT after the request. */
  readonly tat: number;
  readonly limit: number;
  /** Whole points left after this request. */
  readonly remaining: number;
  /** Unix seconds when the bucket is full again. */
  readonly reset: number;
  /** Refused: whole seconds until this request would be admitted. */
  readonly retryAfter: number | null;
}

const windowOf = (limits: Limits) => limits.windowMs ?? HOUR_MS;
const interval = (limits: Limits) => windowOf(limits) / limits.budget;

/**
 * The TAT after admitting `cost` points at `now`, from the stored TAT (null: never seen). The
 * request fits when the result is at most an hour ahead of `now` (RateLimitStore.admit checks
 * exactly this, atomically, in SQL).
 */
export function nextTat(stored: number | null, now: number, cost: number, limits: Limits): number {
  return Math.max(stored ?? now, now) + cost * interval(limits);
}

/**
 * The headers for a bucket whose TAT is `tat` at `now`; `refusedTat` is the TAT the refused
 * request would have needed (Retry-After is the wait until it fits).
 */
export function describe(tat: number, now: number, limits: Limits, refusedTat: number | null): Decision {
  const step = interval(limits);
  const window = windowOf(limits);
  const remaining = Math.max(0, Math.floor((window - (tat - now)) / step + 1e-9));
  return {
    allowed: refusedTat === null,
    tat,
    limit: limits.budget,
    remaining,
    reset: Math.ceil(Math.max(tat, now) / 1000),
    retryAfter: refusedTat === null ? null : Math.max(1, Math.ceil((refusedTat - window - now) / 1000)),
  };
}
