import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { RRuleTemporal } from 'rrule-temporal';
import { canonicalTimeZone, rruleProblem, timeZoneProblem } from './recurrence.js';
import {
  appliesTo,
  MERGE_HORIZON_SECONDS,
  PREVIEW_COUNT,
  shownOccurrence,
  upcomingOccurrences,
  windowAt,
  windowAtOrEnded,
  type WindowAt,
  type WindowSchedule,
} from './windows.js';

const at = (iso: string): number => Date.parse(iso) / 1000;
const HOUR = 3600;

const oneOff = (startsAt: string, endsAt: string, active = true): WindowSchedule => ({
  active,
  startsAt: at(startsAt),
  endsAt: at(endsAt),
  rrule: null,
  duration: null,
  timezone: 'UTC',
});
const recurring = (
  rrule: string,
  startsAt: string,
  duration: number,
  timezone: string,
  active = true,
): WindowSchedule => ({
  active,
  startsAt: at(startsAt),
  endsAt: null,
  rrule,
  duration,
  timezone,
});

/** Sundays 03:00 to 05:00 Berlin time, first on 22 March 2026 (CET, UTC+1); summer time starts 29 March. */
const berlinSundays = recurring('FREQ=WEEKLY;BYDAY=SU', '2026-03-22T02:00:00Z', 2 * HOUR, 'Europe/Berlin');
/** Daily 01:30 to 02:30 Berlin time, across the autumn change (25 October 2026, 03:00 CEST → 02:00 CET). */
const berlinNightly = recurring('FREQ=DAILY', '2026-10-20T23:30:00Z', HOUR, 'Europe/Berlin');

const result = (
  covers: boolean,
  coverEndsAt: string | null,
  state: WindowAt['state'],
  next: string | null,
): WindowAt => ({
  covers,
  coverEndsAt: coverEndsAt === null ? null : at(coverEndsAt),
  state,
  nextStartAt: next === null ? null : at(next),
});

describe('windowAt', () => {
  it.each<[string, WindowSchedule, string, WindowAt]>([
    [
      'one-off, before',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z'),
      '2026-05-01T09:59:59Z',
      result(false, null, 'scheduled', '2026-05-01T10:00:00Z'),
    ],
    [
      'one-off, at its start (inclusive)',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z'),
      '2026-05-01T10:00:00Z',
      result(true, '2026-05-01T12:00:00Z', 'in_progress', null),
    ],
    [
      'one-off, at its end (exclusive)',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z'),
      '2026-05-01T12:00:00Z',
      result(false, null, 'ended', null),
    ],
    [
      'one-off, inactive while under way',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z', false),
      '2026-05-01T11:00:00Z',
      result(false, null, 'ended', null),
    ],
    [
      'one-off, inactive before',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z', false),
      '2026-05-01T09:00:00Z',
      result(false, null, 'scheduled', '2026-05-01T10:00:00Z'),
    ],
    [
      'weekly, before the first occurrence',
      berlinSundays,
      '2026-03-20T00:00:00Z',
      result(false, null, 'scheduled', '2026-03-22T02:00:00Z'),
    ],
    [
      'weekly, first occurrence (CET: 03:00 local is 02:00 UTC)',
      berlinSundays,
      '2026-03-22T03:00:00Z',
      result(true, '2026-03-22T04:00:00Z', 'in_progress', '2026-03-29T01:00:00Z'),
    ],
    [
      'weekly, the DST Sunday keeps 03:00 local (01:00 UTC)',
      berlinSundays,
      '2026-03-29T01:00:00Z',
      result(true, '2026-03-29T03:00:00Z', 'in_progress', '2026-04-05T01:00:00Z'),
    ],
    [
      'weekly, the hour before on the DST Sunday is not covered',
      berlinSundays,
      '2026-03-29T00:59:59Z',
      result(false, null, 'scheduled', '2026-03-29T01:00:00Z'),
    ],
    [
      'weekly, a weekday in summer',
      berlinSundays,
      '2026-06-03T12:00:00Z',
      result(false, null, 'scheduled', '2026-06-07T01:00:00Z'),
    ],
    [
      'weekly, inactive under way',
      { ...berlinSundays, active: false },
      '2026-03-29T02:00:00Z',
      result(false, null, 'scheduled', '2026-04-05T01:00:00Z'),
    ],
    [
      'daily, the night before the autumn change (CEST: 01:30 is 23:30 UTC)',
      berlinNightly,
      '2026-10-24T00:00:00Z',
      result(true, '2026-10-24T00:30:00Z', 'in_progress', '2026-10-24T23:30:00Z'),
    ],
    [
      'daily, the night of the change: 01:30 CEST is still 23:30 UTC',
      berlinNightly,
      '2026-10-24T23:45:00Z',
      result(true, '2026-10-25T00:30:00Z', 'in_progress', '2026-10-26T00:30:00Z'),
    ],
    [
      'daily, after the change: 01:30 CET is 00:30 UTC',
      berlinNightly,
      '2026-10-26T00:30:00Z',
      result(true, '2026-10-26T01:30:00Z', 'in_progress', '2026-10-27T00:30:00Z'),
    ],
    [
      'daily with COUNT, ended',
      recurring('FREQ=DAILY;COUNT=2', '2026-01-01T00:00:00Z', HOUR, 'UTC'),
      '2026-01-02T01:00:00Z',
      result(false, null, 'ended', null),
    ],
    [
      'daily with COUNT, last occurrence under way',
      recurring('FREQ=DAILY;COUNT=2', '2026-01-01T00:00:00Z', HOUR, 'UTC'),
      '2026-01-02T00:30:00Z',
      result(true, '2026-01-02T01:00:00Z', 'in_progress', null),
    ],
    [
      'daily with UNTIL, ended',
      recurring('FREQ=DAILY;UNTIL=20260105T000000Z', '2026-01-01T00:00:00Z', HOUR, 'UTC'),
      '2026-02-01T00:00:00Z',
      result(false, null, 'ended', null),
    ],
    [
      'overlapping occurrences merge (daily, 36 h each, COUNT=3)',
      recurring('FREQ=DAILY;COUNT=3', '2026-01-01T00:00:00Z', 36 * HOUR, 'UTC'),
      '2026-01-01T01:00:00Z',
      result(true, '2026-01-04T12:00:00Z', 'in_progress', '2026-01-02T00:00:00Z'),
    ],
  ])('%s', (_name, window, now, expected) => {
    expect(windowAt(window, at(now))).toEqual(expected);
  });
});

/**
 * What a question costs, counted in the library's work, not in time: every query of a COUNT rule
 * walks it from its first occurrence, so those are counted with the occurrences they return.
 */
describe('windowAt: the cost of big recurring rules (docs/decisions/0026-maintenance-windows.md)', () => {
  const queries = () => {
    const spies = (['all', 'between', 'next', 'previous'] as const).map((name) =>
      jest.spyOn(RRuleTemporal.prototype, name),
    );
    return {
      total: () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0),
      returned: () =>
        spies
          .flatMap((spy) => spy.mock.results.map((r) => r.value))
          .reduce<number>((sum, value) => sum + (Array.isArray(value) ? value.length : 1), 0),
    };
  };
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('an hourly COUNT=1000 rule of touching occurrences: expanded once, not walked once per occurrence', () => {
    const window = recurring('FREQ=HOURLY;COUNT=1000', '2026-01-01T00:00:00Z', HOUR, 'Europe/Berlin');
    const q = queries();
    const answer = windowAt(window, at('2026-01-21T20:30:00Z'));
    // Every occurrence touches the next: one covering to the last occurrence's end.
    expect(answer).toEqual(result(true, '2026-02-11T16:00:00Z', 'in_progress', '2026-01-21T21:00:00Z'));
    expect(q.total()).toBe(1);
    expect(q.returned()).toBe(1000);
  });

  it('a preview of an hourly COUNT=1000 rule: expanded once', () => {
    const window = recurring('FREQ=HOURLY;COUNT=1000', '2026-01-01T00:00:00Z', HOUR, 'Europe/Berlin');
    const q = queries();
    expect(upcomingOccurrences(window, at('2026-01-21T20:30:00Z'), 50)).toHaveLength(50);
    expect(q.total()).toBe(1);
  });

  it('a preview of an endless hourly rule of week-long occurrences: one query for those under way, one per next', () => {
    const window = recurring('FREQ=HOURLY', '2026-01-01T00:00:00Z', 7 * 24 * HOUR, 'UTC');
    const q = queries();
    const listed = upcomingOccurrences(window, at('2026-03-01T10:30:00Z'), 50);
    // 168 are under way: the 50 oldest of them.
    expect(listed[0]).toEqual({ startsAt: at('2026-02-22T11:00:00Z'), endsAt: at('2026-03-01T11:00:00Z') });
    expect(listed).toHaveLength(50);
    expect(q.total()).toBe(1);
    expect(q.returned()).toBeLessThanOrEqual(7 * 24);
  });

  it('an endless hourly rule of touching occurrences: a few queries near the instant, within the horizon', () => {
    const window = recurring('FREQ=HOURLY', '2026-01-01T00:00:00Z', HOUR, 'UTC');
    const now = at('2026-03-01T10:30:00Z');
    const q = queries();
    const answer = windowAt(window, now);
    expect(answer.coverEndsAt).toBe(at('2026-03-01T10:00:00Z') + MERGE_HORIZON_SECONDS + HOUR);
    expect(q.total()).toBeLessThanOrEqual(3);
    expect(q.returned()).toBeLessThanOrEqual(MERGE_HORIZON_SECONDS / HOUR + 3);
  });
});

describe('upcomingOccurrences (what a preview lists)', () => {
  /** [start, end] pairs as ISO texts. */
  type Listed = [string, string][];
  const cases: [string, WindowSchedule, string, number, Listed][] = [
    [
      'one-off, before: its one occurrence',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z'),
      '2026-04-01T00:00:00Z',
      10,
      [['2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z']],
    ],
    [
      'one-off, under way: still listed',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z'),
      '2026-05-01T11:59:59Z',
      10,
      [['2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z']],
    ],
    [
      'one-off, at its end (exclusive): none',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z'),
      '2026-05-01T12:00:00Z',
      10,
      [],
    ],
    [
      'one-off, inactive: its schedule all the same (as next_start_at)',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z', false),
      '2026-04-01T00:00:00Z',
      10,
      [['2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z']],
    ],
    [
      'weekly in Berlin across the spring change: 03:00 local is 02:00 UTC, then 01:00 UTC',
      berlinSundays,
      '2026-03-20T00:00:00Z',
      4,
      [
        ['2026-03-22T02:00:00Z', '2026-03-22T04:00:00Z'],
        ['2026-03-29T01:00:00Z', '2026-03-29T03:00:00Z'],
        ['2026-04-05T01:00:00Z', '2026-04-05T03:00:00Z'],
        ['2026-04-12T01:00:00Z', '2026-04-12T03:00:00Z'],
      ],
    ],
    [
      'weekly, the occurrence under way first',
      berlinSundays,
      '2026-03-29T02:59:59Z',
      2,
      [
        ['2026-03-29T01:00:00Z', '2026-03-29T03:00:00Z'],
        ['2026-04-05T01:00:00Z', '2026-04-05T03:00:00Z'],
      ],
    ],
    [
      'weekly, at the end of one (exclusive): the next ones only',
      berlinSundays,
      '2026-03-29T03:00:00Z',
      1,
      [['2026-04-05T01:00:00Z', '2026-04-05T03:00:00Z']],
    ],
    [
      'daily in Berlin across the autumn change: 01:30 CEST is 23:30 UTC, 01:30 CET 00:30 UTC',
      berlinNightly,
      '2026-10-24T00:00:00Z',
      3,
      [
        ['2026-10-23T23:30:00Z', '2026-10-24T00:30:00Z'],
        ['2026-10-24T23:30:00Z', '2026-10-25T00:30:00Z'],
        ['2026-10-26T00:30:00Z', '2026-10-26T01:30:00Z'],
      ],
    ],
    [
      'COUNT stops the list (the first of three ended)',
      recurring('FREQ=DAILY;COUNT=3', '2026-01-01T00:00:00Z', HOUR, 'UTC'),
      '2026-01-01T12:00:00Z',
      10,
      [
        ['2026-01-02T00:00:00Z', '2026-01-02T01:00:00Z'],
        ['2026-01-03T00:00:00Z', '2026-01-03T01:00:00Z'],
      ],
    ],
    [
      'UNTIL stops the list (an occurrence at UNTIL included)',
      recurring('FREQ=DAILY;UNTIL=20260105T000000Z', '2026-01-01T00:00:00Z', HOUR, 'Europe/Berlin'),
      '2026-01-02T12:00:00Z',
      10,
      [
        ['2026-01-03T00:00:00Z', '2026-01-03T01:00:00Z'],
        ['2026-01-04T00:00:00Z', '2026-01-04T01:00:00Z'],
        ['2026-01-05T00:00:00Z', '2026-01-05T01:00:00Z'],
      ],
    ],
    [
      'recurring, ended: none',
      recurring('FREQ=DAILY;COUNT=2', '2026-01-01T00:00:00Z', HOUR, 'UTC'),
      '2026-01-02T01:00:00Z',
      10,
      [],
    ],
    [
      'overlapping occurrences: each one under way is listed, not merged',
      recurring('FREQ=DAILY;COUNT=3', '2026-01-01T00:00:00Z', 36 * HOUR, 'UTC'),
      '2026-01-02T06:00:00Z',
      10,
      [
        ['2026-01-01T00:00:00Z', '2026-01-02T12:00:00Z'],
        ['2026-01-02T00:00:00Z', '2026-01-03T12:00:00Z'],
        ['2026-01-03T00:00:00Z', '2026-01-04T12:00:00Z'],
      ],
    ],
    [
      'before the first occurrence of an endless rule: from the first, count of them',
      recurring('FREQ=WEEKLY;INTERVAL=2;BYDAY=SA', '2026-01-03T22:00:00Z', HOUR, 'America/New_York'),
      '2025-12-01T00:00:00Z',
      3,
      [
        ['2026-01-03T22:00:00Z', '2026-01-03T23:00:00Z'],
        ['2026-01-17T22:00:00Z', '2026-01-17T23:00:00Z'],
        ['2026-01-31T22:00:00Z', '2026-01-31T23:00:00Z'],
      ],
    ],
  ];

  it.each(cases)('%s', (_name, window, now, count, expected) => {
    expect(upcomingOccurrences(window, at(now), count)).toEqual(
      expected.map(([start, end]) => ({ startsAt: at(start), endsAt: at(end) })),
    );
  });

  it.each(cases)('agrees with windowAt: %s', (_name, window, now) => {
    const state = windowAt({ ...window, active: true }, at(now));
    const listed = upcomingOccurrences(window, at(now), PREVIEW_COUNT);
    expect(listed.find((o) => o.startsAt > at(now))?.startsAt ?? null).toBe(state.nextStartAt);
    expect(listed.some((o) => o.startsAt <= at(now))).toBe(state.covers);
  });

  it(`lists ${PREVIEW_COUNT} by default, in order, and none for a count of 0`, () => {
    const listed = upcomingOccurrences(berlinSundays, at('2026-06-01T00:00:00Z'));
    expect(listed).toHaveLength(PREVIEW_COUNT);
    expect(listed.map((o) => new Date(o.startsAt * 1000).toISOString())).toEqual(
      [7, 14, 21, 28, 35, 42, 49, 56, 63, 70].map((days) =>
        new Date(Date.parse('2026-05-31T01:00:00Z') + days * 86_400_000).toISOString(),
      ),
    );
    expect(upcomingOccurrences(berlinSundays, at('2026-06-01T00:00:00Z'), 0)).toEqual([]);
  });
});

describe('windowAtOrEnded (a stored rule the library cannot search)', () => {
  const never = recurring('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', '2026-01-01T00:00:00Z', HOUR, 'UTC');

  it('answers as an ended window and says so, where windowAt throws', () => {
    expect(() => windowAt(never, at('2026-06-01T00:00:00Z'))).toThrow();
    const told: unknown[] = [];
    expect(windowAtOrEnded(never, at('2026-06-01T00:00:00Z'), (e) => told.push(e))).toEqual(
      result(false, null, 'ended', null),
    );
    expect(told).toHaveLength(1);
  });

  it('is windowAt for every searchable window, telling nothing', () => {
    const told: unknown[] = [];
    for (const window of [berlinSundays, berlinNightly, oneOff('2026-05-01T00:00:00Z', '2026-05-02T00:00:00Z')]) {
      for (const instant of ['2026-03-22T02:30:00Z', '2026-05-01T12:00:00Z', '2026-10-25T00:45:00Z']) {
        expect(windowAtOrEnded(window, at(instant), (e) => told.push(e))).toEqual(windowAt(window, at(instant)));
      }
    }
    expect(told).toEqual([]);
  });
});

describe('appliesTo', () => {
  it('[] means every monitor, a list only those', () => {
    expect(appliesTo([], 'a'.repeat(24))).toBe(true);
    expect(appliesTo(['b'.repeat(24)], 'a'.repeat(24))).toBe(false);
    expect(appliesTo(['a'.repeat(24)], 'a'.repeat(24))).toBe(true);
  });
});

describe('rruleProblem and timeZoneProblem', () => {
  it.each([
    'FREQ=WEEKLY;BYDAY=SU',
    'FREQ=DAILY;INTERVAL=2',
    'FREQ=MONTHLY;BYDAY=1SA',
    'FREQ=HOURLY;COUNT=5',
    'FREQ=DAILY;UNTIL=20271231T235959Z',
    'FREQ=DAILY;BYHOUR=1,2,3;BYMINUTE=30;BYSECOND=0',
  ])('accepts %s', (rule) => expect(rruleProblem(rule)).toBeNull());
  it.each<[unknown, string]>([
    ['', 'must be an RFC 5545 RRULE'],
    [42, 'must be an RFC 5545 RRULE'],
    ['GARBAGE', 'malformed part'],
    ['RRULE:FREQ=DAILY', 'malformed part'],
    ['FREQ=DAILY;FOO=1', 'unknown part FOO'],
    ['FREQ=DAILY;FREQ=WEEKLY', 'FREQ twice'],
    ['FREQ=MINUTELY', 'FREQ must be'],
    ['FREQ=DAILY;COUNT=-1', 'COUNT must be a positive integer'],
    ['FREQ=DAILY;INTERVAL=0', 'INTERVAL must be a positive integer'],
    ['FREQ=HOURLY;COUNT=1001', 'COUNT must be at most 1000'],
    ['FREQ=DAILY;UNTIL=2027', 'UNTIL must be a UTC date-time'],
    ['FREQ=HOURLY;BYMINUTE=0,30', 'BYMINUTE must be one value'],
    ['FREQ=DAILY;BYHOUR=3;BYMINUTE=0;BYSECOND=0,1,2', 'BYSECOND must be one value'],
    ['FREQ=DAILY;COUNT=2;UNTIL=20271231T235959Z', 'both COUNT and UNTIL'],
    ['BYDAY=SU', 'must include FREQ'],
    ['FREQ=WEEKLY;BYDAY=XX', 'is not a valid RRULE'],
  ])('refuses %p', (rule, message) => expect(rruleProblem(rule)).toContain(message));

  it.each(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'])('knows %s', (zone) =>
    expect(timeZoneProblem(zone)).toBeNull(),
  );
  it('spells a zone as the database does', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
  });
  it.each(['', 'Mars/Olympus', 'Europe/Berlín', '+01:00', '+01:00x', '-05:00', 7])('refuses %p', (zone) =>
    expect(timeZoneProblem(zone)).toContain('IANA time zone'),
  );
});

describe('shownOccurrence (what a public page lists)', () => {
  const show = (window: WindowSchedule, now: string) => shownOccurrence(window, windowAt(window, at(now)), at(now));
  it.each<[string, WindowSchedule, string, [string, string, boolean] | null]>([
    [
      'one-off under way: from now to its end',
      oneOff('2026-05-01T10:00:00Z', '2026-05-01T12:00:00Z'),
      '2026-05-01T11:00:00Z',
      ['2026-05-01T11:00:00Z', '2026-05-01T12:00:00Z', true],
    ],
    [
      'one-off in 6 days',
      oneOff('2026-05-07T10:00:00Z', '2026-05-07T12:00:00Z'),
      '2026-05-01T10:00:00Z',
      ['2026-05-07T10:00:00Z', '2026-05-07T12:00:00Z', false],
    ],
    [
      'one-off in 8 days: not yet',
      oneOff('2026-05-09T10:00:00Z', '2026-05-09T12:00:00Z'),
      '2026-05-01T10:00:00Z',
      null,
    ],
    ['inactive: never', oneOff('2026-05-02T10:00:00Z', '2026-05-02T12:00:00Z', false), '2026-05-01T10:00:00Z', null],
    ['ended: never', oneOff('2026-04-02T10:00:00Z', '2026-04-02T12:00:00Z'), '2026-05-01T10:00:00Z', null],
    [
      'weekly: its next occurrence, with its duration',
      berlinSundays,
      '2026-06-03T12:00:00Z',
      ['2026-06-07T01:00:00Z', '2026-06-07T03:00:00Z', false],
    ],
  ])('%s', (_name, window, now, expected) => {
    expect(show(window, now)).toEqual(
      expected === null ? null : { startsAt: at(expected[0]), endsAt: at(expected[1]), inProgress: expected[2] },
    );
  });
});
