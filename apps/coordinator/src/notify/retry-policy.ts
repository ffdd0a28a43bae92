/**
 * When a transiently failed delivery is tried again (docs/decisions/0011-notification-channels.md
 * §3): at once, then after 5 s, 5 min, 30 min, 2 h, 5 h and 10 h (±20 % jitter), never after 24 h
 * from the event. A provider's hint (Retry-After and the like) replaces the next delay.
 */
export const RETRY_DELAYS_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000] as const;
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;
export const JITTER = 0.2;

export interface RetryInput {
  /** Attempts made so far, the failed one included (≥ 1). */
  attempts: number;
  /** When the outbox row was written (ms). */
  createdAt: number;
  /** Now (ms). */
  now: number;
  /** The provider's own hint for this failure, if any (ms). */
  retryAfterMs?: number;
  /** A number in [0, 1) for the jitter (injected so tests are exact). */
  random: number;
}

/** The time of the next attempt, or null when the delivery has run out of attempts or time. */
export function nextAttemptAt(input: RetryInput): number | null {
  const { attempts, createdAt, now, retryAfterMs, random } = input;
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  const delay =
    retryAfterMs !== undefined ? Math.max(0, retryAfterMs) : Math.round(base * (1 - JITTER + 2 * JITTER * random));
  const at = now + delay;
  return at > createdAt + DELIVERY_WINDOW_MS ? null : at;
}
