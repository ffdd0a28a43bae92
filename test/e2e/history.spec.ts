/**
 * Check history over HTTP: GET /api/monitors/{id}/checks and /stats against a real
 * coordinator, with results seeded through the ResultsWriter the probing pipeline uses.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { CheckStatus, RegionId } from '#contracts';
import { ManualClock } from '#runtime';
import { PERMISSIONS } from '../../apps/coordinator/src/auth/permissions.js';
import { DATA_SOURCE } from '../../apps/coordinator/src/database/database.js';
import { CheckResultEntity, CheckRollupEntity } from '../../apps/coordinator/src/history/check-result.entity.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import type { ApiClient } from '../support/api-client.js';
import { approximately, probeResult } from '../support/check-results.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { createMonitor, expectError, expectValidationError, UNKNOWN_ID } from '../support/monitor-fixtures.js';

/** 2026-03-10 12:00:00 UTC. */
const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);
const NOW_S = NOW / 1000;
const HOUR = 3_600;
const DAY = 86_400;

const CHECK_FIELDS = [
  'checked_at',
  'checker_ip',
  'error',
  'http_status',
  'id',
  'in_maintenance',
  'phase',
  'region',
  'response_time_ms',
  'status',
  'timings',
];

interface Seed {
  region: RegionId;
  status: CheckStatus;
  ms: number | null;
  /** Seconds before NOW. */
  ago: number;
}

/**
 * The seeded history of the main monitor (regions eu-west-1, us-east-1). ap-east-1 was one
 * of its regions two days ago. Expected figures below are worked out by hand from this table.
 */
const SEEDS: readonly Seed[] = [
  // today, inside the last 24 hours
  { region: 'eu-west-1', status: 'up', ms: 100, ago: 1 * HOUR },
  { region: 'eu-west-1', status: 'up', ms: 200, ago: 2 * HOUR },
  { region: 'eu-west-1', status: 'up', ms: 300, ago: 3 * HOUR },
  { region: 'eu-west-1', status: 'up', ms: 400, ago: 4 * HOUR },
  { region: 'eu-west-1', status: 'down', ms: 50, ago: 5 * HOUR },
  { region: 'eu-west-1', status: 'unknown', ms: null, ago: 6 * HOUR },
  { region: 'us-east-1', status: 'up', ms: 1_000, ago: 30 * 60 },
  { region: 'us-east-1', status: 'down', ms: null, ago: 90 * 60 },
  // yesterday 16:00, still inside the last 24 hours
  { region: 'eu-west-1', status: 'up', ms: 500, ago: 20 * HOUR },
  // 3 days ago, 2 days ago (a removed region), 10 days ago
  { region: 'eu-west-1', status: 'up', ms: 50, ago: 3 * DAY },
  { region: 'eu-west-1', status: 'down', ms: 20, ago: 3 * DAY + HOUR },
  { region: 'ap-east-1', status: 'up', ms: 80, ago: 2 * DAY },
  { region: 'us-east-1', status: 'up', ms: 700, ago: 10 * DAY },
];

describe.each(testDatabases())('check history API on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let a: ApiClient;
  let accountId: string;
  let monitorId: string;
  let writer: ResultsWriter;
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock });
    ({ client: a, accountId } = await c.newAccount('history'));
    monitorId = (await createMonitor(a, { regions: ['eu-west-1', 'us-east-1'] })).id;
    writer = c.app.get(ResultsWriter);
    for (const seed of SEEDS) {
      const result = probeResult(monitorId, seed.region, seed.status, seed.ms);
      writer.add(result, NOW_S - seed.ago);
    }
    // Another monitor's results never show.
    const other = (await createMonitor(a, { regions: ['eu-west-1'] })).id;
    writer.add(probeResult(other, 'eu-west-1', 'down', 9_999), NOW_S - 60);
    await writer.flush();
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const checks = (query = '') => a.get(`/api/monitors/${monitorId}/checks${query}`);
  const stats = (query = '') => a.get(`/api/monitors/${monitorId}/stats${query}`);

  describe('GET /api/monitors/{id}/checks', () => {
    it('lists every result newest first, each with the documented fields and no more', async () => {
      const res = await checks();
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
      expect(res.body.status).toBe('ok');
      expect(Object.keys(res.body.data).sort()).toEqual(['checks', 'pagination']);
      const list = res.body.data.checks;
      expect(list.map((check: any) => check.checked_at)).toEqual(
        [...SEEDS].sort((x, y) => x.ago - y.ago).map((seed) => NOW_S - seed.ago),
      );
      expect(res.body.data.pagination).toEqual({
        page: 1,
        per_page: 50,
        total: SEEDS.length,
        total_pages: 1,
        has_next: false,
        has_prev: false,
      });
      for (const check of list) expect(Object.keys(check).sort()).toEqual(CHECK_FIELDS);
      expect(list[0]).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        region: 'us-east-1',
        status: 'up',
        response_time_ms: 1_000,
        timings: { dns_ms: 1, connect_ms: 2, tls_ms: 3, first_byte_ms: 4, total_ms: 1_000 },
        http_status: 200,
        error: null,
        phase: null,
        checked_at: NOW_S - 30 * 60,
        checker_ip: '192.0.2.10',
        in_maintenance: false,
      });
      const unknown = list.find((check: any) => check.status === 'unknown');
      expect(unknown).toMatchObject({
        region: 'eu-west-1',
        response_time_ms: null,
        http_status: null,
        error: 'no agent serves the region',
        phase: 'internal',
      });
      expect(new Set(list.map((check: any) => check.id)).size).toBe(SEEDS.length);
    });

    it('pages through the results and answers a page past the end with an empty list', async () => {
      const all = (await checks()).body.data.checks.map((check: any) => check.id);
      const second = await checks('?per_page=5&page=2');
      expect(second.body.data.checks.map((check: any) => check.id)).toEqual(all.slice(5, 10));
      expect(second.body.data.pagination).toEqual({
        page: 2,
        per_page: 5,
        total: SEEDS.length,
        total_pages: 3,
        has_next: true,
        has_prev: true,
      });
      const past = await checks('?per_page=5&page=4');
      expect(past.status).toBe(200);
      expect(past.body.data.checks).toEqual([]);
      expect(past.body.data.pagination).toMatchObject({ page: 4, total: SEEDS.length, has_next: false });
      const oldest = await checks('?order=asc&per_page=2');
      expect(oldest.body.data.checks.map((check: any) => check.id)).toEqual(all.slice(-2).reverse());
    });

    it('filters by region: the monitor’s, a removed one, or any other known region (empty)', async () => {
      const us = await checks('?region=us-east-1');
      expect(us.body.data.checks.map((check: any) => [check.region, check.checked_at])).toEqual([
        ['us-east-1', NOW_S - 30 * 60],
        ['us-east-1', NOW_S - 90 * 60],
        ['us-east-1', NOW_S - 10 * DAY],
      ]);
      expect(us.body.data.pagination.total).toBe(3);
      expect((await checks('?region=ap-east-1')).body.data.checks).toHaveLength(1);
      const unused = await checks('?region=eu-central-1');
      expect(unused.status).toBe(200);
      expect(unused.body.data).toEqual({
        checks: [],
        pagination: { page: 1, per_page: 50, total: 0, total_pages: 0, has_next: false, has_prev: false },
      });
    });

    it('refuses unknown regions, bad pages and unknown parameters with 422', async () => {
      for (const [query, field] of [
        ['?region=mars-1', 'region'],
        ['?region=EU-WEST-1', 'region'],
        ['?region=', 'region'],
        ['?per_page=101', 'per_page'],
        ['?per_page=0', 'per_page'],
        ['?page=0', 'page'],
        ['?order=newest', 'order'],
        ['?period=24h', 'period'],
        ['?monitor_id=x', 'monitor_id'],
        ['?region=us-east-1&region=eu-west-1', 'region'],
      ] as const) {
        expectValidationError(await checks(query), field);
      }
    });

    it('a repeated result (same check id) is stored once, as first written', async () => {
      const other = (await createMonitor(a, { regions: ['eu-west-1'] })).id;
      const seed = probeResult(other, 'eu-west-1', 'up', 1, NOW - 1);
      writer.add(seed, NOW_S - 10);
      writer.add({ ...seed, status: 'down' }, NOW_S - 9);
      await writer.flush();
      writer.add({ ...seed, response_time_ms: 2 }, NOW_S - 8);
      await writer.flush();
      const list = (await a.get(`/api/monitors/${other}/checks`)).body.data.checks;
      expect(list.map((check: any) => [check.status, check.response_time_ms, check.checked_at])).toEqual([
        ['up', 1, NOW_S - 10],
      ]);
      expect((await a.get(`/api/monitors/${other}/stats`)).body.data.overall.checks).toBe(1);
    });
  });

  describe('GET /api/monitors/{id}/stats', () => {
    it('24h (the default): exact figures from raw results, overall and per region', async () => {
      const res = await stats();
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
      expect(res.body.data).toEqual({
        period: '24h',
        from: NOW_S - DAY,
        to: NOW_S,
        // 9 results: 6 up, 2 down, 1 unknown → 6 / 8; up times 100 200 300 400 500 1000.
        overall: {
          checks: 9,
          failures: 2,
          unknowns: 1,
          uptime_percent: 75,
          mean_response_ms: 417,
          p95_response_ms: 1_000,
        },
        regions: [
          // 5 up, 1 down, 1 unknown → 5 / 6; mean 1500 / 5; p95 = 5th of 5.
          {
            region: 'eu-west-1',
            checks: 7,
            failures: 1,
            unknowns: 1,
            uptime_percent: 83.3333,
            mean_response_ms: 300,
            p95_response_ms: 500,
          },
          {
            region: 'us-east-1',
            checks: 2,
            failures: 1,
            unknowns: 0,
            uptime_percent: 50,
            mean_response_ms: 1_000,
            p95_response_ms: 1_000,
          },
        ],
      });
      expect((await stats('?period=24h')).body).toEqual(res.body);
    });

    it('30d: from the daily roll-ups of 30 UTC days up to today, removed regions after the monitor’s', async () => {
      const res = await stats('?period=30d');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        period: '30d',
        from: Date.UTC(2026, 1, 9) / 1000,
        to: NOW_S,
        // 13 results: 9 up, 3 down, 1 unknown → 9 / 12; up times sum 3330 over 9.
        // p95 of the merged daily histograms: the 9th of the 9 up times (1000 ms, within 1 %).
        overall: {
          checks: 13,
          failures: 3,
          unknowns: 1,
          uptime_percent: 75,
          mean_response_ms: 370,
          p95_response_ms: approximately(1_000),
        },
        regions: [
          // Up times: four today (at most 400), 500 yesterday, 50 three days ago → the 6th of 6.
          {
            region: 'eu-west-1',
            checks: 9,
            failures: 2,
            unknowns: 1,
            uptime_percent: 75,
            mean_response_ms: 258,
            p95_response_ms: approximately(500),
          },
          {
            region: 'us-east-1',
            checks: 3,
            failures: 1,
            unknowns: 0,
            uptime_percent: 66.6667,
            mean_response_ms: 850,
            p95_response_ms: approximately(1_000),
          },
          {
            region: 'ap-east-1',
            checks: 1,
            failures: 0,
            unknowns: 0,
            uptime_percent: 100,
            mean_response_ms: 80,
            p95_response_ms: 80,
          },
        ],
      });
    });

    it('7d and 90d cover that many UTC days, today included', async () => {
      const week = (await stats('?period=7d')).body.data;
      expect(week.from).toBe(Date.UTC(2026, 2, 4) / 1000);
      // The 10-day-old us-east-1 result is outside.
      expect(week.regions.find((r: any) => r.region === 'us-east-1')).toMatchObject({
        checks: 2,
        p95_response_ms: approximately(1_000),
      });
      expect(week.overall).toMatchObject({ checks: 12, failures: 3, unknowns: 1 });
      const quarter = (await stats('?period=90d')).body.data;
      expect(quarter.from).toBe(Date.UTC(2025, 11, 11) / 1000);
      expect(quarter.overall).toEqual((await stats('?period=30d')).body.data.overall);
    });

    it('a monitor without results: zero counts, null figures, its regions listed', async () => {
      const fresh = (await createMonitor(a, { regions: ['sa-east-1', 'eu-north-1'] })).id;
      for (const period of ['24h', '30d']) {
        const res = await a.get(`/api/monitors/${fresh}/stats?period=${period}`);
        expect(res.status).toBe(200);
        const empty = {
          checks: 0,
          failures: 0,
          unknowns: 0,
          uptime_percent: null,
          mean_response_ms: null,
          p95_response_ms: null,
        };
        expect(res.body.data.overall).toEqual(empty);
        expect(res.body.data.regions).toEqual([
          { region: 'sa-east-1', ...empty },
          { region: 'eu-north-1', ...empty },
        ]);
      }
      expect((await a.get(`/api/monitors/${fresh}/checks`)).body.data.checks).toEqual([]);
    });

    it('refuses a bad period and unknown parameters with 422', async () => {
      for (const [query, field] of [
        ['?period=1y', 'period'],
        ['?period=24H', 'period'],
        ['?period=', 'period'],
        ['?period=7d&period=30d', 'period'],
        ['?region=eu-west-1', 'region'],
        ['?page=1', 'page'],
      ] as const) {
        expectValidationError(await stats(query), field);
      }
    });
  });

  describe('access', () => {
    it('another account’s, unknown and malformed ids get the monitor 404, byte for byte', async () => {
      const stranger = (await c.newAccount('stranger')).client;
      const reference = await a.get(`/api/monitors/${UNKNOWN_ID}`);
      expectError(reference, 404, 'MONITOR_NOT_FOUND');
      for (const endpoint of ['checks', 'stats']) {
        for (const [client, id] of [
          [stranger, monitorId],
          [a, UNKNOWN_ID],
          [a, 'nope'],
          [a, monitorId.toUpperCase()],
          [a, '%E0%A4%A'],
        ] as const) {
          const res = await client.get(`/api/monitors/${id}/${endpoint}`);
          expect({ endpoint, id, status: res.status, text: res.text }).toEqual({
            endpoint,
            id,
            status: 404,
            text: reference.text,
          });
        }
      }
    });

    it('needs monitors:read (403 without it, 401 without a key)', async () => {
      const without = (
        await c.newKey(
          accountId,
          PERMISSIONS.filter((p) => p !== 'monitors:read'),
        )
      ).client;
      const readOnly = (await c.newKey(accountId, ['monitors:read'])).client;
      for (const endpoint of ['checks', 'stats']) {
        expectError(await without.get(`/api/monitors/${monitorId}/${endpoint}`), 403, 'FORBIDDEN');
        expectError(await c.client().get(`/api/monitors/${monitorId}/${endpoint}`), 401, 'UNAUTHORIZED');
        expect((await readOnly.get(`/api/monitors/${monitorId}/${endpoint}`)).status).toBe(200);
      }
    });

    it('other methods get 405 with Allow: GET', async () => {
      for (const endpoint of ['checks', 'stats']) {
        const res = await a.post(`/api/monitors/${monitorId}/${endpoint}`, {});
        expectError(res, 405, 'METHOD_NOT_ALLOWED');
        expect(
          res.headers
            .get('allow')
            ?.split(/,\s*/)
            .filter((m) => m !== 'HEAD'),
        ).toEqual(['GET']);
      }
    });
  });

  describe('deletion', () => {
    it('deleting the monitor deletes its results and roll-ups', async () => {
      const ds = c.app.get<DataSource>(DATA_SOURCE);
      expect(await ds.manager.countBy(CheckResultEntity, { monitorId })).toBe(SEEDS.length);
      expect(await ds.manager.countBy(CheckRollupEntity, { monitorId })).toBeGreaterThan(0);
      expect((await a.delete(`/api/monitors/${monitorId}`)).status).toBe(204);
      expect(await ds.manager.countBy(CheckResultEntity, { monitorId })).toBe(0);
      expect(await ds.manager.countBy(CheckRollupEntity, { monitorId })).toBe(0);
      expectError(await checks(), 404, 'MONITOR_NOT_FOUND');
      expectError(await stats(), 404, 'MONITOR_NOT_FOUND');
    });
  });
});
