/**
 * The pure core of maintenance windows (docs/decisions/0026-maintenance-windows.md): for a window
 * and an instant (Unix seconds), whether it covers it, when the covering ends, the `state` and
 * the `next_start_at` the API shows, and the occurrences a preview lists. Coverage is half
 * open: [start, start + duration).
 */
import { occurrencesOf } from './recurrence.js';

export const WINDOW_STATES = ['scheduled', 'in_progress', 'ended'] as const;
export type WindowState = (typeof WINDOW_STATES)[number];

/** What the core needs of a window. */
export interface WindowSchedule {
  active: boolean;
  startsAt: number;
  /** One-off: the end. Null for a recurring window. */
  endsAt: number | null;
  /** Recurring: the RRULE, the duration (s) and the IANA zone. Null for a one-off window. */
  rrule: string | null;
  duration: number | null;
  timezone: string;
}

export interface WindowAt {
  /** The window covers this instant (it is active and an occurrence is under way). */
  covers: boolean;
  /** While covering: when the covering ends (overlapping or touching occurrences merged), else null. */
  coverEndsAt: number | null;
  state: WindowState;
  /** The next start strictly after the instant, or null when none is left. */
  nextStartAt: number | null;
}

/**
 * Occurrences that touch or overlap are merged into one covering, looked for this far after the
 * start of the one under way (an hourly rule with a 1 h duration covers for ever): at most 25
 * occurrences a day (recurrence.ts), so at most about 800 are expanded. A longer covering is
 * seen to end there, and to go on when that instant is asked about.
 */
export const MERGE_HORIZON_SECONDS = 31 * 86_400;

export function windowAt(window: WindowSchedule, now: number): WindowAt {
  let under: { start: number; end: number } | null = null;
  let next: number | null;
  let following: ((after: number, until: number) => number[]) | null = null;
  if (window.rrule === null || window.duration === null) {
    const end = window.endsAt ?? window.startsAt;
    if (window.startsAt <= now && now < end) under = { start: window.startsAt, end };
    next = window.startsAt > now ? window.startsAt : null;
  } else {
    const occurrences = occurrencesOf(window.rrule, window.startsAt, window.timezone);
    const latest = occurrences.latestAtOrBefore(now);
    if (latest !== null && now < latest + window.duration) under = { start: latest, end: latest + window.duration };
    next = occurrences.firstAfter(now);
    following = (after, until) => occurrences.between(after, until);
  }
  if (!window.active) {
    return { covers: false, coverEndsAt: null, state: next === null ? 'ended' : 'scheduled', nextStartAt: next };
  }
  if (under === null) {
    return { covers: false, coverEndsAt: null, state: next === null ? 'ended' : 'scheduled', nextStartAt: next };
  }
  let end = under.end;
  if (following !== null && window.duration !== null) {
    for (const n of following(under.start, under.start + MERGE_HORIZON_SECONDS)) {
      if (n > end) break;
      end = Math.max(end, n + window.duration);
    }
  }
  return { covers: true, coverEndsAt: end, state: 'in_progress', nextStartAt: next };
}

/**
 * windowAt, or, for a stored window whose rule the recurrence library cannot search (it gives up
 * on a rule that never occurs, such as BYMONTH=2;BYMONTHDAY=30; such rules are refused on write,
 * but rows stored before that check remain), the answer of an ended window: it covers nothing
 * and starts never, instead of failing every question about the account's maintenance (ingest
 * and evaluation ask it). `unsearchable` is told once per call that fell back.
 */
export function windowAtOrEnded(window: WindowSchedule, now: number, unsearchable: (error: unknown) => void): WindowAt {
  try {
    return windowAt(window, now);
  } catch (error) {
    unsearchable(error);
    return { covers: false, coverEndsAt: null, state: 'ended', nextStartAt: null };
  }
}

/** One occurrence of a window: `[startsAt, endsAt)`, Unix seconds. */
export interface Occurrence {
  startsAt: number;
  endsAt: number;
}

/** How many occurrences a preview lists (`POST /api/maintenance_windows/preview`). */
export const PREVIEW_COUNT = 10;

/**
 * The first `count` occurrences of a window's schedule that have not ended at `now`, by start:
 * those under way (started at or before `now`, ending after it; several when occurrences
 * overlap), then those to come, the first of which is `windowAt(...).nextStartAt`. The same
 * expansion as windowAt, so time zones and DST behave alike. A one-off window has one occurrence
 * (none once ended). `active` is not looked at: like `next_start_at`, the schedule of an
 * inactive window is listed as it would be if it were reactivated.
 */
export function upcomingOccurrences(window: WindowSchedule, now: number, count = PREVIEW_COUNT): Occurrence[] {
  if (count <= 0) return [];
  if (window.rrule === null || window.duration === null) {
    const end = window.endsAt ?? window.startsAt;
    return end > now || window.startsAt > now ? [{ startsAt: window.startsAt, endsAt: end }] : [];
  }
  const duration = window.duration;
  const occurrences = occurrencesOf(window.rrule, window.startsAt, window.timezone);
  // Under way: started in (now - duration, now]; at most duration / 1 h of them (at most hourly).
  const starts = occurrences.between(now - duration, now).slice(0, count);
  for (let after = now; starts.length < count;) {
    const next = occurrences.firstAfter(after);
    if (next === null) break;
    starts.push(next);
    after = next;
  }
  return starts.map((start) => ({ startsAt: start, endsAt: start + duration }));
}

/** Whether a window applies to a monitor: `[]` means every monitor of the account. */
export function appliesTo(monitors: readonly string[], monitorId: string): boolean {
  return monitors.length === 0 || monitors.includes(monitorId);
}

/** How far ahead public status pages list maintenance (docs/decisions/0026-maintenance-windows.md). */
export const UPCOMING_SECONDS = 7 * 86_400;

/**
 * The occurrence a public page lists for a window at `now`: the one under way (until the covering
 * ends), else the next one if it starts within `horizon` seconds; null otherwise.
 */
export function shownOccurrence(
  window: WindowSchedule,
  at: WindowAt,
  now: number,
  horizon = UPCOMING_SECONDS,
): { startsAt: number; endsAt: number; inProgress: boolean } | null {
  if (!window.active) return null;
  if (at.covers && at.coverEndsAt !== null) return { startsAt: now, endsAt: at.coverEndsAt, inProgress: true };
  if (at.nextStartAt === null || at.nextStartAt > now + horizon) return null;
  const length = window.rrule === null ? (window.endsAt ?? window.startsAt) - window.startsAt : (window.duration ?? 0);
  return { startsAt: at.nextStartAt, endsAt: at.nextStartAt + length, inProgress: false };
}
