import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  isSlot,
  lastSlotIndex,
  nextRegionIndex,
  nextSlot,
  phaseOf,
  regionOffsetMs,
  rotationPlan,
  slotAt,
  slotsBetween,
  type RotationPlan,
  type Slot,
} from './rotation.js';

/** Deterministic 24-hex ids (xorshift32), so a distribution failure replays. */
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

/** Ids as one process makes them in one second: same timestamp and process bytes, counter + 1. */
function sequentialIds(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => '69a1b2c3' + 'deadbeef42' + (0x00ff00 + i).toString(16).padStart(6, '0'),
  );
}

/** Every slot in [from, to], by brute force over the definition. */
function slotsByDefinition(plan: RotationPlan, from: number, to: number): Slot[] {
  const slots: Slot[] = [];
  const firstCycle = Math.floor((from - plan.phaseMs) / plan.intervalMs) - 1;
  for (let k = firstCycle; plan.phaseMs + k * plan.intervalMs <= to; k++) {
    for (let i = 0; i < plan.regionCount; i++) {
      const at = plan.phaseMs + Math.floor((i * plan.intervalMs) / plan.regionCount) + k * plan.intervalMs;
      if (at >= from && at <= to) slots.push({ at, regionIndex: i });
    }
  }
  return slots;
}

function tenthsHistogram(ids: string[], intervalMs: number): number[] {
  const buckets = new Array<number>(10).fill(0);
  for (const id of ids) {
    const bucket = Math.floor((phaseOf(id, intervalMs) * 10) / intervalMs);
    buckets[bucket] = (buckets[bucket] ?? 0) + 1;
  }
  return buckets;
}

describe('rotation', () => {
  const monitorId = '69a1b2c3deadbeef42000001';

  it('staggers 3 regions over 60 s: phase, phase+20 s, phase+40 s, then +60 s', () => {
    const plan = rotationPlan(monitorId, 60_000, 3);
    const phase = plan.phaseMs;
    const slots: Slot[] = [];
    let t = phase - 1; // at-or-after the phase
    for (let i = 0; i < 7; i++) {
      const slot = nextSlot(plan, t);
      slots.push(slot);
      t = slot.at;
    }
    expect(slots).toEqual([
      { at: phase, regionIndex: 0 },
      { at: phase + 20_000, regionIndex: 1 },
      { at: phase + 40_000, regionIndex: 2 },
      { at: phase + 60_000, regionIndex: 0 },
      { at: phase + 80_000, regionIndex: 1 },
      { at: phase + 100_000, regionIndex: 2 },
      { at: phase + 120_000, regionIndex: 0 },
    ]);
  });

  it.each([
    // interval ms, regions → offsets (integer ms, floor of i·I/n)
    [60_000, 1, [0]],
    [60_000, 2, [0, 30_000]],
    [10_000, 7, [0, 1428, 2857, 4285, 5714, 7142, 8571]],
    [600_000, 15, Array.from({ length: 15 }, (_, i) => i * 40_000)],
  ])('offsets for I=%i ms over %i regions', (interval, n, offsets) => {
    const plan = rotationPlan(monitorId, interval, n);
    expect(offsets.map((_, i) => regionOffsetMs(plan, i))).toEqual(offsets);
  });

  it('nextSlot is strictly after its argument: a slot exactly at t is already reached', () => {
    const plan: RotationPlan = { phaseMs: 1_000, intervalMs: 60_000, regionCount: 3 };
    const table: [number, Slot][] = [
      [0, { at: 1_000, regionIndex: 0 }],
      [999, { at: 1_000, regionIndex: 0 }],
      [1_000, { at: 21_000, regionIndex: 1 }],
      [20_999, { at: 21_000, regionIndex: 1 }],
      [21_000, { at: 41_000, regionIndex: 2 }],
      [41_000, { at: 61_000, regionIndex: 0 }],
      [-59_001, { at: -59_000, regionIndex: 0 }],
      [-59_000, { at: -39_000, regionIndex: 1 }],
      [Date.UTC(2026, 0, 1), { at: Date.UTC(2026, 0, 1) + 1_000, regionIndex: 0 }],
    ];
    for (const [after, slot] of table) expect([after, nextSlot(plan, after)]).toEqual([after, slot]);
  });

  it('agrees with the definition for any plan and time (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 600 }),
        fc.integer({ min: 1, max: 15 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1_500_000_000_000, max: 2_500_000_000_000 }),
        (seconds, n, phaseFraction, t) => {
          const intervalMs = seconds * 1000;
          const plan: RotationPlan = { phaseMs: Math.floor(phaseFraction * intervalMs), intervalMs, regionCount: n };
          const expected = slotsByDefinition(plan, t + 1, t + 2 * intervalMs);
          expect(nextSlot(plan, t)).toEqual(expected[0]);
          const last = slotAt(plan, lastSlotIndex(plan, t));
          expect(last.at).toBeLessThanOrEqual(t);
          expect(slotAt(plan, lastSlotIndex(plan, t) + 1).at).toBeGreaterThan(t);
          expect(slotsBetween(plan, t, t + 2 * intervalMs)).toBe(expected.length);
          for (const slot of expected) expect(isSlot(plan, slot.at)).toBe(true);
          const firstSlot = expected[0];
          if (firstSlot && firstSlot.at > t + 1) expect(isSlot(plan, firstSlot.at - 1)).toBe(false);
        },
      ),
      { seed: 20260101, numRuns: 500 },
    );
  });

  it('counts slots in half-open ranges', () => {
    const plan: RotationPlan = { phaseMs: 0, intervalMs: 60_000, regionCount: 3 };
    expect(slotsBetween(plan, 0, 0)).toBe(0);
    expect(slotsBetween(plan, 0, 19_999)).toBe(0);
    expect(slotsBetween(plan, 0, 20_000)).toBe(1);
    expect(slotsBetween(plan, -1, 20_000)).toBe(2);
    expect(slotsBetween(plan, 0, 600_000)).toBe(30);
    expect(slotsBetween(plan, 10, 5)).toBe(0);
  });

  it('derives the phase deterministically from the id and the interval, inside [0, I)', () => {
    for (const id of randomIds(200, 7)) {
      for (const interval of [1, 2, 10_000, 60_000, 600_000]) {
        const phase = phaseOf(id, interval);
        expect(Number.isInteger(phase)).toBe(true);
        expect(phase).toBeGreaterThanOrEqual(0);
        expect(phase).toBeLessThan(interval);
        expect(phaseOf(id, interval)).toBe(phase);
      }
    }
    expect(phaseOf('69a1b2c3deadbeef42000001', 60_000)).not.toBe(phaseOf('69a1b2c3deadbeef42000002', 60_000));
  });

  it.each([
    ['1000 random ids', randomIds(1000, 42)],
    ['1000 random ids, another seed', randomIds(1000, 4242)],
    ['1000 ids made by one process in one second', sequentialIds(1000)],
  ])('spreads phases evenly: %s put 5–15 %% into every tenth of the interval', (_, ids) => {
    for (const interval of [10_000, 60_000, 300_000, 600_000]) {
      const histogram = tenthsHistogram(ids, interval);
      for (const count of histogram) {
        expect(count).toBeGreaterThanOrEqual(50);
        expect(count).toBeLessThanOrEqual(150);
      }
    }
  });

  it.each([
    [0, 3, 1],
    [1, 3, 2],
    [2, 3, 0],
    [0, 1, 0],
    [14, 15, 0],
    [4, 3, 2], // a stale index from before a region change wraps
  ])('nextRegionIndex(%i, %i) = %i', (index, n, next) => {
    expect(nextRegionIndex(index, n)).toBe(next);
  });

  it('refuses impossible plans', () => {
    expect(() => rotationPlan(monitorId, 60_000, 0)).toThrow(RangeError);
    expect(() => rotationPlan(monitorId, 2, 3)).toThrow(RangeError);
    expect(() => phaseOf(monitorId, 0)).toThrow(RangeError);
    expect(() => phaseOf(monitorId, 1.5)).toThrow(RangeError);
    expect(() => nextRegionIndex(-1, 3)).toThrow(RangeError);
    expect(() => nextRegionIndex(0, 0)).toThrow(RangeError);
  });
});
