import { describe, nextTat, type Decision, type Limits } from '../rate-limit/gcra.js';

/** Pings a token may send per minute, a full minute's worth at once (docs/decisions/0027-heartbeat-monitors.md). */
export const PING_LIMITS: Limits = { budget: 60, windowMs: 60_000 };

/** Buckets kept before full ones are dropped (a full bucket and no bucket are the same). */
const PRUNE_ABOVE = 10_000;

/**
 * The per-token ping budget: the GCRA of the API budget (rate-limit/gcra.ts) over a one-minute
 * window, in this replica's memory. Only tokens of existing monitors get a bucket (the lookup
 * comes first), so memory is bounded by the heartbeat monitors; with several replicas each keeps
 * its own, so a token may send up to replicas × budget (docs/decisions/0027-heartbeat-monitors.md).
 */
export class PingLimiter {
  private readonly tats = new Map<string, number>();

  constructor(private readonly limits: Limits = PING_LIMITS) {}

  /** Charges one ping of `token` at `now` (ms): the decision, with Retry-After when refused. */
  charge(token: string, now: number): Decision {
    const window = this.limits.windowMs ?? 0;
    const stored = this.tats.get(token) ?? null;
    const next = nextTat(stored, now, 1, this.limits);
    if (next - now <= window) {
      this.tats.set(token, next);
      if (this.tats.size > PRUNE_ABOVE) this.prune(now);
      return describe(next, now, this.limits, null);
    }
    return describe(Math.max(stored ?? now, now), now, this.limits, next);
  }

  /** Buckets kept now. */
  get size(): number {
    return this.tats.size;
  }

  private prune(now: number): void {
    for (const [token, tat] of this.tats) if (tat <= now) this.tats.delete(token);
  }
}
