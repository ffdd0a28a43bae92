/**
 * The windows of the monitor summary (docs/decisions/0031-monitor-summary.md), pure arithmetic
 * on Unix seconds: the last 24 hours for uptime, the UTC hours of the sparkline, the 30 UTC days,
 * and which of them are sealed (no result can still arrive in them without the writer saying so).
 */
import { LATE_AFTER_SECONDS } from '../history/results-writer.js';
import { dayOf, SECONDS_PER_DAY } from '../history/stats.js';

export const HOUR_SECONDS = 3_600;
/** Sparkline slices: the current UTC hour and the 23 before it. */
export const SPARKLINE_HOURS = 24;
/** Days of the 30-day uptime (today included), as GET /stats?period=30d. */
export const MONTH_DAYS = 30;
/**
 * An hour (or a day) is sealed once this long has passed since it ended: a result taken in it and stored
 * after that is late (more than LATE_AFTER_SECONDS after it was taken), which the ResultsWriter
 * counts (lateWrites), and a reader keeping sealed figures reads them again.
 */
export const SEAL_AFTER_SECONDS = 2 * LATE_AFTER_SECONDS;

export interface SummaryWindow {
  now: number;
  /** `now − 86400`: the 24 h uptime counts results in [from, now] (as /stats?period=24h). */
  from: number;
  /**
   * Slice 0 starts here: the UTC hour `from` falls in. Slice i covers
   * [origin + 3600 i, origin + 3600 (i + 1)); slice 0 counts only its part from `from` on
   * (uptime, not the sparkline), slices 1 to 24 are the sparkline's hours, the last the current one.
   */
  origin: number;
  /** Hours starting before this are sealed. */
  sealedBefore: number;
  /** The 30 days, as day numbers (dayOf), and the last sealed one. */
  fromDay: number;
  toDay: number;
  lastSealedDay: number;
}

const hourOf = (t: number) => Math.floor(t / HOUR_SECONDS) * HOUR_SECONDS;

export function summaryWindow(now: number): SummaryWindow {
  const from = now - SECONDS_PER_DAY;
  const toDay = dayOf(now);
  return {
    now,
    from,
    origin: hourOf(from),
    sealedBefore: hourOf(now - SEAL_AFTER_SECONDS),
    fromDay: toDay - (MONTH_DAYS - 1),
    toDay,
    lastSealedDay: dayOf(now - SEAL_AFTER_SECONDS) - 1,
  };
}

/** The slice of the window a result taken at `checkedAt` (within [from, now]) counts in. */
export function sliceOf(window: Pick<SummaryWindow, 'origin'>, checkedAt: number): number {
  return Math.floor((checkedAt - window.origin) / HOUR_SECONDS);
}
