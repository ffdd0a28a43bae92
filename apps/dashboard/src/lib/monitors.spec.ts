import { describe, expect, it } from '@jest/globals';
import {
  countByStatus,
  filterMonitors,
  shownStatus,
  sortMonitors,
  sparklinePaths,
  uptimeText,
  visibleRange,
  type MonitorSummary,
} from './monitors.ts';

let next = 0;
function monitor(fields: Partial<MonitorSummary> & { name: string }): MonitorSummary {
  next += 1;
  return {
    id: next.toString(16).padStart(24, '0'),
    type: 'https',
    target: `https://${fields.name.toLowerCase().replace(/\W+/g, '-')}.example.com/`,
    active: true,
    last_status: 'up',
    in_maintenance: false,
    status: 'up',
    last_status_change: 1_000,
    last_checked_at: 1_000,
    created_at: 1_000,
    uptime_24h: 100,
    uptime_30d: 100,
    response_ms: [],
    ...fields,
  };
}

const web = monitor({ name: 'Website', last_status: 'up', last_status_change: 500 });
const api = monitor({ name: 'API', last_status: 'down', last_status_change: 900 });
const db = monitor({
  name: 'Database',
  type: 'tcp',
  target: 'tcp://db.internal:5432',
  uptime_24h: 97.5,
  last_status: 'down',
  last_status_change: 950,
});
const feed = monitor({ name: 'feed 10', last_status: 'unknown' });
const feed2 = monitor({ name: 'feed 9', last_status: 'pending' });
const old = monitor({ name: 'Old site', active: false, last_status: 'down', created_at: 2_000, in_maintenance: true });
const upgrade = monitor({ name: 'Upgrading', last_status: 'down', in_maintenance: true, uptime_24h: null });
const all = [web, api, db, feed, feed2, old, upgrade];

describe('overview list logic', () => {
  it('puts down monitors first (newest change first), then no data, pending, up, maintenance and paused', () => {
    expect(sortMonitors(all, 'status').map((m) => m.name)).toEqual([
      'Database',
      'API',
      'feed 10',
      'feed 9',
      'Website',
      'Upgrading',
      'Old site',
    ]);
  });

  it('sorts by 24 h uptime, lowest first, monitors without one last', () => {
    expect(sortMonitors(all, 'uptime').map((m) => m.name)).toEqual([
      'Database',
      'API',
      'feed 9',
      'feed 10',
      'Old site',
      'Website',
      'Upgrading',
    ]);
  });

  it('sorts by name without case and with numbers in order, and by creation and last change', () => {
    expect(sortMonitors(all, 'name').map((m) => m.name)).toEqual([
      'API',
      'Database',
      'feed 9',
      'feed 10',
      'Old site',
      'Upgrading',
      'Website',
    ]);
    expect(sortMonitors(all, 'created')[0]).toBe(old);
    expect(sortMonitors(all, 'last_change').slice(0, 2)).toEqual(
      [feed, feed2].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' })),
    );
  });

  it('a paused monitor shows as paused whatever its last check or maintenance say; maintenance over the checks', () => {
    expect(shownStatus(old)).toBe('paused');
    expect(shownStatus(upgrade)).toBe('maintenance');
    expect(countByStatus(all)).toEqual({ total: 7, up: 1, down: 2, unknown: 1, pending: 1, paused: 1, maintenance: 1 });
  });

  it.each([
    [null, '–'],
    [100, '100%'],
    [99.99999, '99.99%'],
    [97.5, '97.50%'],
    [0, '0.00%'],
  ] as const)('shows uptime %p as %p (never rounded up to 100 %%)', (value, text) => {
    expect(uptimeText(value)).toBe(text);
  });

  it('draws the sparkline as lines broken where an hour has no value, lowest at the bottom', () => {
    expect(sparklinePaths([null, null], 96, 24)).toEqual([]);
    expect(sparklinePaths([100, 200, null, 150, 150], 8, 10)).toEqual(['2.0,8.0 3.0,2.0', '5.0,5.0 6.0,5.0']);
    expect(sparklinePaths([null, 120, null, 480], 6, 10)).toEqual(['2.7,8.0 2.7,8.0', '4.0,2.0 4.0,2.0']);
  });

  it.each([
    [
      { search: '', type: '', status: '' },
      ['Website', 'API', 'Database', 'feed 10', 'feed 9', 'Old site', 'Upgrading'],
    ],
    [{ search: 'FEED', type: '', status: '' }, ['feed 10', 'feed 9']],
    [{ search: 'db.internal', type: '', status: '' }, ['Database']],
    [{ search: 'feed 9', type: '', status: '' }, ['feed 9']],
    [{ search: '', type: 'tcp', status: '' }, ['Database']],
    [{ search: '', type: 'https', status: 'down' }, ['API']],
    [{ search: '', type: '', status: 'paused' }, ['Old site']],
    [{ search: '', type: '', status: 'maintenance' }, ['Upgrading']],
    [{ search: 'nothing', type: '', status: '' }, []],
  ] as const)('filters %j', (filter, names) => {
    expect(filterMonitors(all, filter).map((m) => m.name)).toEqual(names);
  });

  it('renders only the rows in view, with overscan, clamped to the list', () => {
    expect(visibleRange(0, 560, 56, 10_000)).toEqual({ start: 0, end: 18 });
    expect(visibleRange(56 * 5000, 560, 56, 10_000)).toEqual({ start: 4992, end: 5018 });
    expect(visibleRange(56 * 9995, 560, 56, 10_000)).toEqual({ start: 9987, end: 10_000 });
    expect(visibleRange(-40, 100, 56, 0)).toEqual({ start: 0, end: 0 });
  });
});
