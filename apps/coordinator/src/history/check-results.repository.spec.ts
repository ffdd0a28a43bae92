import { afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { EntityManager, type DataSource } from 'typeorm';
import type { RegionId } from '#contracts';
import { ManualClock } from '#runtime';
import { approximately, probeResult } from '../../../../test/support/check-results.js';
import { testDatabases, withTestSecretsKey, type TestDatabase } from '../../../../test/support/databases.js';
import { createCoordinatorApp } from '../app.js';
import { AccountEntity } from '../auth/account.entity.js';
import { loadCoordinatorConfig, type CoordinatorConfig } from '../config.js';
import { openDataSource, parseDatabaseUrl } from '../database/data-source.js';
import { ENTITIES } from '../entities.js';
import { Database } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import { insertMonitorRow } from '../../../../test/support/monitor-rows.js';
import { CheckResultEntity, CheckRollupEntity } from './check-result.entity.js';
import { CheckResultsRepository, RESULTS_BATCH_SIZE, SQLITE_RESULTS_BATCH_SIZE } from './check-results.repository.js';
import { bucketOf } from './histogram.js';
import { ResultsRetention } from './results-retention.js';
import { ResultsWriter } from './results-writer.js';
import { dayOf, SECONDS_PER_DAY, uptimePercent } from './stats.js';

const ACCOUNT = 'a'.repeat(24);
const MONITOR = 'b'.repeat(24);
const OTHER_MONITOR = 'c'.repeat(24);
/** 2026-03-10 12:00:00 UTC. */
const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);
const NOW_S = NOW / 1000;
const TODAY = dayOf(NOW_S);

const insertMonitor = (ds: DataSource, id: string) => insertMonitorRow(ds, id, ACCOUNT, NOW_S);

describe.each(testDatabases())('check history storage on $name', (kind) => {
  let db: TestDatabase;
  let ds: DataSource;
  let repository: CheckResultsRepository;
  let clock: ManualClock;
  let config: CoordinatorConfig;
  let writer: ResultsWriter;

  beforeAll(() => Logger.overrideLogger(false));

  beforeEach(async () => {
    db = await kind.create();
    ds = await openDataSource(parseDatabaseUrl(db.url)!, ENTITIES);
    await migrate(ds);
    await ds.manager.insert(AccountEntity, { id: ACCOUNT, name: 'a', subscriptionStatus: 'active', createdAt: NOW_S });
    await insertMonitor(ds, MONITOR);
    await insertMonitor(ds, OTHER_MONITOR);
    repository = new CheckResultsRepository(new Database(ds));
    clock = new ManualClock(NOW);
    config = loadCoordinatorConfig({});
    writer = new ResultsWriter(repository, clock, config);
  });

  afterEach(async () => {
    await writer.beforeApplicationShutdown();
    if (ds.isInitialized) await ds.destroy();
    await db.drop();
  });

  const rollup = (monitorId: string, day: number, region: RegionId) =>
    ds.manager.findOneBy(CheckRollupEntity, { monitorId, day, region });

  it('writes in batches of at most batchSize (smaller on SQLite), one transaction each, and empties the buffer', async () => {
    const writeBatch = jest.spyOn(repository, 'writeBatch');
    const size = repository.batchSize;
    expect(size).toBe(kind.name === 'sqlite' ? SQLITE_RESULTS_BATCH_SIZE : RESULTS_BATCH_SIZE);
    const total = 2 * size + 100;
    const regions: RegionId[] = ['eu-west-1', 'us-east-1', 'ap-east-1'];
    for (let i = 0; i < total; i++) writer.add(probeResult(MONITOR, regions[i % 3]!, 'up', 100 + (i % 7)));
    // Reaching the batch size started a flush already; this one waits for it and writes the rest.
    await writer.flush();
    expect(writeBatch.mock.calls.map(([rows]) => rows.length)).toEqual([size, size, 100]);
    expect(writer.pending).toBe(0);
    expect(await ds.manager.count(CheckResultEntity)).toBe(total);
    const rollups = await ds.manager.findBy(CheckRollupEntity, { monitorId: MONITOR });
    expect(rollups.map((r) => r.checks).reduce((a, b) => a + b)).toBe(total);
  });

  it('stores every field; a duplicate check_id (late or repeated) changes nothing', async () => {
    const first = probeResult(MONITOR, 'eu-west-1', 'down', 812, NOW - 60_000);
    first.cert_not_after = 1_900_000_000;
    first.timings = { dns_ms: 5, connect_ms: 7, total_ms: 812 };
    writer.add(first, NOW_S - 59);
    writer.add({ ...first, status: 'up', error: null }, NOW_S - 58);
    await writer.flush();
    writer.add({ ...first, status: 'unknown', response_time_ms: null }, NOW_S);
    await writer.flush();

    const rows = await ds.manager.find(CheckResultEntity);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      monitorId: MONITOR,
      checkId: `${MONITOR}:${NOW - 60_000}:eu-west-1`,
      region: 'eu-west-1',
      status: 'down',
      phase: 'response',
      error: 'HTTP 503',
      responseTimeMs: 812,
      timings: { total_ms: 812, dns_ms: 5, connect_ms: 7 },
      httpStatus: 503,
      certNotAfter: 1_900_000_000,
      agentId: 'agent-1',
      checkerIp: '192.0.2.10',
      scheduledAt: NOW - 60_000,
      checkedAt: NOW_S - 59,
      inMaintenance: false,
    });
    expect(await rollup(MONITOR, TODAY, 'eu-west-1')).toMatchObject({ checks: 1, failures: 1, unknowns: 0 });
  });

  it('stores results taken in maintenance flagged, and leaves them out of roll-ups and raw figures (0026)', async () => {
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 100, NOW - 50_000), NOW_S - 50);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'down', null, NOW - 40_000), NOW_S - 40, true);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'down', null, NOW - 30_000), NOW_S - 30, true);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 300, NOW - 20_000), NOW_S - 20, true);
    await writer.flush();
    const rows = await ds.manager.find(CheckResultEntity, { order: { checkedAt: 'ASC' } });
    expect(rows.map((r) => r.inMaintenance)).toEqual([false, true, true, true]);
    expect(await rollup(MONITOR, TODAY, 'eu-west-1')).toMatchObject({ checks: 1, failures: 0, unknowns: 0 });
    const figures = await repository.rawFigures(MONITOR, NOW_S - 3600, NOW_S);
    expect(figures.overall).toMatchObject({ checks: 1, failures: 0 });
    const listed = await repository.list({ monitorId: MONITOR, order: 'asc', page: { page: 1, perPage: 10 } });
    expect(listed.rows.map((r) => [r.status, r.inMaintenance])).toEqual([
      ['up', false],
      ['down', true],
      ['down', true],
      ['up', true],
    ]);
  });

  it("figures per monitor and slice for an account's summary: slices from the origin, only results from `from` to `to`", async () => {
    const from = NOW_S - 7200;
    // Slices start half an hour before the window: its first slice is partly outside it.
    const origin = from - 1800;
    writer.add(probeResult(MONITOR, 'eu-west-1', 'down', null, (from - 100) * 1000), from - 100);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 100, (from + 10) * 1000), from + 10);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 200, (NOW_S - 100) * 1000), NOW_S - 100);
    writer.add(probeResult(MONITOR, 'us-east-1', 'down', null, (NOW_S - 50) * 1000), NOW_S - 50);
    // Exactly at `to`: in the slice `to` falls in.
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 400, NOW_S * 1000), NOW_S);
    writer.add(probeResult(OTHER_MONITOR, 'eu-west-1', 'up', 50, NOW_S * 1000), NOW_S);
    await writer.flush();
    const slices = await repository.accountBuckets(ACCOUNT, from, NOW_S, 3600, origin);
    const shown = slices
      .map((s) => [s.monitorId, s.bucket, s.checks, s.failures, s.sumResponseMs, s.countResponse])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1]));
    expect(shown).toEqual(
      [
        [MONITOR, 0, 1, 0, 100, 1],
        [MONITOR, 2, 3, 1, 600, 2],
        [OTHER_MONITOR, 2, 1, 0, 50, 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1])),
    );
  });

  it('keeps per-day roll-ups per monitor and region exact across flushes: counts, sums and nearest-rank p95', async () => {
    const at = (dayOffset: number, second: number) => NOW_S + dayOffset * SECONDS_PER_DAY - 3_600 + second;
    // Today, eu-west-1: up 1..20 ms in two flushes, two downs (their times do not count), one unknown, one blocked.
    for (let ms = 1; ms <= 10; ms++) writer.add(probeResult(MONITOR, 'eu-west-1', 'up', ms * 10), at(0, ms));
    writer.add(probeResult(MONITOR, 'eu-west-1', 'down', 5_000), at(0, 100));
    await writer.flush();
    expect(await rollup(MONITOR, TODAY, 'eu-west-1')).toEqual({
      monitorId: MONITOR,
      day: TODAY,
      region: 'eu-west-1',
      checks: 11,
      failures: 1,
      unknowns: 0,
      sumResponseMs: 550,
      countResponse: 10,
      p95ResponseMs: 100,
      histogram: '{"10":1,"20":1,"30":1,"40":1,"50":1,"60":1,"70":1,"80":1,"90":1,"100":1}',
    });
    for (let ms = 11; ms <= 20; ms++) writer.add(probeResult(MONITOR, 'eu-west-1', 'up', ms * 10), at(0, ms));
    writer.add(probeResult(MONITOR, 'eu-west-1', 'down', null), at(0, 101));
    writer.add(probeResult(MONITOR, 'eu-west-1', 'unknown', null), at(0, 102));
    writer.add(probeResult(MONITOR, 'eu-west-1', 'blocked', null), at(0, 103));
    // Yesterday, same region, and another monitor today: separate keys.
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 999), at(-1, 7_200));
    writer.add(probeResult(OTHER_MONITOR, 'eu-west-1', 'up', 7), at(0, 0));
    // Today, us-east-1: one up without a response time.
    writer.add(probeResult(MONITOR, 'us-east-1', 'up', null), at(0, 5));
    await writer.flush();

    expect(await rollup(MONITOR, TODAY, 'eu-west-1')).toMatchObject({
      checks: 24,
      failures: 2,
      unknowns: 2,
      sumResponseMs: 2_100,
      countResponse: 20,
      // ceil(0.95 × 20) = 19th smallest.
      p95ResponseMs: approximately(190),
    });
    expect(await rollup(MONITOR, TODAY - 1, 'eu-west-1')).toMatchObject({
      checks: 1,
      p95ResponseMs: approximately(999),
    });
    expect(await rollup(OTHER_MONITOR, TODAY, 'eu-west-1')).toMatchObject({ checks: 1, p95ResponseMs: 7 });
    expect(await rollup(MONITOR, TODAY, 'us-east-1')).toMatchObject({
      checks: 1,
      failures: 0,
      sumResponseMs: 0,
      countResponse: 0,
      p95ResponseMs: null,
    });
    expect(await ds.manager.count(CheckRollupEntity)).toBe(4);

    const raw = await repository.rawFigures(MONITOR, NOW_S - SECONDS_PER_DAY, NOW_S);
    expect(raw.overall).toEqual({
      checks: 26,
      failures: 2,
      unknowns: 2,
      sumResponseMs: 2_100 + 999,
      countResponse: 21,
      // 21 values (10..200 and 999): ceil(0.95 × 21) = 20th smallest.
      p95ResponseMs: 200,
    });
    expect(raw.regions.sort((x, y) => x.region.localeCompare(y.region))).toEqual([
      {
        region: 'eu-west-1',
        checks: 25,
        failures: 2,
        unknowns: 2,
        sumResponseMs: 3_099,
        countResponse: 21,
        p95ResponseMs: 200,
      },
      {
        region: 'us-east-1',
        checks: 1,
        failures: 0,
        unknowns: 0,
        sumResponseMs: 0,
        countResponse: 0,
        p95ResponseMs: null,
      },
    ]);
  });

  it('leaves UNKNOWN and BLOCKED results out of the roll-ups’ uptime, for and against', async () => {
    const yesterday = NOW_S - SECONDS_PER_DAY;
    // Yesterday only undecided results (agents unreachable); today two UPs among undecided ones.
    writer.add(probeResult(MONITOR, 'eu-west-1', 'unknown', null), yesterday - 20);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'blocked', null), yesterday - 10);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 100), NOW_S - 30);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'unknown', null), NOW_S - 20);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 120), NOW_S - 10);
    await writer.flush();
    const before = await rollup(MONITOR, TODAY - 1, 'eu-west-1');
    expect(before).toMatchObject({ checks: 2, failures: 0, unknowns: 2, countResponse: 0 });
    expect(uptimePercent(before!)).toBeNull();
    const today = await rollup(MONITOR, TODAY, 'eu-west-1');
    expect(today).toMatchObject({ checks: 3, failures: 0, unknowns: 1, sumResponseMs: 220, countResponse: 2 });
    expect(uptimePercent(today!)).toBe(100);
  });

  describe('last_checked_at', () => {
    const lastCheckedAt = async (id: string) => (await ds.manager.findOneByOrFail(MonitorEntity, { id })).lastCheckedAt;

    it('follows the newest UP or DOWN result, never moves back, and ignores UNKNOWN and BLOCKED', async () => {
      expect(await lastCheckedAt(MONITOR)).toBeNull();
      writer.add(probeResult(MONITOR, 'eu-west-1', 'unknown', null), NOW_S - 10);
      writer.add(probeResult(MONITOR, 'us-east-1', 'blocked', null), NOW_S - 5);
      writer.add(probeResult(OTHER_MONITOR, 'eu-west-1', 'unknown', null), NOW_S - 5);
      await writer.flush();
      expect([await lastCheckedAt(MONITOR), await lastCheckedAt(OTHER_MONITOR)]).toEqual([null, null]);

      // The newest decided result of the batch wins, whatever the order within it.
      writer.add(probeResult(MONITOR, 'eu-west-1', 'down', null), NOW_S - 50);
      writer.add(probeResult(MONITOR, 'us-east-1', 'up', 10), NOW_S - 100);
      writer.add(probeResult(MONITOR, 'eu-west-1', 'unknown', null), NOW_S - 1);
      await writer.flush();
      expect([await lastCheckedAt(MONITOR), await lastCheckedAt(OTHER_MONITOR)]).toEqual([NOW_S - 50, null]);

      // A late result (an older check answered after a newer one) does not move it back.
      const late = probeResult(MONITOR, 'us-east-1', 'up', 10);
      writer.add(late, NOW_S - 200);
      writer.add(probeResult(OTHER_MONITOR, 'eu-west-1', 'up', 10), NOW_S - 30);
      await writer.flush();
      expect([await lastCheckedAt(MONITOR), await lastCheckedAt(OTHER_MONITOR)]).toEqual([NOW_S - 50, NOW_S - 30]);

      // A duplicate of a stored check changes nothing, even with a later checked_at.
      writer.add(late, NOW_S);
      await writer.flush();
      expect(await lastCheckedAt(MONITOR)).toBe(NOW_S - 50);

      writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10), NOW_S - 20);
      await writer.flush();
      expect(await lastCheckedAt(MONITOR)).toBe(NOW_S - 20);
    });

    it('is written by one statement per batch, in the batch’s transaction', async () => {
      const ids = Array.from({ length: 30 }, (_, i) => i.toString(16).padStart(24, 'e'));
      for (const id of ids) await insertMonitor(ds, id);
      const query = jest.spyOn(EntityManager.prototype, 'query');
      try {
        // 120 results: one batch on either database.
        ids.forEach((id, i) => {
          for (let k = 0; k < 4; k++) {
            writer.add(probeResult(id, 'eu-west-1', k % 3 === 0 ? 'unknown' : 'up', 10), NOW_S - 100 + i + k);
          }
        });
        await writer.flush();
        const updates = query.mock.calls.filter(([sql]) => /^\s*(WITH .*)?UPDATE "monitors"/s.test(sql));
        expect(updates).toHaveLength(1);
      } finally {
        query.mockRestore();
      }
      // k = 3 is UNKNOWN (3 % 3 = 0): the newest decided result of monitor i is at k = 2.
      for (const [i, id] of ids.entries()) expect(await lastCheckedAt(id)).toBe(NOW_S - 100 + i + 2);
    });

    it('rolls back with the batch', async () => {
      const rollups = jest.spyOn(repository as unknown as { addToRollups: () => Promise<void> }, 'addToRollups');
      rollups.mockRejectedValue(new Error('disk full'));
      try {
        writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10), NOW_S - 5);
        await writer.flush(); // the batch fails, then the row alone fails and is dropped
      } finally {
        rollups.mockRestore();
      }
      expect(await ds.manager.count(CheckResultEntity)).toBe(0);
      expect(await lastCheckedAt(MONITOR)).toBeNull();
    });
  });

  it('recomputes once from raw rows a roll-up stored before histograms existed, then adds to it', async () => {
    for (const ms of [120, 140, 160]) writer.add(probeResult(MONITOR, 'eu-west-1', 'up', ms), NOW_S - 300 + ms);
    await writer.flush();
    // As an older Picket left it: no histogram, and figures that only a recompute can repair.
    await ds.manager.update(
      CheckRollupEntity,
      { monitorId: MONITOR, day: TODAY, region: 'eu-west-1' },
      { histogram: null, checks: 1, sumResponseMs: 1, countResponse: 1, p95ResponseMs: 1 },
    );
    writer.add(probeResult(MONITOR, 'eu-west-1', 'down', null), NOW_S - 10);
    await writer.flush();
    const recomputed = await rollup(MONITOR, TODAY, 'eu-west-1');
    expect(recomputed).toMatchObject({ checks: 4, failures: 1, sumResponseMs: 420, countResponse: 3 });
    expect(recomputed?.histogram).toBe(JSON.stringify({ [bucketOf(120)]: 1, [bucketOf(140)]: 1, [bucketOf(160)]: 1 }));
    expect(recomputed?.p95ResponseMs).toEqual(approximately(160));
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 50), NOW_S - 5);
    await writer.flush();
    expect(await rollup(MONITOR, TODAY, 'eu-west-1')).toMatchObject({
      checks: 5,
      sumResponseMs: 470,
      countResponse: 4,
    });
  });

  it('drops results of unknown monitors and results older than the retention without failing the batch', async () => {
    writer.add(probeResult('d'.repeat(24), 'eu-west-1', 'up', 10));
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10), NOW_S - 31 * SECONDS_PER_DAY);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10));
    await writer.flush();
    expect(await ds.manager.count(CheckResultEntity)).toBe(1);
    expect(await ds.manager.count(CheckRollupEntity)).toBe(1);
  });

  it('retention deletes raw results older than RESULTS_RETENTION_DAYS and roll-ups older than max(90, it) days', async () => {
    for (const age of [0, 10, 29, 31, 40]) {
      writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10), NOW_S - age * SECONDS_PER_DAY);
    }
    // The 31- and 40-day-old results were already too old to store: the writer drops them.
    await writer.flush();
    expect(await ds.manager.count(CheckResultEntity)).toBe(3);
    const figures = { checks: 1, failures: 0, unknowns: 0, sumResponseMs: 10, countResponse: 1, p95ResponseMs: 10 };
    for (const age of [50, 90, 91, 120, 121]) {
      await ds.manager.insert(CheckRollupEntity, {
        monitorId: MONITOR,
        day: TODAY - age,
        region: 'eu-west-1',
        ...figures,
      });
    }
    const retention = new ResultsRetention(repository, clock, config);
    clock.advance(5 * SECONDS_PER_DAY * 1000);
    // Five days on, the 29-day-old result is 34 days old and roll-ups older than TODAY - 85 go.
    expect(await retention.run()).toMatchObject({ results: 1, rollups: 4 });
    expect((await ds.manager.find(CheckResultEntity)).map((r) => NOW_S - r.checkedAt).sort((x, y) => x - y)).toEqual([
      0,
      10 * SECONDS_PER_DAY,
    ]);
    const days = async () => (await ds.manager.find(CheckRollupEntity)).map((r) => TODAY - r.day).sort((x, y) => x - y);
    // The roll-up of the deleted result's day stays: roll-ups outlive raw results.
    expect(await days()).toEqual([0, 10, 29, 50]);
    expect(await retention.run()).toMatchObject({ results: 0, rollups: 0 });

    // A longer raw retention keeps roll-ups as long.
    for (const age of [100, 130]) {
      await ds.manager.insert(CheckRollupEntity, {
        monitorId: MONITOR,
        day: TODAY - age,
        region: 'eu-west-1',
        ...figures,
      });
    }
    const long = new ResultsRetention(repository, clock, loadCoordinatorConfig({ RESULTS_RETENTION_DAYS: '120' }));
    expect(await long.run()).toMatchObject({ results: 0, rollups: 1 });
    expect(await days()).toEqual([0, 10, 29, 50, 100]);
  });

  it('retention deletes raw rows in bounded batches', async () => {
    for (let i = 0; i < 7; i++) writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10), NOW_S - 100 + i);
    await writer.flush();
    expect(await repository.deleteResultsBefore(NOW_S, 3)).toBe(3);
    expect(await repository.deleteResultsBefore(NOW_S, 3)).toBe(3);
    expect(await repository.deleteResultsBefore(NOW_S, 3)).toBe(1);
    expect(await ds.manager.count(CheckResultEntity)).toBe(0);
  });

  it('deleting a monitor deletes its results and roll-ups (and nothing else)', async () => {
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10));
    writer.add(probeResult(MONITOR, 'us-east-1', 'down', 10));
    writer.add(probeResult(OTHER_MONITOR, 'eu-west-1', 'up', 10));
    await writer.flush();
    expect(await ds.manager.count(CheckRollupEntity)).toBe(3);
    await ds.manager.delete(MonitorEntity, { id: MONITOR });
    expect(await ds.manager.countBy(CheckResultEntity, { monitorId: MONITOR })).toBe(0);
    expect(await ds.manager.countBy(CheckRollupEntity, { monitorId: MONITOR })).toBe(0);
    expect(await ds.manager.count(CheckResultEntity)).toBe(1);
    expect(await ds.manager.count(CheckRollupEntity)).toBe(1);
  });

  it('lists a monitor’s results newest first (ties by id), by region, page by page', async () => {
    const regions: RegionId[] = ['eu-west-1', 'us-east-1'];
    for (let i = 0; i < 6; i++)
      writer.add(probeResult(MONITOR, regions[i % 2]!, 'up', i), NOW_S - 10 + Math.floor(i / 2));
    writer.add(probeResult(OTHER_MONITOR, 'eu-west-1', 'up', 1));
    await writer.flush();
    const page = (n: number, perPage: number, region?: RegionId, order: 'asc' | 'desc' = 'desc') =>
      repository.list({ monitorId: MONITOR, region, order, page: { page: n, perPage } });
    const all = await page(1, 10);
    expect(all.total).toBe(6);
    expect(all.rows.map((r) => r.responseTimeMs)).toEqual([5, 4, 3, 2, 1, 0]);
    expect((await page(2, 4)).rows.map((r) => r.responseTimeMs)).toEqual([1, 0]);
    expect((await page(3, 4)).rows).toEqual([]);
    const eu = await page(1, 10, 'eu-west-1');
    expect({ total: eu.total, times: eu.rows.map((r) => r.responseTimeMs) }).toEqual({ total: 3, times: [4, 2, 0] });
    expect((await page(1, 2, undefined, 'asc')).rows.map((r) => r.responseTimeMs)).toEqual([0, 1]);
  });

  it('writes what is buffered when the application shuts down cleanly', async () => {
    const app = await createCoordinatorApp(
      loadCoordinatorConfig(withTestSecretsKey({ DATABASE_URL: db.url, LOG_LEVEL: 'error' })),
      {
        clock,
        logger: false,
      },
    );
    const appWriter = app.get(ResultsWriter);
    for (let i = 0; i < 3; i++) appWriter.add(probeResult(MONITOR, 'eu-west-1', 'up', 10 + i));
    expect(appWriter.pending).toBe(3);
    await app.close();
    expect(appWriter.pending).toBe(0);
    expect(await ds.manager.count(CheckResultEntity)).toBe(3);
    expect(await rollup(MONITOR, TODAY, 'eu-west-1')).toMatchObject({ checks: 3, sumResponseMs: 33 });
  });
});

/**
 * Several coordinator replicas write results of the same monitor at once (PostgreSQL only:
 * one SQLite file serves one coordinator). Each recompute must see what the others committed.
 */
const SHARED = testDatabases().filter((kind) => kind.name === 'postgres');
if (SHARED.length > 0) {
  describe.each(SHARED)('check history written by several replicas on $name', (kind) => {
    it('keeps the roll-up exact when replicas flush the same monitor, day and region concurrently', async () => {
      Logger.overrideLogger(false);
      const db = await kind.create();
      const sources: DataSource[] = [];
      try {
        for (let i = 0; i < 3; i++) sources.push(await openDataSource(parseDatabaseUrl(db.url)!, ENTITIES));
        await migrate(sources[0]!);
        await sources[0]!.manager.insert(AccountEntity, {
          id: ACCOUNT,
          name: 'a',
          subscriptionStatus: 'active',
          createdAt: NOW_S,
        });
        await insertMonitor(sources[0]!, MONITOR);
        const config = loadCoordinatorConfig({});
        const writers = sources.map(
          (ds) => new ResultsWriter(new CheckResultsRepository(new Database(ds)), new ManualClock(NOW), config),
        );
        const rounds = 15;
        for (let round = 0; round < rounds; round++) {
          await Promise.all(
            writers.map((writer, i) => {
              writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 100 * i + round + 1), NOW_S - round);
              return writer.flush();
            }),
          );
        }
        const rollup = await sources[0]!.manager.findOneByOrFail(CheckRollupEntity, {
          monitorId: MONITOR,
          day: TODAY,
          region: 'eu-west-1',
        });
        const times = writers.flatMap((_, i) => Array.from({ length: rounds }, (_, round) => 100 * i + round + 1));
        expect(rollup).toMatchObject({
          checks: times.length,
          sumResponseMs: times.reduce((x, y) => x + y),
          countResponse: times.length,
          p95ResponseMs: approximately([...times].sort((x, y) => x - y)[Math.ceil(0.95 * times.length) - 1]!),
        });
      } finally {
        for (const ds of sources) if (ds.isInitialized) await ds.destroy();
        await db.drop();
      }
    });
  });
}
