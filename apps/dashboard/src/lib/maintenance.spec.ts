import { describe, expect, it } from '@jest/globals';
import {
  coveringNow,
  describeRrule,
  displayZone,
  occurrenceText,
  repeatOf,
  rruleOf,
  sortWindows,
  unixOfWallTime,
  wallTime,
  type MaintenanceWindow,
  type Repeat,
} from './maintenance.ts';

const window = (over: Partial<MaintenanceWindow>): MaintenanceWindow => ({
  id: over.name ?? 'w',
  name: 'w',
  monitors: [],
  starts_at: 1000,
  ends_at: 2000,
  rrule: null,
  duration: null,
  timezone: 'UTC',
  active: true,
  state: 'scheduled',
  next_start_at: null,
  created_at: 1,
  updated_at: 1,
  ...over,
});

describe('maintenance windows in the dashboard', () => {
  it('lists windows under way first, then by next start, inactive ones, then ended ones', () => {
    const list = [
      window({ name: 'ended', state: 'ended', starts_at: 10 }),
      window({ name: 'later', next_start_at: 9000 }),
      window({ name: 'off', active: false, next_start_at: 100 }),
      window({ name: 'now', state: 'in_progress', next_start_at: 99_999 }),
      window({ name: 'soon', next_start_at: 5000 }),
    ];
    expect(sortWindows(list).map((w) => w.name)).toEqual(['now', 'soon', 'later', 'off', 'ended']);
  });

  it('finds the windows covering a monitor now: active, under way, naming it or every monitor', () => {
    const list = [
      window({ name: 'all', state: 'in_progress' }),
      window({ name: 'mine', state: 'in_progress', monitors: ['m1'] }),
      window({ name: 'other', state: 'in_progress', monitors: ['m2'] }),
      window({ name: 'off', state: 'in_progress', active: false }),
      window({ name: 'later', monitors: ['m1'] }),
    ];
    expect(coveringNow(list, 'm1').map((w) => w.name)).toEqual(['all', 'mine']);
    expect(coveringNow(list, 'm3').map((w) => w.name)).toEqual(['all']);
  });

  it.each<[Repeat, string, string]>([
    [{ kind: 'daily' }, 'FREQ=DAILY', 'every day'],
    [{ kind: 'weekly', days: ['SU', 'MO', 'WE'] }, 'FREQ=WEEKLY;BYDAY=MO,WE,SU', 'every Mon, Wed, Sun'],
    [{ kind: 'monthly', day: 15 }, 'FREQ=MONTHLY;BYMONTHDAY=15', 'every month on day 15'],
  ])('builds %j as %s, reads it back, and says it in words', (repeat, rrule, words) => {
    expect(rruleOf(repeat)).toBe(rrule);
    const back = repeatOf(rrule);
    expect(back === null ? null : rruleOf(back)).toBe(rrule);
    expect(describeRrule(rrule)).toBe(words);
  });

  it.each([
    'FREQ=WEEKLY;INTERVAL=2;BYDAY=SU',
    'FREQ=HOURLY',
    'FREQ=MONTHLY;BYDAY=1SU',
    'FREQ=DAILY;COUNT=3',
    'nonsense',
  ])('leaves %s to the raw RRULE field (the builder cannot show it)', (rrule) => {
    expect(repeatOf(rrule)).toBeNull();
    expect(describeRrule(rrule)).toBe(rrule);
  });

  it.each([
    ['2026-11-25T17:30', 'UTC', Date.UTC(2026, 10, 25, 17, 30) / 1000],
    ['2026-07-01T03:00', 'Europe/Berlin', Date.UTC(2026, 6, 1, 1, 0) / 1000],
    ['2026-01-10T03:00', 'Europe/Berlin', Date.UTC(2026, 0, 10, 2, 0) / 1000],
    ['2026-03-29T03:00', 'Europe/Berlin', Date.UTC(2026, 2, 29, 1, 0) / 1000],
    ['2026-11-25T09:15', 'Asia/Kolkata', Date.UTC(2026, 10, 25, 3, 45) / 1000],
    ['2026-11-25T09:15', 'America/Los_Angeles', Date.UTC(2026, 10, 25, 17, 15) / 1000],
  ])('reads the wall time %s in %s as the right instant, and shows it back the same', (text, zone, unix) => {
    expect(unixOfWallTime(text, zone)).toBe(unix);
    expect(wallTime(unix, zone)).toBe(text);
  });

  it('moves a wall time in a spring-forward gap an hour later, and refuses text or zones it cannot read', () => {
    expect(unixOfWallTime('2026-03-29T02:30', 'Europe/Berlin')).toBe(Date.UTC(2026, 2, 29, 1, 30) / 1000);
    expect(unixOfWallTime('tomorrow', 'UTC')).toBeNull();
    expect(unixOfWallTime('2026-11-25T09:15', 'Mars/Olympus')).toBeNull();
  });

  it.each<[string, [string, string], string, { start: string; end: string }]>([
    [
      'the same local day: the end as a time',
      ['2027-03-20T02:00:00Z', '2027-03-20T04:00:00Z'],
      'Europe/Berlin',
      { start: 'Sat, 20 Mar 2027, 03:00', end: '05:00' },
    ],
    [
      'the spring change keeps the local time (01:00 UTC is 03:00 CEST)',
      ['2027-03-28T01:00:00Z', '2027-03-28T03:00:00Z'],
      'Europe/Berlin',
      { start: 'Sun, 28 Mar 2027, 03:00', end: '05:00' },
    ],
    [
      'across midnight: the end in full',
      ['2027-01-02T22:00:00Z', '2027-01-03T01:00:00Z'],
      'Europe/Berlin',
      { start: 'Sat, 2 Jan 2027, 23:00', end: 'Sun, 3 Jan 2027, 02:00' },
    ],
    [
      'another zone, another day',
      ['2027-01-02T22:00:00Z', '2027-01-02T23:00:00Z'],
      'Asia/Tokyo',
      { start: 'Sun, 3 Jan 2027, 07:00', end: '08:00' },
    ],
  ])('says an occurrence in its zone: %s', (_name, [start, end], zone, expected) => {
    const at = (iso: string) => Date.parse(iso) / 1000;
    expect(occurrenceText({ starts_at: at(start), ends_at: at(end) }, zone)).toEqual(expected);
  });

  it('formats in a zone the browser knows, else in UTC', () => {
    expect(displayZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(displayZone('Nowhere/Atlantis')).toBe('UTC');
  });
});
