import { createHash } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { ManualClock } from '#runtime';
import { OpenedDataSources } from '../../../../test/support/data-sources.js';
import { testDatabases, type TestDatabase } from '../../../../test/support/databases.js';
import { AccountEntity } from '../auth/account.entity.js';
import { loadCoordinatorConfig } from '../config.js';
import { Database } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { CheckResultEntity } from './check-result.entity.js';
import {
  DEFAULT_PARTITION,
  PARTITION_DAYS_AHEAD,
  PARTITION_MS,
  partitionDay,
  partitionName,
} from './check-partitions.js';
import { insertMonitorRow } from '../../../../test/support/monitor-rows.js';
import { undoThrough } from '../../../../test/support/migrations.js';
import { CheckResultsRepository, type NewCheckResult } from './check-results.repository.js';
import { ResultsRetention } from './results-retention.js';
import { SECONDS_PER_DAY } from './stats.js';

/**
 * Check history stored by day (docs/decisions/0033-partitioned-check-history.md): the migration
 * from the single table on a populated database, inserts at the edges of time, and, on
 * PostgreSQL, partitions made ahead, dropped by retention, and made by two replicas at once.
 */

const ACCOUNT = 'a'.repeat(24);
const MONITOR = 'b'.repeat(24);
const OTHER_MONITOR = 'c'.repeat(24);
/** 2026-03-10 12:00:00 UTC. */
const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);
const NOW_S = NOW / 1000;
const TODAY = partitionDay(NOW);
/** Beyond every test's days: the rows' roll-ups are not what these tests look at. */
const NO_ROLLUPS = Number.MAX_SAFE_INTEGER;

async function seed(ds: DataSource): Promise<void> {
  await ds.manager.insert(AccountEntity, { id: ACCOUNT, name: 'a', subscriptionStatus: 'active', createdAt: NOW_S });
  for (const id of [MONITOR, OTHER_MONITOR]) await insertMonitorRow(ds, id, ACCOUNT, NOW_S);
}

let sequence = 0;
/** A result of the check due at `scheduledAt` (ms), stored `lagSeconds` after it. */
function result(scheduledAt: number, monitorId = MONITOR, lagSeconds = 2): NewCheckResult {
  const n = ++sequence;
  return {
    id: n.toString(16).padStart(24, '0'),
    monitorId,
    checkId: `${monitorId}:${scheduledAt}:eu-west-1`,
    region: 'eu-west-1',
    status: n % 5 === 0 ? 'down' : 'up',
    phase: n % 5 === 0 ? 'response' : null,
    error: n % 5 === 0 ? `HTTP 50${n % 10}` : null,
    responseTimeMs: n % 7 === 0 ? null : 10 + (n % 300),
    timings: { total_ms: 10 + (n % 300), dns_ms: n % 3 },
    httpStatus: n % 5 === 0 ? 503 : 200,
    certNotAfter: n % 2 === 0 ? 1_900_000_000 + n : null,
    agentId: `agent-${n % 4}`,
    checkerIp: n % 3 === 0 ? null : '192.0.2.10',
    scheduledAt,
    checkedAt: Math.floor(scheduledAt / 1000) + lagSeconds,
    inMaintenance: n % 11 === 0,
  };
}

/** Every column of every stored row, in the key's order. */
async function contents(ds: DataSource): Promise<string> {
  const rows = await ds.manager.find(CheckResultEntity, {
    order: { scheduledAt: 'ASC', monitorId: 'ASC', region: 'ASC' },
  });
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
}

async function partitionOf(ds: DataSource, scheduledAt: number): Promise<string> {
  const rows: { partition: string }[] = await ds.query(
    `SELECT tableoid::regclass::text AS partition FROM "check_results" WHERE "scheduled_at" = $1`,
    [scheduledAt],
  );
  return rows[0]?.partition ?? 'none';
}

describe.each(testDatabases())('check history by day on $name', (kind) => {
  let db: TestDatabase;
  const sources = new OpenedDataSources();
  beforeAll(() => Logger.overrideLogger(false));

  async function connect(): Promise<{ ds: DataSource; repository: CheckResultsRepository }> {
    const ds = await sources.open(db.url);
    return { ds, repository: new CheckResultsRepository(new Database(ds)) };
  }

  async function fresh(): Promise<{ ds: DataSource; repository: CheckResultsRepository }> {
    db = await kind.create();
    const opened = await connect();
    await migrate(opened.ds);
    await seed(opened.ds);
    return opened;
  }

  afterEach(async () => {
    await sources.closeAll();
    await db.drop();
  });

  it('the migration from the single table keeps every row of a populated table, field for field', async () => {
    db = await kind.create();
    const { ds, repository } = await connect();
    await migrate(ds);
    await seed(ds);
    await undoThrough(ds, 'PartitionedCheckHistory1766100000000'); // back to the single table of 1766000000000
    const rows: NewCheckResult[] = [];
    for (let i = 0; i < 1500; i++) rows.push(result(NOW - i * 1_234_567, i % 2 === 0 ? MONITOR : OTHER_MONITOR));
    // Far from today: before and after every partition the migration makes.
    rows.push(result(Date.UTC(2001, 0, 1)), result(Date.UTC(2090, 0, 1)), result(Date.now() + 2 * PARTITION_MS));
    const columns = [
      ['id', (r: NewCheckResult) => r.id],
      ['monitor_id', (r: NewCheckResult) => r.monitorId],
      ['check_id', (r: NewCheckResult) => r.checkId],
      ['region', (r: NewCheckResult) => r.region],
      ['status', (r: NewCheckResult) => r.status],
      ['phase', (r: NewCheckResult) => r.phase],
      ['error', (r: NewCheckResult) => r.error],
      ['response_time_ms', (r: NewCheckResult) => r.responseTimeMs],
      ['timings', (r: NewCheckResult) => JSON.stringify(r.timings)],
      ['http_status', (r: NewCheckResult) => r.httpStatus],
      ['cert_not_after', (r: NewCheckResult) => r.certNotAfter],
      ['agent_id', (r: NewCheckResult) => r.agentId],
      ['checker_ip', (r: NewCheckResult) => r.checkerIp],
      ['scheduled_at', (r: NewCheckResult) => r.scheduledAt],
      ['checked_at', (r: NewCheckResult) => r.checkedAt],
      ['in_maintenance', (r: NewCheckResult) => (kind.name === 'sqlite' ? Number(r.inMaintenance) : r.inMaintenance)],
    ] as const;
    for (let i = 0; i < rows.length; i += 100) {
      const chunk = rows.slice(i, i + 100);
      const marks = chunk.map(
        (_, r) =>
          `(${columns.map((_, c) => (kind.name === 'postgres' ? `$${r * columns.length + c + 1}` : '?')).join(', ')})`,
      );
      await ds.query(
        `INSERT INTO "check_results" (${columns.map(([c]) => `"${c}"`).join(', ')}) VALUES ${marks.join(', ')}`,
        chunk.flatMap((row) => columns.map(([, value]) => value(row))),
      );
    }
    const before = { count: await ds.manager.count(CheckResultEntity), contents: await contents(ds) };
    expect(before.count).toBe(rows.length);

    expect((await migrate(ds))[0]).toBe('PartitionedCheckHistory1766100000000');
    expect({ count: await ds.manager.count(CheckResultEntity), contents: await contents(ds) }).toEqual(before);
    // Still one row per check: storing one again changes nothing.
    expect(await repository.writeBatch([{ ...rows[7]!, id: 'f'.repeat(24) }], NO_ROLLUPS)).toBe(1);
    expect(await ds.manager.count(CheckResultEntity)).toBe(rows.length);

    if (kind.name === 'postgres') {
      // Every day with results got its partition; only the far past and far future wait in DEFAULT.
      expect(await partitionOf(ds, rows[0]!.scheduledAt)).toBe(partitionName(TODAY));
      expect(await partitionOf(ds, rows[1499]!.scheduledAt)).toBe(partitionName(partitionDay(rows[1499]!.scheduledAt)));
      expect(await partitionOf(ds, Date.UTC(2001, 0, 1))).toBe(DEFAULT_PARTITION);
      expect(await partitionOf(ds, Date.UTC(2090, 0, 1))).toBe(DEFAULT_PARTITION);
      expect(await partitionOf(ds, rows[1502]!.scheduledAt)).toBe(partitionName(partitionDay(rows[1502]!.scheduledAt)));
    } else {
      const indexes: { name: string }[] = await ds.query(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'check_results' ORDER BY name`,
      );
      expect(indexes.map((i) => i.name)).toEqual([
        'idx_check_results_checked',
        'idx_check_results_monitor_checked',
        'sqlite_autoindex_check_results_1',
      ]);
    }

    // And back: the single table again, with the same rows.
    await undoThrough(ds, 'PartitionedCheckHistory1766100000000');
    expect({ count: await ds.manager.count(CheckResultEntity), contents: await contents(ds) }).toEqual(before);
  });

  it('stores results due far in the past or the future, once each', async () => {
    const { ds, repository } = await fresh();
    const edges = [
      result(Date.UTC(1971, 0, 1)),
      result(NOW - 400 * PARTITION_MS),
      result(NOW + 40 * PARTITION_MS),
      result(Date.UTC(2200, 0, 1)),
      // A result whose checked_at is far from when it was due (a clock set wrong).
      result(NOW, MONITOR, -3 * SECONDS_PER_DAY),
      result(NOW + 1, MONITOR, 5 * SECONDS_PER_DAY),
    ];
    expect(await repository.writeBatch(edges, NO_ROLLUPS)).toBe(edges.length);
    expect(await repository.writeBatch(edges, NO_ROLLUPS)).toBe(edges.length);
    expect(await ds.manager.count(CheckResultEntity)).toBe(edges.length);
    const listed = await repository.list({ monitorId: MONITOR, order: 'asc', page: { page: 1, perPage: 10 } });
    expect(listed.rows.map((r) => r.scheduledAt)).toEqual(
      [...edges].sort((a, b) => a.checkedAt - b.checkedAt).map((r) => r.scheduledAt),
    );
    if (kind.name === 'postgres') {
      expect(await partitionOf(ds, Date.UTC(2200, 0, 1))).toBe(DEFAULT_PARTITION);
      // Its day's partition made later takes it out of DEFAULT, and it is still stored once.
      const day = partitionDay(NOW + 40 * PARTITION_MS);
      expect(await repository.ensurePartitions(day, day)).toEqual([partitionName(day)]);
      expect(await partitionOf(ds, NOW + 40 * PARTITION_MS)).toBe(partitionName(day));
      expect(await repository.writeBatch([edges[2]!], NO_ROLLUPS)).toBe(1);
      expect(await ds.manager.count(CheckResultEntity)).toBe(edges.length);
      const [{ n }]: [{ n: string }] = await ds.query(`SELECT count(*) AS n FROM "${DEFAULT_PARTITION}"`);
      // 1971, 400 days ago, 2200, and the two of today, whose partition this database never made.
      expect(Number(n)).toBe(5);
    }
  });

  it('retention deletes results older than RESULTS_RETENTION_DAYS and keeps the newer ones', async () => {
    const { ds, repository } = await fresh();
    const clock = new ManualClock(NOW);
    const retention = new ResultsRetention(repository, clock, loadCoordinatorConfig({ RESULTS_RETENTION_DAYS: '30' }));
    // Days 45, 40, 31, 30 and 29 ago, and today; two results a day.
    const ages = [45, 40, 31, 30, 29, 0];
    const rows = ages.flatMap((age) => [
      result((TODAY - age) * PARTITION_MS + 3_600_000),
      result((TODAY - age) * PARTITION_MS + 3_600_000, OTHER_MONITOR),
    ]);
    await retention.run(); // partitions for today and after
    for (const age of ages) await repository.ensurePartitions(TODAY - age, TODAY - age);
    expect(await repository.writeBatch(rows, NO_ROLLUPS)).toBe(rows.length);

    const outcome = await retention.run();
    const left = async () =>
      (await ds.manager.find(CheckResultEntity)).map((r) => TODAY - partitionDay(r.scheduledAt)).sort((a, b) => b - a);
    // The cut-off is 30 days ago at noon: the 31-day-old and older go; the 30-day-old day holds the cut-off.
    if (kind.name === 'postgres') {
      expect(outcome).toEqual({ results: 0, rollups: 0, partitionsCreated: 0, partitionsDropped: 3 });
      const names = (await repository.datedPartitions()).map((p) => p.name);
      for (const age of [45, 40, 31]) expect(names).not.toContain(partitionName(TODAY - age));
      for (const age of [30, 29, 0]) expect(names).toContain(partitionName(TODAY - age));
      // The partition holding the cut-off goes whole, later, not row by row now.
      expect(await left()).toEqual([30, 30, 29, 29, 0, 0]);
      clock.advance(SECONDS_PER_DAY * 1000);
      expect(await retention.run()).toMatchObject({ results: 0, partitionsDropped: 1 });
      expect(await left()).toEqual([29, 29, 0, 0]);
    } else {
      expect(outcome).toEqual({ results: 8, rollups: 0, partitionsCreated: 0, partitionsDropped: 0 });
      expect(await left()).toEqual([29, 29, 0, 0]);
    }
  });
});

const SHARED = testDatabases().filter((kind) => kind.name === 'postgres');
if (SHARED.length > 0) {
  describe.each(SHARED)('check_results partitions on $name', (kind) => {
    let db: TestDatabase;
    const sources = new OpenedDataSources();
    beforeAll(() => Logger.overrideLogger(false));
    afterEach(async () => {
      await sources.closeAll();
      await db.drop();
    });

    async function replica(): Promise<CheckResultsRepository> {
      const ds = await sources.open(db.url);
      return new CheckResultsRepository(new Database(ds));
    }

    it('the retention job makes the partitions of today and the days ahead, by its clock', async () => {
      db = await kind.create();
      const repository = await replica();
      await migrate(sources.all[0]!);
      const clock = new ManualClock(NOW);
      const retention = new ResultsRetention(repository, clock, loadCoordinatorConfig({}));
      const ahead = (from: number, days: number) => Array.from({ length: days }, (_, i) => partitionName(from + i));
      expect(await retention.run()).toMatchObject({
        partitionsCreated: PARTITION_DAYS_AHEAD + 1,
        partitionsDropped: 0,
      });
      const names = async () => (await repository.datedPartitions()).map((p) => p.name);
      expect(await names()).toEqual(expect.arrayContaining(ahead(TODAY, PARTITION_DAYS_AHEAD + 1)));
      expect(await names()).not.toContain(partitionName(TODAY + PARTITION_DAYS_AHEAD + 1));
      expect(await retention.run()).toMatchObject({ partitionsCreated: 0 });
      clock.advance(2 * SECONDS_PER_DAY * 1000);
      expect(await retention.run()).toMatchObject({ partitionsCreated: 2 });
      expect(await names()).toEqual(expect.arrayContaining(ahead(TODAY, PARTITION_DAYS_AHEAD + 3)));
    });

    it('two replicas making the same partitions at once make each once, and both succeed', async () => {
      db = await kind.create();
      const [a, b] = [await replica(), await replica()];
      await migrate(sources.all[0]!);
      const [fromA, fromB] = await Promise.all([
        a.ensurePartitions(TODAY, TODAY + 6),
        b.ensurePartitions(TODAY, TODAY + 6),
      ]);
      const expected = Array.from({ length: 7 }, (_, i) => partitionName(TODAY + i));
      expect([...fromA, ...fromB].sort()).toEqual(expected);
      const names = (await a.datedPartitions()).map((p) => p.name);
      expect(names.filter((n) => expected.includes(n))).toEqual(expected);
      // And dropping at once drops each once.
      const cutoff = ((TODAY + 8) * PARTITION_MS) / 1000;
      const [droppedA, droppedB] = await Promise.all([a.dropPartitionsBefore(cutoff), b.dropPartitionsBefore(cutoff)]);
      expect([...droppedA, ...droppedB].filter((n) => expected.includes(n)).sort()).toEqual(expected);
    });
  });
}
