import { describe, expect, it } from '@jest/globals';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import { partitionOf } from '../cluster/partitions.js';
import type { RosterChange } from './monitor-roster.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaa01';
const B = 'aaaaaaaaaaaaaaaaaaaaaa02';

/** A monitor id in another partition than A's. */
function otherPartitionThan(id: string): string {
  for (let n = 3; ; n++) {
    const candidate = `aaaaaaaaaaaaaaaaaaaa${n.toString(16).padStart(4, '0')}`;
    if (partitionOf(candidate) !== partitionOf(id)) return candidate;
  }
}

function changesOf(roster: { onChange(l: (c: RosterChange) => void): void }): string[] {
  const seen: string[] = [];
  // `+` a monitor this replica starts checking, `~` a change of one it checks, `-` one it stops checking.
  roster.onChange((c) => seen.push(c.kind === 'tracked' ? `${c.added ? '+' : '~'}${c.monitor.id}` : `-${c.monitorId}`));
  return seen;
}

describe('MonitorRoster', () => {
  it('tracks saved monitors it owns, untracks deleted or foreign ones, and tells its listeners', () => {
    const { roster, partitions } = rosterWith();
    const seen = changesOf(roster);
    roster.apply({ kind: 'saved', monitor: monitorEntity(A) });
    partitions.lost.add(B);
    roster.apply({ kind: 'saved', monitor: monitorEntity(B) });
    expect(roster.size).toBe(1);
    expect(roster.owns(A)).toBe(true);
    expect(roster.owns(B)).toBe(false);
    roster.apply({ kind: 'saved', monitor: monitorEntity(A, { checkInterval: 300 }) });
    roster.apply({ kind: 'deleted', monitorId: A });
    roster.apply({ kind: 'deleted', monitorId: A });
    expect(roster.get(A)).toBeUndefined();
    expect(seen).toEqual([`+${A}`, `~${A}`, `-${A}`]);
  });

  it('says a monitor is added again after it stopped being checked here (a partition lost and regained)', async () => {
    const { roster, table } = rosterWith();
    table.put(monitorEntity(A));
    const seen = changesOf(roster);
    await roster.adopt([partitionOf(A)]);
    roster.release([partitionOf(A)]);
    await roster.adopt([partitionOf(A)]);
    roster.apply({ kind: 'saved', monitor: monitorEntity(A, { updatedAt: 2_000 }) });
    expect(seen).toEqual([`+${A}`, `-${A}`, `+${A}`, `~${A}`]);
  });

  it('keeps the status it recorded when the API saves the monitor again (the API never writes status)', () => {
    const { roster } = rosterWith(monitorEntity(A));
    roster.recordStatus(A, 'down', 5_000);
    roster.recordChecked(A, 5_010);
    roster.apply({
      kind: 'saved',
      monitor: monitorEntity(A, { checkInterval: 300, lastStatus: 'up', lastStatusChange: 1, lastCheckedAt: 4_000 }),
    });
    expect(roster.get(A)).toMatchObject({
      checkInterval: 300,
      lastStatus: 'down',
      lastStatusChange: 5_000,
      lastCheckedAt: 5_010,
    });
    expect(roster.stateOf(A)).toMatchObject({ status: 'down', lastChange: 5_000, consecutiveDown: 0 });
    expect(roster.stateOf(B)).toBeNull();
  });

  it('keeps the evaluation counters between results, through a save by the API, not past a partition handover', async () => {
    const { roster, table } = rosterWith(monitorEntity(A));
    table.put(monitorEntity(A));
    expect(roster.stateOf(A)).toMatchObject({ consecutiveDown: 0, lastScheduledAt: 0 });
    roster.recordEvaluated(A, { consecutiveDown: 2, lastScheduledAt: 7_000_500 });
    roster.apply({ kind: 'saved', monitor: monitorEntity(A, { checkInterval: 300 }) });
    expect(roster.stateOf(A)).toEqual({
      status: 'pending',
      consecutiveDown: 2,
      lastChange: 1_000,
      lastScheduledAt: 7_000_500,
    });
    roster.restartCount(A);
    expect(roster.stateOf(A)).toMatchObject({ consecutiveDown: 0, lastScheduledAt: 7_000_500 });
    roster.recordEvaluated(A, { consecutiveDown: 1, lastScheduledAt: 7_001_000 });
    roster.release([partitionOf(A)]);
    await roster.adopt([partitionOf(A)]);
    expect(roster.stateOf(A)).toMatchObject({ consecutiveDown: 0, lastScheduledAt: 0 });
  });

  it('keeps its own copy of what checks need, not the entity it was given', () => {
    const { roster } = rosterWith();
    const entity = monitorEntity(A, { heartbeatToken: 'secret-token', notificationRules: null, name: 'Shop' });
    roster.apply({ kind: 'saved', monitor: entity });
    const kept = roster.get(A)!;
    expect(kept).not.toBe(entity);
    expect(Object.keys(kept).sort()).toEqual(
      [
        'id',
        'accountId',
        'name',
        'active',
        'checkInterval',
        'timeout',
        'failThreshold',
        'regions',
        'monitorType',
        'settings',
        'createdAt',
        'updatedAt',
        'lastStatus',
        'lastStatusChange',
        'lastCheckedAt',
        'consecutiveDown',
        'lastScheduledAt',
      ].sort(),
    );
    expect(kept).toMatchObject({ id: A, name: 'Shop', regions: entity.regions, settings: entity.settings });
    // The API's object may change after the notice: the roster does not see it.
    entity.checkInterval = 1;
    entity.regions.push('ap-south-1');
    expect(kept.checkInterval).not.toBe(1);
    expect(kept.regions).not.toContain('ap-south-1');
  });

  it('never moves the last check back in time', () => {
    const { roster } = rosterWith(monitorEntity(A, { lastCheckedAt: 9_000 }));
    roster.recordChecked(A, 8_000);
    expect(roster.get(A)?.lastCheckedAt).toBe(9_000);
  });

  it('adopts the monitors of gained partitions from the table and releases those of lost ones', async () => {
    const { roster, table } = rosterWith();
    const elsewhere = otherPartitionThan(A);
    table.put(monitorEntity(A), monitorEntity(elsewhere));
    await roster.adopt([partitionOf(A)]);
    expect(roster.get(A)).toBeDefined();
    expect(roster.get(elsewhere)).toBeUndefined();
    await roster.adopt([partitionOf(elsewhere)]);
    expect(roster.size).toBe(2);
    roster.release([partitionOf(A)]);
    expect(roster.get(A)).toBeUndefined();
    expect(roster.get(elsewhere)).toBeDefined();
  });

  it('resync loads the monitors changed elsewhere and drops the deleted and the foreign ones', async () => {
    const { roster, table, partitions } = rosterWith(monitorEntity(A), monitorEntity(B));
    const C = 'aaaaaaaaaaaaaaaaaaaaaa03';
    table.put(monitorEntity(A, { updatedAt: 2_000, checkInterval: 600 }), monitorEntity(C));
    table.rows.delete(B);
    partitions.lost.add(C);
    await roster.resync();
    expect(roster.get(A)?.checkInterval).toBe(600);
    expect(roster.get(B)).toBeUndefined();
    expect(roster.get(C)).toBeUndefined();
  });

  it('resync reads page by page and keeps what this replica applied meanwhile (a monitor created or changed mid-read)', async () => {
    const early = 'aaaaaaaaaaaaaaaaaaaaaa00';
    const late = 'aaaaaaaaaaaaaaaaaaaaaa09';
    const { roster, table } = rosterWith(monitorEntity(early), monitorEntity(A), monitorEntity(B));
    table.pageSize = 1;
    let pages = 0;
    table.betweenPages = () => {
      pages++;
      if (pages !== 1) return;
      // After the first page: this replica's API creates a monitor the pages do not hold (the
      // read began before it existed) and saves a change to `early` (its page read the older one).
      const created = monitorEntity('aaaaaaaaaaaaaaaaaaaaaa0a', { updatedAt: 5_000 });
      table.put(created);
      roster.apply({ kind: 'saved', monitor: { ...created } });
      const changed = monitorEntity(early, { updatedAt: 6_000, checkInterval: 900 });
      table.put(changed);
      roster.apply({ kind: 'saved', monitor: { ...changed } });
      // Deleted meanwhile from this replica too: it stays gone.
      table.rows.delete(B);
      roster.apply({ kind: 'deleted', monitorId: B });
    };
    table.put(monitorEntity(late));
    await roster.resync();
    expect(pages).toBeGreaterThan(2);
    expect(roster.get('aaaaaaaaaaaaaaaaaaaaaa0a')).toBeDefined();
    expect(roster.get(early)?.checkInterval).toBe(900);
    expect(roster.get(B)).toBeUndefined();
    expect(roster.get(late)).toBeDefined();
    expect(roster.size).toBe(4);
    // The next resync, with nothing under way, agrees.
    table.betweenPages = () => undefined;
    await roster.resync();
    expect(roster.size).toBe(4);
  });

  it('resync drops a monitor deleted elsewhere even when another was deleted here mid-read (the counts still match)', async () => {
    const early = 'aaaaaaaaaaaaaaaaaaaaaa00';
    const { roster, table } = rosterWith(monitorEntity(early), monitorEntity(A), monitorEntity(B));
    // Deleted through another replica, its notice lost: only the resync can drop it.
    table.rows.delete(A);
    table.pageSize = 1;
    let pages = 0;
    table.betweenPages = () => {
      // After the first page, this replica deletes `early`, which that page held: the pages then
      // account for as many monitors as the roster holds, though A is not among them.
      if (++pages !== 1) return;
      table.rows.delete(early);
      roster.apply({ kind: 'deleted', monitorId: early });
    };
    const changes = changesOf(roster);
    await roster.resync();
    expect(changes).toEqual([`-${early}`, `-${A}`]);
    expect(roster.size).toBe(1);
  });

  it('resync waits out the pause after each page before reading on', async () => {
    const ids = ['aaaaaaaaaaaaaaaaaaaaaa11', 'aaaaaaaaaaaaaaaaaaaaaa12', 'aaaaaaaaaaaaaaaaaaaaaa13'];
    const { roster, table } = rosterWith(monitorEntity(A), monitorEntity(B), ...ids.map((id) => monitorEntity(id)));
    // Changed elsewhere, in the last page: applied only once every page has been read.
    table.put(monitorEntity(ids[2]!, { updatedAt: 2_000, checkInterval: 900 }));
    table.pageSize = 2;
    let pagesAsked = 0;
    table.betweenPages = () => pagesAsked++;
    const pauses: (() => void)[] = [];
    let finished = false;
    const done = roster.resync({ pause: () => new Promise<void>((resolve) => pauses.push(resolve)) }).then(() => {
      finished = true;
    });
    const settle = async () => {
      for (let i = 0; i < 10; i++) await Promise.resolve();
    };
    for (let page = 1; page <= 3; page++) {
      await settle();
      // Held in the pause after this page: the next page is not read meanwhile.
      expect([pauses.length, pagesAsked, finished]).toEqual([page, page - 1, false]);
      pauses[page - 1]!();
    }
    await done;
    expect(pauses).toHaveLength(3); // 5 monitors in pages of 2
    expect(roster.get(ids[2]!)?.checkInterval).toBe(900);
    expect(roster.size).toBe(5);
  });

  it('a resync that finds everything in place changes nothing', async () => {
    const { roster, table } = rosterWith(monitorEntity(A), monitorEntity(B));
    table.pageSize = 1;
    const changes = changesOf(roster);
    await roster.resync();
    expect(changes).toEqual([]);
    expect(roster.size).toBe(2);
  });

  it('keeps its count by region as monitors are added, changed, moved away and deleted', () => {
    const { roster } = rosterWith(
      monitorEntity(A, { regions: ['eu-west-1', 'us-east-1'] }),
      monitorEntity(B, { regions: ['eu-west-1'] }),
    );
    const counts = () => Object.fromEntries(roster.byRegion());
    expect(counts()).toEqual({ 'eu-west-1': 2, 'us-east-1': 1 });
    roster.apply({ kind: 'saved', monitor: monitorEntity(A, { regions: ['ap-southeast-1'], updatedAt: 2_000 }) });
    expect(counts()).toEqual({ 'eu-west-1': 1, 'ap-southeast-1': 1 });
    // A private region is its account's to watch: not counted.
    const C = 'aaaaaaaaaaaaaaaaaaaaaa03';
    roster.apply({ kind: 'saved', monitor: monitorEntity(C, { regions: ['eu-west-1', 'office-berlin'] as never }) });
    expect(counts()).toEqual({ 'eu-west-1': 2, 'ap-southeast-1': 1 });
    roster.apply({ kind: 'deleted', monitorId: B });
    expect(counts()).toEqual({ 'eu-west-1': 1, 'ap-southeast-1': 1 });
    roster.release([partitionOf(A)]);
    expect(roster.get(A)).toBeUndefined();
    // What a count over every monitor still here says.
    const recount: Record<string, number> = {};
    for (const region of [A, B, C].flatMap((id) => roster.get(id)?.regions ?? [])) {
      if (region !== 'office-berlin') recount[region] = (recount[region] ?? 0) + 1;
    }
    expect(counts()).toEqual(recount);
  });

  it('counts its monitors by region and by the status the API shows, unknown when unchecked for 3 intervals', () => {
    const { roster } = rosterWith(
      monitorEntity(A, { lastStatus: 'up', lastCheckedAt: 10_000 }),
      monitorEntity(B, { lastStatus: 'down', lastCheckedAt: 10_000 - 181, regions: ['eu-west-1'] }),
    );
    expect(roster.countByStatus(10_000)).toEqual({ pending: 0, up: 1, down: 0, unknown: 1 });
    expect(Object.fromEntries(roster.byRegion())).toEqual({ 'eu-west-1': 2, 'us-east-1': 1 });
  });
});
