/**
 * RFC 5545 recurrence rules for maintenance windows, through rrule-temporal (Temporal time zones;
 * the choice and its limits: docs/decisions/0026-maintenance-windows.md). Everything here is pure:
 * instants in, instants out, in Unix seconds.
 */
import { RRuleTemporal } from 'rrule-temporal';
import { Temporal } from 'temporal-polyfill';

/** The rule parts RFC 5545 §3.3.10 defines; anything else is refused before the library sees it. */
const PARTS = new Set([
  'FREQ',
  'UNTIL',
  'COUNT',
  'INTERVAL',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
]);
/** A window recurs at most hourly: a minutely or secondly one would be a permanent window. */
const FREQUENCIES = new Set(['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY']);
const MAX_RRULE_LENGTH = 500;
/** COUNT and INTERVAL at most (docs/decisions/0026-maintenance-windows.md). */
const MAX_COUNT = 1000;

const ZONE_PROBLEM = 'must be an IANA time zone such as Europe/Berlin';

/** Null when `zone` is an IANA time zone name the runtime knows (any case), else the problem. UTC offsets are not zones. */
export function timeZoneProblem(zone: unknown): string | null {
  if (typeof zone !== 'string' || zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+/-]*$/.test(zone)) return ZONE_PROBLEM;
  try {
    Temporal.Now.zonedDateTimeISO(zone);
    return null;
  } catch {
    return ZONE_PROBLEM;
  }
}

/** The zone's name as the time-zone database spells it (`europe/berlin` → `Europe/Berlin`); `zone` must pass timeZoneProblem. */
export function canonicalTimeZone(zone: string): string {
  return Temporal.Now.zonedDateTimeISO(zone).timeZoneId;
}

/** Null when `rule` is an RRULE value this server accepts (without the `RRULE:` prefix), else the problem. */
export function rruleProblem(rule: unknown): string | null {
  if (typeof rule !== 'string' || rule.trim() === '') return 'must be an RFC 5545 RRULE such as FREQ=WEEKLY;BYDAY=SU';
  if (rule.length > MAX_RRULE_LENGTH) return `must be at most ${MAX_RRULE_LENGTH} characters`;
  const seen = new Set<string>();
  for (const part of rule.split(';')) {
    const match = /^([A-Z]+)=([A-Z0-9,+-]+)$/.exec(part);
    if (!match) return `has a malformed part "${part}" (expected NAME=VALUE, upper case, separated by ;)`;
    const [, name, value] = match as unknown as [string, string, string];
    if (!PARTS.has(name)) return `has an unknown part ${name}`;
    if (seen.has(name)) return `has ${name} twice`;
    seen.add(name);
    if (name === 'FREQ' && !FREQUENCIES.has(value)) return 'FREQ must be YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY';
    if ((name === 'COUNT' || name === 'INTERVAL') && !/^[1-9][0-9]*$/.test(value)) {
      return `${name} must be a positive integer`;
    }
    // The library walks a COUNT rule from its first occurrence: bounded, so that is bounded too.
    if ((name === 'COUNT' || name === 'INTERVAL') && Number(value) > MAX_COUNT)
      return `${name} must be at most ${MAX_COUNT}`;
    if (name === 'UNTIL' && !/^[0-9]{8}T[0-9]{6}Z$/.test(value))
      return 'UNTIL must be a UTC date-time such as 20271231T235959Z';
    // One minute and one second of the hour: occurrences at most hourly, so at most 25 a day.
    if ((name === 'BYMINUTE' || name === 'BYSECOND') && value.includes(','))
      return `${name} must be one value (a window recurs at most hourly)`;
  }
  if (!seen.has('FREQ')) return 'must include FREQ';
  if (seen.has('COUNT') && seen.has('UNTIL')) return 'must not have both COUNT and UNTIL';
  try {
    ruleOf(rule, 0, 'UTC');
    return null;
  } catch (error) {
    return `is not a valid RRULE (${error instanceof Error ? error.message : String(error)})`;
  }
}

function ruleOf(rule: string, startsAt: number, timezone: string): RRuleTemporal {
  const dtstart = Temporal.Instant.fromEpochMilliseconds(startsAt * 1000).toZonedDateTimeISO(timezone);
  return new RRuleTemporal({ rruleString: rule, dtstart, tzid: timezone });
}

const secondsOf = (z: { epochMilliseconds: number }): number => Math.floor(z.epochMilliseconds / 1000);
const seconds = (z: { epochMilliseconds: number } | null): number | null => (z === null ? null : secondsOf(z));

/** The occurrences (start instants) of a recurring window, queried around instants. */
export interface Occurrences {
  /** The latest start at or before `at`, or null. */
  latestAtOrBefore(at: number): number | null;
  /** The first start strictly after `at`, or null. */
  firstAfter(at: number): number | null;
  /** The starts in (`after`, `until`], in order. */
  between(after: number, until: number): number[];
}

/**
 * The rule anchored at `startsAt` in `timezone`: occurrences keep their local wall-clock time
 * across DST changes (a 03:00 Sunday window stays at 03:00 local).
 *
 * The library walks a COUNT rule from its first occurrence on every question (the set depends
 * on the index from the start); so such a rule (at most MAX_COUNT occurrences) is expanded once
 * and then searched. Any other rule is asked directly: the library starts near the instant.
 */
export function occurrencesOf(rule: string, startsAt: number, timezone: string): Occurrences {
  const r = ruleOf(rule, startsAt, timezone);
  if (/(^|;)COUNT=/.test(rule)) return listed(r.all().map(secondsOf));
  const date = (at: number) => new Date(at * 1000);
  return {
    latestAtOrBefore: (at) => (at < startsAt ? null : seconds(r.previous(date(at), true))),
    firstAfter: (at) => seconds(r.next(date(at), false)),
    between: (after, until) =>
      until <= after
        ? []
        : r
            .between(date(after), date(until), true)
            .map(secondsOf)
            .filter((t) => t > after),
  };
}

/** Occurrences from a sorted list of starts, by binary search. */
function listed(starts: readonly number[]): Occurrences {
  /** The number of starts at or before `at`. */
  const upTo = (at: number) => {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return {
    latestAtOrBefore: (at) => starts[upTo(at) - 1] ?? null,
    firstAfter: (at) => starts[upTo(at)] ?? null,
    between: (after, until) => starts.slice(upTo(after), upTo(until)),
  };
}
