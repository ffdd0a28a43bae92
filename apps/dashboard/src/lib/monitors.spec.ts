import { describe, expect, it } from '@jest/globals';
import { countByStatus, filterMonitors, shownStatus, sortMonitors, visibleRange, type Monitor } from './monitors.ts';

let next = 0;
function monitor(fields: Partial<Monitor> & { name: string }): Monitor {
  next += 1;
  return {
    id: next.toString(16).padStart(24, '0'),
    active: true,
    check_interval: 300,
    timeout: 10,
    fail_threshold: 2,
    regions: ['eu-west-1'],
    settings: { https: { url: `https://${fields.name.toLowerCase().replace(/\W+/g, '-')}.example.com/` } },
    contacts: [],
    last_status: 'up',
    last_status_change: 1_000,
    last_checked_at: 1_000,
    created_at: 1_000,
    updated_at: 1_000,
    ...fields,
  };
}

const web = monitor({ name: 'Website', last_status: 'up', last_status_change: 500 });
const api = monitor({ name: 'API', last_status: 'down', last_status_change: 900 });
const db = monitor({
  name: 'Database',
  settings: { tcp: { url: 'tcp://db.internal:5432' } },
  last_status: 'down',
  last_status_change: 950,
});
const feed = monitor({ name: 'feed 10', last_status: 'unknown' });
const feed2 = monitor({ name: 'feed 9', last_status: 'pending' });
const old = monitor({ name: 'Old site', active: false, last_status: 'down', created_at: 2_000 });
const all = [web, api, db, feed, feed2, old];

describe('overview list logic', () => {
  it('puts down monitors first (newest change first), then no data, pending, up and paused', () => {
    expect(sortMonitors(all, 'status').map((m) => m.name)).toEqual([
      'Database',
      'API',
      'feed 10',
      'feed 9',
      'Website',
      'Old site',
    ]);
  });

  it('sorts by name without case and with numbers in order, and by creation and last change', () => {
    expect(sortMonitors(all, 'name').map((m) => m.name)).toEqual([
      'API',
      'Database',
      'feed 9',
      'feed 10',
      'Old site',
      'Website',
    ]);
    expect(sortMonitors(all, 'created')[0]).toBe(old);
    expect(sortMonitors(all, 'last_change').slice(0, 2)).toEqual(
      [feed, feed2].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' })),
    );
  });

  it('a paused monitor shows as paused whatever its last check said', () => {
    expect(shownStatus(old)).toBe('paused');
    expect(countByStatus(all)).toEqual({ up: 1, down: 2, unknown: 1, pending: 1, paused: 1 });
  });

  it.each([
    [{ search: '', type: '', status: '' }, ['Website', 'API', 'Database', 'feed 10', 'feed 9', 'Old site']],
    [{ search: 'FEED', type: '', status: '' }, ['feed 10', 'feed 9']],
    [{ search: 'db.internal', type: '', status: '' }, ['Database']],
    [{ search: 'feed 9', type: '', status: '' }, ['feed 9']],
    [{ search: '', type: 'tcp', status: '' }, ['Database']],
    [{ search: '', type: 'https', status: 'down' }, ['API']],
    [{ search: '', type: '', status: 'paused' }, ['Old site']],
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
