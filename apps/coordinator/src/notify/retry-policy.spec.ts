import { describe, expect, it } from '@jest/globals';
import { DELIVERY_WINDOW_MS, nextAttemptAt, RETRY_DELAYS_MS } from './retry-policy.js';

describe('nextAttemptAt', () => {
  const created = 1_000_000;

  it.each([
    // attempts, delay without jitter (random 0.5 → factor 1)
    [1, 0],
    [2, 5_000],
    [3, 300_000],
    [4, 1_800_000],
    [5, 7_200_000],
    [6, 18_000_000],
    [7, 36_000_000],
  ])('after %i failed attempt(s) waits %i ms', (attempts, delay) => {
    expect(nextAttemptAt({ attempts, createdAt: created, now: created, random: 0.5 })).toBe(created + delay);
  });

  it('applies ±20 % jitter to non-zero delays only', () => {
    expect(nextAttemptAt({ attempts: 2, createdAt: created, now: created, random: 0 })).toBe(created + 4_000);
    expect(nextAttemptAt({ attempts: 2, createdAt: created, now: created, random: 0.999999 })).toBe(created + 6_000);
    expect(nextAttemptAt({ attempts: 1, createdAt: created, now: created, random: 0 })).toBe(created);
  });

  it('follows a provider hint instead of the schedule', () => {
    expect(nextAttemptAt({ attempts: 1, createdAt: created, now: created, retryAfterMs: 30_000, random: 0 })).toBe(
      created + 30_000,
    );
  });

  it('gives up after the last step and never schedules past 24 h', () => {
    expect(
      nextAttemptAt({ attempts: RETRY_DELAYS_MS.length + 1, createdAt: created, now: created, random: 0.5 }),
    ).toBeNull();
    const late = created + DELIVERY_WINDOW_MS - 1000;
    expect(nextAttemptAt({ attempts: 3, createdAt: created, now: late, random: 0.5 })).toBeNull();
    expect(nextAttemptAt({ attempts: 1, createdAt: created, now: late, retryAfterMs: 2_000, random: 0.5 })).toBeNull();
  });

  it('the whole schedule fits in the 24 h window', () => {
    let now = created;
    let attempts = 0;
    const times: number[] = [];
    for (;;) {
      attempts++;
      const next = nextAttemptAt({ attempts, createdAt: created, now, random: 0.5 });
      if (next === null) break;
      times.push(next - created);
      now = next;
    }
    expect(times).toEqual([0, 5_000, 305_000, 2_105_000, 9_305_000, 27_305_000, 63_305_000]);
    expect(attempts).toBe(8); // 1 first attempt + 7 retries
  });
});
