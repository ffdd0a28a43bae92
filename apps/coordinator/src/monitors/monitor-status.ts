/**
 * What a monitor's status is right now, as the API, the account counts and the public pages
 * show it. Pure: the stored `last_status` (the evaluator's) plus how long Picket has gone
 * without a decided result (docs/decisions/0001-truth-when-blind.md).
 */
import { isProbedType, type MonitorType } from '#contracts';
import type { LastStatus } from './monitor.entity.js';

/** The stored status, or `unknown` when Picket has not seen the monitor for too long. */
export type EffectiveStatus = LastStatus | 'unknown';

/**
 * Check intervals without an UP or DOWN result after which a monitor is `unknown`
 * (docs/decisions/0001-truth-when-blind.md): more than one, so a single late or lost check
 * does not flip it.
 */
export const UNKNOWN_AFTER_INTERVALS = 3;

export interface MonitorStatusInput {
  lastStatus: LastStatus;
  /** Unix seconds of the newest UP or DOWN result; null before the first. */
  lastCheckedAt: number | null;
  /** Unix seconds; where the count starts for a monitor never decided (so `pending` turns `unknown` too). */
  createdAt: number;
  /** Seconds between checks from each region. */
  checkInterval: number;
  /** A passive type (heartbeat) is never `unknown`: see effectiveStatus. */
  monitorType: MonitorType;
}

/**
 * `unknown` when more than UNKNOWN_AFTER_INTERVALS × check_interval seconds have passed since
 * the newest decided result (or since creation without one); otherwise the stored status. An
 * overlay only: nothing is stored, no incident opens, nobody is notified, and the stored status
 * shows again as soon as a decided result arrives. Paused monitors get it too (their checks run).
 * Only probed types: a heartbeat is never `unknown`.
 */
export function effectiveStatus(
  { lastStatus, lastCheckedAt, createdAt, checkInterval, monitorType }: MonitorStatusInput,
  nowSeconds: number,
): EffectiveStatus {
  // A heartbeat needs no agent: the coordinator itself decides it (a missed deadline is DOWN), so
  // lack of agents never blinds it (docs/decisions/0027-heartbeat-monitors.md).
  if (!isProbedType(monitorType)) return lastStatus;
  const since = lastCheckedAt ?? createdAt;
  return nowSeconds - since > UNKNOWN_AFTER_INTERVALS * checkInterval ? 'unknown' : lastStatus;
}
