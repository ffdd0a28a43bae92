/** Maintenance windows as the API answers them (docs/api.md), and the pure logic of their pages. */

import { timeParts } from './time.ts';

export type WindowState = 'scheduled' | 'in_progress' | 'ended';

export interface MaintenanceWindow {
  id: string;
  name: string;
  /** [] covers every monitor of the account. */
  monitors: string[];
  starts_at: number;
  ends_at: number | null;
  rrule: string | null;
  duration: number | null;
  timezone: string;
  active: boolean;
  state: WindowState;
  next_start_at: number | null;
  created_at: number;
  updated_at: number;
}

const STATE_RANK: Record<WindowState, number> = { in_progress: 0, scheduled: 1, ended: 2 };

/** Under way first, then the next to start, then inactive ones, then ended ones (newest first). */
export function sortWindows(windows: readonly MaintenanceWindow[]): MaintenanceWindow[] {
  const rank = (w: MaintenanceWindow) => (w.active ? STATE_RANK[w.state] : 1.5);
  return [...windows].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.next_start_at ?? Infinity) - (b.next_start_at ?? Infinity) ||
      b.starts_at - a.starts_at ||
      a.name.localeCompare(b.name),
  );
}

/** The windows covering a monitor now (active, under way, naming it or every monitor). */
export function coveringNow(windows: readonly MaintenanceWindow[], monitorId: string): MaintenanceWindow[] {
  return windows.filter(
    (w) => w.active && w.state === 'in_progress' && (w.monitors.length === 0 || w.monitors.includes(monitorId)),
  );
}

// ---- the RRULE builder ------------------------------------------------------------------

export const WEEKDAYS = [
  ['MO', 'Mon'],
  ['TU', 'Tue'],
  ['WE', 'Wed'],
  ['TH', 'Thu'],
  ['FR', 'Fri'],
  ['SA', 'Sat'],
  ['SU', 'Sun'],
] as const;
export type Weekday = (typeof WEEKDAYS)[number][0];

/** What the builder covers: every day, on chosen weekdays, or on a day of the month; anything else is `custom`. */
export type Repeat = { kind: 'daily' } | { kind: 'weekly'; days: Weekday[] } | { kind: 'monthly'; day: number };

/** The RRULE of a builder choice (the weekly days in week order; no days: every week on none is refused by the API). */
export function rruleOf(repeat: Repeat): string {
  switch (repeat.kind) {
    case 'daily':
      return 'FREQ=DAILY';
    case 'weekly': {
      const days = WEEKDAYS.map(([d]) => d).filter((d) => repeat.days.includes(d));
      return days.length === 0 ? 'FREQ=WEEKLY' : `FREQ=WEEKLY;BYDAY=${days.join(',')}`;
    }
    case 'monthly':
      return `FREQ=MONTHLY;BYMONTHDAY=${repeat.day}`;
  }
}

/** The builder choice an RRULE is, or null when the builder cannot show it (edited as text then). */
export function repeatOf(rrule: string): Repeat | null {
  const parts = new Map(
    rrule
      .trim()
      .toUpperCase()
      .split(';')
      .filter(Boolean)
      .map((part) => part.split('=') as [string, string | undefined]),
  );
  const freq = parts.get('FREQ');
  const only = (...keys: string[]) => [...parts.keys()].every((k) => keys.includes(k));
  if (freq === 'DAILY' && only('FREQ')) return { kind: 'daily' };
  if (freq === 'WEEKLY' && only('FREQ', 'BYDAY')) {
    const days = (parts.get('BYDAY') ?? '').split(',').filter(Boolean);
    const known = WEEKDAYS.map(([d]) => d as string);
    if (days.every((d) => known.includes(d))) return { kind: 'weekly', days: days as Weekday[] };
    return null;
  }
  if (freq === 'MONTHLY' && only('FREQ', 'BYMONTHDAY')) {
    const day = Number(parts.get('BYMONTHDAY'));
    if (Number.isInteger(day) && day >= 1 && day <= 31) return { kind: 'monthly', day };
  }
  return null;
}

/** An RRULE in words where the builder knows it (`every Mon, Wed`), else the rule itself. */
export function describeRrule(rrule: string): string {
  const repeat = repeatOf(rrule);
  if (repeat === null) return rrule;
  switch (repeat.kind) {
    case 'daily':
      return 'every day';
    case 'weekly': {
      const names = WEEKDAYS.filter(([d]) => repeat.days.includes(d)).map(([, name]) => name);
      return names.length === 0 ? 'every week' : `every ${names.join(', ')}`;
    }
    case 'monthly':
      return `every month on day ${repeat.day}`;
  }
}

// ---- wall-clock times in a zone --------------------------------------------------------

/** `YYYY-MM-DDTHH:mm` (a datetime-local input's value) of a Unix time in `timeZone`. */
export function wallTime(unixSeconds: number, timeZone: string): string {
  const parts = timeParts(unixSeconds, {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/**
 * The Unix time of a wall-clock `YYYY-MM-DDTHH:mm` in `timeZone`; null when the text is not
 * one or the zone is unknown. A time that does not exist there (a spring-forward gap) comes out
 * an hour later; one that exists twice, as the later of the two.
 */
export function unixOfWallTime(text: string, timeZone: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(text);
  if (!match) return null;
  const [y, mo, d, h, mi] = match.slice(1).map(Number) as [number, number, number, number, number];
  const asUtc = Date.UTC(y, mo - 1, d, h, mi) / 1000;
  try {
    // The zone's offset near that instant, twice (the second pass settles across an offset change).
    let guess = asUtc;
    for (let i = 0; i < 2; i += 1) guess = asUtc - offsetAt(guess, timeZone);
    return guess;
  } catch {
    return null;
  }
}

/** Seconds `timeZone` is ahead of UTC at a Unix time. */
function offsetAt(unixSeconds: number, timeZone: string): number {
  const shown = wallTime(unixSeconds, timeZone);
  const [date = '', time = ''] = shown.split('T');
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi] = time.split(':').map(Number) as [number, number];
  const minute = Math.floor(unixSeconds / 60) * 60;
  return Date.UTC(y, mo - 1, d, h, mi) / 1000 - minute;
}

/** The browser's IANA zone (the form's default). */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

// ---- the preview of a window's occurrences ----------------------------------------------

/** One occurrence as `POST /api/maintenance_windows/preview` lists it: `[starts_at, ends_at)`. */
export interface Occurrence {
  starts_at: number;
  ends_at: number;
}

/** How many of the preview's occurrences (the API gives 10) the form shows. */
export const PREVIEW_SHOWN = 5;

/** `zone` when the browser can format times in it, else `UTC`. */
export function displayZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
}

/** An instant in words in `timeZone`, with the weekday: `Sun, 28 Mar 2027, 03:00`. */
export function zonedDateTime(unix: number, timeZone: string): string {
  const p = timeParts(unix, {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return `${p.weekday}, ${p.day} ${p.month} ${p.year}, ${p.hour}:${p.minute}`;
}

/**
 * An occurrence in words, in `timeZone`: its start (zonedDateTime) and its end, the time alone
 * when it ends on the same local day.
 */
export function occurrenceText(o: Occurrence, timeZone: string): { start: string; end: string } {
  const full = (unix: number) => zonedDateTime(unix, timeZone);
  const sameDay = wallTime(o.starts_at, timeZone).slice(0, 10) === wallTime(o.ends_at, timeZone).slice(0, 10);
  return { start: full(o.starts_at), end: sameDay ? wallTime(o.ends_at, timeZone).slice(11) : full(o.ends_at) };
}
