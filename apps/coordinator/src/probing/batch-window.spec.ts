import { describe, expect, it } from '@jest/globals';
import { flushAt, latestSend, MAX_COALESCING_DELAY_MS } from './batch-window.js';

const T = 1_000_000;
const check = (slotAgo: number, queuedAgo = slotAgo) => ({ scheduledAt: T - slotAgo, queuedAt: T - queuedAgo });

describe('latestSend', () => {
  it.each([
    ['on time', check(0), T + 50],
    ['queued 30 ms after its slot', check(30, 0), T + 20],
    ['queued 50 ms after its slot', check(50, 0), T],
    ['queued 80 ms after its slot (a late tick): at once, nothing added', check(80, 0), T],
  ])('%s', (_case, waiting, expected) => {
    expect(latestSend(waiting)).toBe(expected);
  });

  it('the bound is 50 ms', () => {
    expect(MAX_COALESCING_DELAY_MS).toBe(50);
  });
});

describe('flushAt (window 20 ms, at most 4 checks)', () => {
  const options = { maxChecks: 4, now: T };
  it.each([
    ['one check on time: the end of the window', T, [check(0)], 20, T + 20],
    ['window 0: at once', T, [check(0)], 0, T],
    ['window 50, on time: slot + 50 is the window end too', T, [check(0)], 50, T + 50],
    ['a check 45 ms late joins: its slot + 50 comes first', T - 10, [check(10), check(45, 0)], 20, T + 5],
    ['a check 70 ms late joins: at once', T - 10, [check(10), check(70, 0)], 20, T],
    ['a check already overdue in an old batch: never before the batch opened', T, [check(90, 0)], 20, T],
    ['full: at once', T - 5, [check(5), check(4), check(2), check(0)], 20, T],
    ['one short of full: the window', T - 5, [check(5), check(4), check(2)], 20, T + 15],
  ])('%s', (_case, openedAt, checks, windowMs, expected) => {
    expect(flushAt(openedAt, checks, windowMs, options)).toBe(expected);
  });

  it('never sends a check later than its slot + 50 ms when it came in time, for any window up to 50 ms', () => {
    for (let windowMs = 0; windowMs <= 50; windowMs += 5) {
      for (let lateness = 0; lateness <= 60; lateness += 3) {
        for (let openedAgo = 0; openedAgo <= windowMs; openedAgo += 4) {
          const waiting = [check(openedAgo), check(lateness, 0)];
          const at = flushAt(T - openedAgo, waiting, windowMs, options);
          for (const w of waiting) expect(at).toBeLessThanOrEqual(Math.max(w.queuedAt, w.scheduledAt + 50));
          expect(at).toBeGreaterThanOrEqual(T - openedAgo);
        }
      }
    }
  });
});
