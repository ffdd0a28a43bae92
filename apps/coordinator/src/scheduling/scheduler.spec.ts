import { beforeEach, describe, expect, it } from '@jest/globals';
import type { RegionId } from '#contracts';
import { ManualClock } from '#runtime';
import { nextSlot, phaseOf, rotationPlan } from './rotation.js';
import { Scheduler, type DueCheck, type SchedulerOptions } from './scheduler.js';
import { ManualTimers } from './timers.js';

const T0 = Date.UTC(2026, 0, 1);
const A: RegionId = 'us-east-1';
const B: RegionId = 'eu-west-1';
const C: RegionId = 'ap-southeast-1';
const M1 = '69a1b2c3deadbeef42000001';
const M2 = '69a1b2c3deadbeef42000002';
const M3 = '69a1b2c3deadbeef42000003';

/** Deterministic 24-hex ids (xorshift32). */
function randomIds(count: number, seed: number): string[] {
  let x = seed >>> 0 || 1;
  const word = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x.toString(16).padStart(8, '0');
  };
  return Array.from({ length: count }, () => word() + word() + word());
}

interface Fired extends DueCheck {
  firedAt: number;
}

let clock: ManualClock;
let timers: ManualTimers;
let fired: Fired[];
let lateness: number[];
let skipped: [string, number][];

function scheduler(options: Partial<SchedulerOptions> = {}): Scheduler {
  return new Scheduler({
    clock,
    timers,
    dispatch: (due) => fired.push({ ...due, firedAt: clock.now() }),
    onLateness: (lateMs) => lateness.push(lateMs),
    onSkipped: (monitorId, slots) => skipped.push([monitorId, slots]),
    ...options,
  });
}

/** 1 ms before the monitor's first region-0 slot after T0 (T0 is a whole minute). */
function justBeforeRegionZero(monitorId: string, intervalMs: number): number {
  return T0 + intervalMs + phaseOf(monitorId, intervalMs) - 1;
}

const of = (monitorId: string) => fired.filter((f) => f.monitorId === monitorId);
const brief = (f: Fired) => [f.monitorId, f.region, f.scheduledAt, f.confirmation] as const;

beforeEach(() => {
  clock = new ManualClock(T0);
  timers = new ManualTimers(clock);
  fired = [];
  lateness = [];
  skipped = [];
});

describe('Scheduler', () => {
  it('checks each region at its staggered slot: phase, +20 s, +40 s, then +60 s, on time', () => {
    clock.set(justBeforeRegionZero(M1, 60_000));
    const s = scheduler();
    expect(s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [A, B, C] })).toBe('added');
    s.start();
    timers.advance(180_001);

    const phase = phaseOf(M1, 60_000);
    const base = T0 + 60_000 + phase;
    expect(fired.map(brief)).toEqual([
      [M1, A, base, false],
      [M1, B, base + 20_000, false],
      [M1, C, base + 40_000, false],
      [M1, A, base + 60_000, false],
      [M1, B, base + 80_000, false],
      [M1, C, base + 100_000, false],
      [M1, A, base + 120_000, false],
      [M1, B, base + 140_000, false],
      [M1, C, base + 160_000, false],
      [M1, A, base + 180_000, false],
    ]);
    expect(fired.map((f) => f.regionIndex)).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
    expect(fired.every((f) => f.firedAt === f.scheduledAt)).toBe(true);
    expect(lateness).toEqual(new Array(10).fill(0));
  });

  it('starts a new monitor at its next slot, whichever region that is', () => {
    const s = scheduler();
    s.upsert({ monitorId: M2, intervalSeconds: 60, regions: [A, B, C] });
    const next = nextSlot(rotationPlan(M2, 60_000, 3), T0);
    expect(s.upcoming(M2)).toEqual({ next, confirmation: null });
    expect(next.at - T0).toBeLessThanOrEqual(20_000);
    s.start();
    timers.advance(20_000);
    expect(fired.map((f) => [f.scheduledAt, f.regionIndex])).toEqual([[next.at, next.regionIndex]]);
  });

  it('dispatches in due order across monitors, exact scheduledAt, ties in planning order', () => {
    const s = scheduler();
    const ids = randomIds(50, 3);
    for (const [i, id] of ids.entries())
      s.upsert({ monitorId: id, intervalSeconds: 30, regions: i % 2 ? [A, B] : [C] });
    s.start();
    timers.advance(90_000);
    for (const [i, id] of ids.entries()) {
      const plan = rotationPlan(id, 30_000, i % 2 ? 2 : 1);
      const expected: number[] = [];
      for (let slot = nextSlot(plan, T0); slot.at <= T0 + 90_000; slot = nextSlot(plan, slot.at))
        expected.push(slot.at);
      expect(of(id).map((f) => f.scheduledAt)).toEqual(expected);
    }
    const times = fired.map((f) => f.scheduledAt);
    expect(times).toEqual([...times].sort((x, y) => x - y));

    // Ties: confirmations due at the same ms fire in the order they were asked for.
    fired = [];
    s.confirmNow(ids[7] as string, 0);
    s.confirmNow(ids[3] as string, 0);
    s.confirmNow(ids[5] as string, 0);
    timers.advance(1);
    expect(fired.filter((f) => f.confirmation).map((f) => f.monitorId)).toEqual([ids[7], ids[3], ids[5]]);
  });

  it('keeps one timer however many monitors it schedules', () => {
    const s = scheduler();
    s.start();
    for (const id of randomIds(1000, 11)) s.upsert({ monitorId: id, intervalSeconds: 60, regions: [A, B, C] });
    expect(timers.active).toBe(1);
    // Re-armed only when a new monitor is due before every earlier one.
    expect(timers.sets).toBeLessThan(40);
    timers.advance(60_000);
    expect(fired).toHaveLength(3000);
    expect(timers.maxActive).toBe(1);
    expect(timers.active).toBe(1);
  });

  it('reports lateness (now − scheduledAt) for every dispatch', () => {
    const s = scheduler();
    s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [A, B, C] });
    s.start();
    const next = s.upcoming(M1)?.next.at as number;
    timers.advance(next - T0 - 1);
    expect(fired).toEqual([]);
    timers.jump(1_500); // the loop was blocked 1.5 s across the slot
    expect(fired.map((f) => [f.scheduledAt, f.firedAt])).toEqual([[next, next + 1_499]]);
    expect(lateness).toEqual([1_499]);
    timers.advance(20_000);
    expect(fired.map((f) => f.scheduledAt)).toEqual([next, next + 20_000]);
    expect(lateness).toEqual([1_499, 0]);
  });

  it('applies a new interval or new regions at once; an unchanged entry keeps its plan', () => {
    clock.set(justBeforeRegionZero(M1, 60_000));
    const s = scheduler();
    s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [A, B, C] });
    s.start();
    const first = s.upcoming(M1)?.next.at as number;
    timers.advance(first - clock.now());
    expect(fired.map(brief)).toEqual([[M1, A, first, false]]);
    const before = s.upcoming(M1);
    expect(s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [A, B, C] })).toBe('unchanged');
    expect(s.upcoming(M1)).toEqual(before);

    // Interval 60 s → 10 s, regions [A,B,C] → [C, A]: the old slot at first + 20 s never fires.
    fired = [];
    const now = clock.now();
    expect(s.upsert({ monitorId: M1, intervalSeconds: 10, regions: [C, A] })).toBe('updated');
    const plan = rotationPlan(M1, 10_000, 2);
    const expected: (readonly [string, RegionId, number, boolean])[] = [];
    for (let slot = nextSlot(plan, now); slot.at <= now + 30_000; slot = nextSlot(plan, slot.at)) {
      expected.push([M1, slot.regionIndex === 0 ? C : A, slot.at, false]);
    }
    timers.advance(30_000);
    expect(fired.map(brief)).toEqual(expected);
    expect(expected).toHaveLength(6);
    expect(expected[0]?.[2]).toBeLessThanOrEqual(now + 5_000); // within one region gap, not an interval
    expect(fired.some((f) => f.scheduledAt === first + 20_000)).toBe(false);
    expect(timers.maxActive).toBe(1);
  });

  it('never fires a removed monitor again, even re-entrantly or when the id comes back', () => {
    const s = scheduler({
      dispatch: (due) => {
        fired.push({ ...due, firedAt: clock.now() });
        if (due.monitorId === M2) s.remove(M3); // removal from inside a dispatch
      },
    });
    for (const id of [M1, M2, M3]) s.upsert({ monitorId: id, intervalSeconds: 60, regions: [A, B] });
    s.start();
    s.confirmNow(M1, 0);
    expect(s.remove(M1)).toBe(true);
    expect(s.remove(M1)).toBe(false);
    timers.advance(600_000);
    expect(of(M1)).toEqual([]);
    expect(of(M2)).toHaveLength(20);
    const lastM2 = of(M2)[0]?.scheduledAt as number;
    expect(of(M3).every((f) => f.scheduledAt <= lastM2)).toBe(true);
    expect(s.has(M3)).toBe(false);

    // Back under the same id: a fresh plan, and nothing of the old one.
    s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [A, B] });
    fired = [];
    timers.advance(60_000);
    expect(of(M1).map((f) => f.region)).toHaveLength(2);
    expect(new Set(of(M1).map((f) => f.scheduledAt)).size).toBe(2);
  });

  it('confirmation: the next region checks at once, only once, and the regular rotation carries on', () => {
    clock.set(justBeforeRegionZero(M1, 60_000));
    const control = scheduler({ dispatch: () => undefined, onLateness: undefined, onSkipped: undefined });
    const s = scheduler();
    for (const x of [s, control]) x.upsert({ monitorId: M1, intervalSeconds: 60, regions: [A, B, C] });
    s.start();
    control.start();
    const first = s.upcoming(M1)?.next.at as number;
    timers.advance(first - clock.now() + 3_000); // A ran at `first`; its result comes 3 s later

    expect(s.confirmNow(M1, 0)).toBe(true);
    expect(s.confirmNow(M1, 0)).toBe(false); // at most one pending
    expect(s.confirmNow('ffffffffffffffffffffffff', 0)).toBe(false);
    timers.advance(0);
    expect(fired.map(brief)).toEqual([
      [M1, A, first, false],
      [M1, B, first + 3_000, true],
    ]);
    expect(fired[1]?.regionIndex).toBe(1);

    // Regular slots are untouched: B at +20 s, C at +40 s, A at +60 s.
    fired = [];
    timers.advance(60_000);
    expect(fired.map(brief)).toEqual([
      [M1, B, first + 20_000, false],
      [M1, C, first + 40_000, false],
      [M1, A, first + 60_000, false],
    ]);
    expect(s.upcoming(M1)).toEqual(control.upcoming(M1));

    // After the last region, the rotation wraps to the first.
    fired = [];
    s.confirmNow(M1, 2);
    timers.advance(0);
    expect(fired.map((f) => [f.region, f.regionIndex, f.confirmation])).toEqual([[A, 0, true]]);
  });

  it('keeps (monitor, scheduledAt) unique: a confirmation on a slot ms or after another moves on 1 ms', () => {
    clock.set(justBeforeRegionZero(M1, 60_000));
    const s = scheduler({
      dispatch: (due) => {
        fired.push({ ...due, firedAt: clock.now() });
        if (!due.confirmation && due.regionIndex === 0) s.confirmNow(due.monitorId, due.regionIndex);
      },
    });
    s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [A, B] });
    s.start();
    const first = s.upcoming(M1)?.next.at as number;
    timers.advance(first - clock.now() + 1);
    expect(fired.map(brief)).toEqual([
      [M1, A, first, false],
      [M1, B, first + 1, true],
    ]);
    // A second confirmation in the same ms as the first one's dispatch.
    s.confirmNow(M1, 1);
    timers.advance(5);
    expect(fired.map((f) => f.scheduledAt)).toEqual([first, first + 1, first + 2]);
  });

  it('carries a pending confirmation over a region change when its region stays', () => {
    const s = scheduler();
    s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [A, B, C] });
    s.confirmNow(M1, 0); // B pending
    s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [C, B] });
    s.upsert({ monitorId: M2, intervalSeconds: 60, regions: [A, B, C] });
    s.confirmNow(M2, 0); // B pending
    s.upsert({ monitorId: M2, intervalSeconds: 60, regions: [A, B] });
    s.upsert({ monitorId: M3, intervalSeconds: 60, regions: [A, B, C] });
    s.confirmNow(M3, 0); // B pending
    s.upsert({ monitorId: M3, intervalSeconds: 60, regions: [A, C] }); // B gone: dropped
    s.start();
    timers.advance(0);
    expect(fired.map((f) => [f.monitorId, f.region, f.regionIndex, f.confirmation])).toEqual([
      [M1, B, 1, true],
      [M2, B, 1, true],
    ]);
  });

  it('after a long pause fires each overdue monitor once, late, then resumes at its next slot', () => {
    const s = scheduler({ maxPerTick: 7 });
    const ids = randomIds(100, 5);
    for (const id of ids) s.upsert({ monitorId: id, intervalSeconds: 60, regions: [A, B, C] });
    s.start();
    timers.advance(60_000);
    expect(fired).toHaveLength(300);

    fired = [];
    lateness = [];
    timers.jump(600_000); // ten minutes with the loop blocked (or the clock jumped)
    const jumpedTo = clock.now();
    expect(fired).toHaveLength(100);
    expect(new Set(fired.map((f) => f.monitorId)).size).toBe(100);
    expect(fired.every((f) => f.firedAt === jumpedTo && f.scheduledAt < jumpedTo - 540_000)).toBe(true);
    expect(Math.min(...lateness)).toBeGreaterThan(540_000);
    // 10 min × 3 slots a minute, minus the one fired: 29 or 30 slots passed over per monitor.
    expect(skipped).toHaveLength(100);
    expect(skipped.every(([, n]) => n === 29 || n === 30)).toBe(true);

    fired = [];
    timers.advance(60_000);
    for (const id of ids) {
      const plan = rotationPlan(id, 60_000, 3);
      const expected: number[] = [];
      for (let slot = nextSlot(plan, jumpedTo - 1); slot.at <= jumpedTo + 60_000; slot = nextSlot(plan, slot.at)) {
        expected.push(slot.at);
      }
      expect(of(id).map((f) => f.scheduledAt)).toEqual(expected);
    }
    expect(fired.every((f) => f.firedAt === f.scheduledAt)).toBe(true);
    expect(timers.maxActive).toBe(1);
  });

  it('stop() silences the timer; start() fires what is overdue once and resumes', () => {
    const s = scheduler();
    s.upsert({ monitorId: M1, intervalSeconds: 10, regions: [A] });
    s.start();
    timers.advance(10_000);
    expect(fired).toHaveLength(1);
    s.stop();
    expect(timers.active).toBe(0);
    timers.advance(100_000);
    expect(fired).toHaveLength(1);
    s.start();
    s.start();
    timers.advance(0);
    expect(fired).toHaveLength(2);
    expect(timers.active).toBe(1);
    timers.advance(10_000);
    expect(fired).toHaveLength(3);
  });

  it('a throwing dispatch neither stops the others nor the timer', () => {
    const errors: unknown[] = [];
    const s = scheduler({
      dispatch: (due) => {
        fired.push({ ...due, firedAt: clock.now() });
        throw new Error(`boom ${due.monitorId}`);
      },
      onDispatchError: (error) => errors.push(error),
    });
    s.upsert({ monitorId: M1, intervalSeconds: 10, regions: [A] });
    s.upsert({ monitorId: M2, intervalSeconds: 10, regions: [A] });
    s.start();
    timers.advance(20_000);
    expect(fired).toHaveLength(4);
    expect(errors).toHaveLength(4);

    // Without a handler the error surfaces from the timer callback, after re-arming.
    clock = new ManualClock(T0);
    timers = new ManualTimers(clock);
    fired = [];
    const bare = scheduler({
      dispatch: (due) => {
        fired.push({ ...due, firedAt: clock.now() });
        throw new Error('boom');
      },
    });
    bare.upsert({ monitorId: M1, intervalSeconds: 10, regions: [A] });
    bare.start();
    expect(() => timers.advance(10_000)).toThrow('boom');
    expect(timers.active).toBe(1);
    expect(() => timers.advance(10_000)).toThrow('boom');
    expect(fired).toHaveLength(2);
  });

  it('holds exactly the planned checks: re-planned and removed monitors leave nothing behind', () => {
    const s = scheduler();
    const ids = randomIds(3000, 9);
    for (const id of ids) s.upsert({ monitorId: id, intervalSeconds: 60, regions: [A, B] });
    for (const id of ids.slice(2000)) expect(s.confirmNow(id, 0)).toBe(true);
    for (const id of ids.slice(0, 2800)) s.upsert({ monitorId: id, intervalSeconds: 30, regions: [A, B] });
    // One region fewer: the confirmations planned for B (index 1) go with it.
    for (const id of ids.slice(2900)) s.upsert({ monitorId: id, intervalSeconds: 60, regions: [A] });
    for (const id of ids.slice(0, 2500)) s.remove(id);
    expect(s.size).toBe(500);
    // 500 regular slots, and the confirmations of ids 2500–2899 (their region B stayed).
    expect(s.queueLength).toBe(900);
    for (const id of ids.slice(2500, 2900)) expect(s.upcoming(id)?.confirmation?.regionIndex).toBe(1);
    for (const id of ids.slice(2900)) expect(s.upcoming(id)?.confirmation).toBeNull();
    s.start();
    timers.advance(60_000);
    // The confirmations fired, then each monitor's regular slots; nothing of a removed monitor.
    expect(fired.filter((f) => f.confirmation)).toHaveLength(400);
    expect(new Set(fired.map((f) => f.monitorId))).toEqual(new Set(ids.slice(2500)));
    expect(s.queueLength).toBe(500);
  });

  it('refuses entries it cannot plan', () => {
    const s = scheduler();
    expect(() => s.upsert({ monitorId: M1, intervalSeconds: 60, regions: [] })).toThrow(RangeError);
    expect(() => s.upsert({ monitorId: M1, intervalSeconds: 0, regions: [A] })).toThrow(RangeError);
    expect(() => s.upsert({ monitorId: '', intervalSeconds: 60, regions: [A] })).toThrow(RangeError);
    expect(() => scheduler({ maxPerTick: 0 })).toThrow(RangeError);
    expect(s.size).toBe(0);
  });

  it('100k monitors: every (monitor, region) dispatched exactly once over one interval, one timer', () => {
    const s = scheduler({ onLateness: undefined, onSkipped: undefined, dispatch: (due) => counts(due) });
    const regionSets: RegionId[][] = [[A], [A, B], [A, B, C]];
    const ids = randomIds(100_000, 2026);
    const seen = new Map<string, number[]>();
    let total = 0;
    let last = -Infinity;
    let outOfOrder = 0;
    let outside = 0;
    function counts(due: DueCheck): void {
      total++;
      if (due.scheduledAt < last) outOfOrder++;
      last = due.scheduledAt;
      if (due.scheduledAt <= T0 || due.scheduledAt > T0 + 60_000 || clock.now() !== due.scheduledAt) outside++;
      const row = seen.get(due.monitorId) ?? [0, 0, 0];
      row[due.regionIndex] = (row[due.regionIndex] ?? 0) + 1;
      seen.set(due.monitorId, row);
    }
    for (const [i, id] of ids.entries()) {
      s.upsert({ monitorId: id, intervalSeconds: 60, regions: regionSets[i % 3] as RegionId[] });
    }
    s.start();
    timers.advance(60_000);

    expect(total).toBe(33_334 * 1 + 33_333 * 2 + 33_333 * 3);
    expect(outOfOrder).toBe(0);
    expect(outside).toBe(0);
    expect(seen.size).toBe(100_000);
    let wrong = 0;
    for (const [i, id] of ids.entries()) {
      const n = (i % 3) + 1;
      const row = seen.get(id) ?? [];
      for (let r = 0; r < 3; r++) if ((row[r] ?? 0) !== (r < n ? 1 : 0)) wrong++;
    }
    expect(wrong).toBe(0);
    expect(timers.maxActive).toBe(1);
  });
});
