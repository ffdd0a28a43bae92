import { avalanche32 } from '#runtime';

/**
 * The schedule maths of docs/decisions/0005-checks-and-status.md, pure and in integer milliseconds.
 *
 * A monitor with n regions (in its stored order) and interval I is checked from region i at
 *
 *     phase + offset(i) + k·I        for every integer k, where offset(i) = ⌊i·I/n⌋
 *
 * and `phase` ∈ [0, I) comes from a hash of the monitor id, so monitors created together still
 * spread evenly over the interval. Slots are anchored to the Unix epoch (k counts intervals
 * since then), so the same monitor gets the same slots in every process and after a restart.
 *
 * Every slot has a global index j = k·n + i, in time order; `slotAt` and `lastSlotIndex`
 * convert between the two, and the rest is built on them.
 *
 * Slot boundary: `nextSlot(plan, t)` is the first slot STRICTLY after t. A slot exactly at t
 * counts as already reached (the scheduler dispatches it at t), so re-planning at t never
 * produces the same slot twice. For "at or after t" ask for `nextSlot(plan, t - 1)`.
 */

export interface RotationPlan {
  /** ms in [0, intervalMs): where region 0's slots fall within each interval. */
  readonly phaseMs: number;
  readonly intervalMs: number;
  /** n, the number of regions (≥ 1). */
  readonly regionCount: number;
}

export interface Slot {
  /** When the check is due, ms since the epoch. */
  readonly at: number;
  /** Index into the monitor's regions (stored order). */
  readonly regionIndex: number;
}

/** The plan of a monitor: its phase for this interval and its region count. */
export function rotationPlan(monitorId: string, intervalMs: number, regionCount: number): RotationPlan {
  if (!Number.isSafeInteger(regionCount) || regionCount < 1) {
    throw new RangeError(`regionCount must be a positive integer, got ${regionCount}`);
  }
  if (intervalMs < regionCount) {
    throw new RangeError(`intervalMs (${intervalMs}) must be at least regionCount (${regionCount})`);
  }
  return { phaseMs: phaseOf(monitorId, intervalMs), intervalMs, regionCount };
}

/**
 * The monitor's phase in [0, intervalMs): a 53-bit hash of the id mapped uniformly onto the
 * interval. Deterministic; ids that differ in one character land far apart.
 */
export function phaseOf(monitorId: string, intervalMs: number): number {
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 1) {
    throw new RangeError(`intervalMs must be a positive integer, got ${intervalMs}`);
  }
  const fraction = hash53(monitorId) / 2 ** 53;
  return Math.min(intervalMs - 1, Math.floor(fraction * intervalMs));
}

/** Offset of region i's slot within each interval: ⌊i·I/n⌋ ms after the phase. */
export function regionOffsetMs(plan: RotationPlan, regionIndex: number): number {
  return Math.floor((regionIndex * plan.intervalMs) / plan.regionCount);
}

/** The slot with global index j (k = ⌊j/n⌋ intervals after the epoch, region j mod n). */
export function slotAt(plan: RotationPlan, index: number): Slot {
  const n = plan.regionCount;
  const cycle = Math.floor(index / n);
  const regionIndex = index - cycle * n;
  return { at: plan.phaseMs + cycle * plan.intervalMs + regionOffsetMs(plan, regionIndex), regionIndex };
}

/** The global index of the last slot at or before t (slots exactly at t included). */
export function lastSlotIndex(plan: RotationPlan, t: number): number {
  const { intervalMs: interval, regionCount: n } = plan;
  const cycle = Math.floor((t - plan.phaseMs) / interval);
  const within = t - plan.phaseMs - cycle * interval; // integer in [0, interval)
  // offsets ⌊i·I/n⌋ ≤ within  ⇔  i < (within + 1)·n / I: that many regions have had their slot.
  const reached = Math.ceil(((within + 1) * n) / interval);
  return cycle * n + reached - 1;
}

/** The first slot strictly after `afterMs` (see the note on the slot boundary above). */
export function nextSlot(plan: RotationPlan, afterMs: number): Slot {
  return slotAt(plan, lastSlotIndex(plan, afterMs) + 1);
}

/** How many slots fall in (fromMs, toMs]: 0 when toMs ≤ fromMs. */
export function slotsBetween(plan: RotationPlan, fromMs: number, toMs: number): number {
  return toMs <= fromMs ? 0 : lastSlotIndex(plan, toMs) - lastSlotIndex(plan, fromMs);
}

/** Whether t is exactly one of the plan's slots. */
export function isSlot(plan: RotationPlan, t: number): boolean {
  return slotAt(plan, lastSlotIndex(plan, t)).at === t;
}

/** The region after `regionIndex` in the rotation, wrapping; an index ≥ n is taken modulo n. */
export function nextRegionIndex(regionIndex: number, regionCount: number): number {
  if (!Number.isSafeInteger(regionCount) || regionCount < 1) {
    throw new RangeError(`regionCount must be a positive integer, got ${regionCount}`);
  }
  if (!Number.isSafeInteger(regionIndex) || regionIndex < 0) {
    throw new RangeError(`regionIndex must be a non-negative integer, got ${regionIndex}`);
  }
  return (regionIndex + 1) % regionCount;
}

/** Two 32-bit lanes over the UTF-16 code units, finalised with avalanche mixing; 53 bits out. */
function hash53(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x2545f491 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x9e3779b1);
    b = (b << 15) | (b >>> 17);
  }
  const high = avalanche32(a ^ Math.imul(b, 0x27d4eb2d));
  const low = avalanche32(b ^ high ^ Math.imul(a, 0x165667b1));
  return (high >>> 11) * 2 ** 32 + low;
}
