/**
 * GET /api/monitor_summary against a real coordinator (docs/decisions/0031-monitor-summary.md):
 * every figure equals what the per-monitor routes answer, only the account's monitors show, the
 * permission is monitors:read, the answer is gzipped when asked, and the number of SQL statements
 * does not grow with the number of monitors.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import BetterSqlite3 from 'better-sqlite3';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { DataSource, QueryRunner } from 'typeorm';
import type { CheckStatus, RegionId } from '#contracts';
import { ManualClock } from '#runtime';
import { PERMISSIONS } from '../../apps/coordinator/src/auth/permissions.js';
import { DATA_SOURCE } from '../../apps/coordinator/src/database/database.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { MonitorEntity } from '../../apps/coordinator/src/monitors/monitor.entity.js';
import type { ApiClient } from '../support/api-client.js';
import { probeResult } from '../support/check-results.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { createMonitor, expectError, expectValidationError } from '../support/monitor-fixtures.js';

/** 2026-03-10 12:20:00 UTC: not on an hour, so the 24 h window starts inside an hour (12:20 the day before). */
const NOW = Date.UTC(2026, 2, 10, 12, 20, 0);
const NOW_S = NOW / 1000;
const HOUR = 3_600;
const DAY = 86_400;
/** The start of the sparkline's first hour at NOW: 13:00 the day before. */
const FIRST_HOUR = hourOf(NOW_S) - 23 * 3_600;

function hourOf(t: number): number {
  return Math.floor(t / 3_600) * 3_600;
}

interface Seed {
  region: RegionId;
  status: CheckStatus;
  ms: number | null;
  /** Seconds before NOW. */
  ago: number;
}

/** Results within the last 24 h (several in one slice), at its edges, and on older days. */
const SEEDS: readonly Seed[] = [
  { region: 'eu-west-1', status: 'up', ms: 100, ago: 10 * 60 },
  { region: 'us-east-1', status: 'up', ms: 301, ago: 20 * 60 },
  { region: 'eu-west-1', status: 'down', ms: 50, ago: 40 * 60 },
  { region: 'eu-west-1', status: 'up', ms: 200, ago: 2 * HOUR },
  { region: 'eu-west-1', status: 'unknown', ms: null, ago: 3 * HOUR },
  { region: 'us-east-1', status: 'up', ms: 1_000, ago: 13 * HOUR },
  { region: 'us-east-1', status: 'down', ms: null, ago: 20 * HOUR },
  { region: 'eu-west-1', status: 'up', ms: 777, ago: DAY },
  { region: 'eu-west-1', status: 'up', ms: 90, ago: DAY + 60 },
  { region: 'eu-west-1', status: 'down', ms: 20, ago: 3 * DAY },
  { region: 'us-east-1', status: 'up', ms: 700, ago: 10 * DAY },
  { region: 'us-east-1', status: 'down', ms: 700, ago: 40 * DAY },
];

const SUMMARY_FIELDS = [
  'active',
  'created_at',
  'id',
  'in_maintenance',
  'last_checked_at',
  'last_status',
  'last_status_change',
  'name',
  'response_ms',
  'status',
  'target',
  'type',
  'uptime_24h',
  'uptime_30d',
];

/** The tables a summary reads; background jobs (the notification outbox's poll) read others. */
const MONITOR_TABLES = /"(monitors|check_results|check_rollups)"/;

/**
 * Counts the SQL statements on monitors and their history the coordinator runs while `counting`
 * is on: TypeORM's, and on SQLite those prepared on its connection directly (AccountFigures).
 */
function countStatements(dataSource: DataSource): { counting: boolean; statements: number } {
  const counter = { counting: false, statements: 0 };
  const driver = dataSource.driver as unknown as { databaseConnection?: { prepare?: (sql: string) => unknown } };
  const connection = dataSource.options.type === 'better-sqlite3' ? driver.databaseConnection : undefined;
  if (connection?.prepare) {
    const prepare = connection.prepare.bind(connection);
    connection.prepare = (sql: string) => {
      if (counter.counting && MONITOR_TABLES.test(sql)) counter.statements += 1;
      return prepare(sql);
    };
  }
  const wrapped = new WeakSet<QueryRunner>();
  const create = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (...args: Parameters<DataSource['createQueryRunner']>) => {
    const runner = create(...args);
    if (!wrapped.has(runner)) {
      wrapped.add(runner);
      const query = runner.query.bind(runner) as (...a: unknown[]) => Promise<unknown>;
      (runner as { query: unknown }).query = (...a: unknown[]) => {
        if (counter.counting && MONITOR_TABLES.test(String(a[0]))) counter.statements += 1;
        return query(...a);
      };
    }
    return runner;
  };
  return counter;
}

describe.each(testDatabases())('monitor summary API on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let a: ApiClient;
  let accountId: string;
  let main: string;
  let paused: string;
  let maintained: string;
  let fresh: string;
  let heartbeat: string;
  let otherAccountMonitor: string;
  let writer: ResultsWriter;
  let counter: { counting: boolean; statements: number };
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock });
    counter = countStatements(c.app.get<DataSource>(DATA_SOURCE));
    ({ client: a, accountId } = await c.newAccount('summary'));
    main = (await createMonitor(a, { name: 'Main', check_interval: 600, regions: ['eu-west-1', 'us-east-1'] })).id;
    paused = (await createMonitor(a, { name: 'Paused', active: false, check_interval: 600 })).id;
    maintained = (
      await createMonitor(a, {
        name: 'Maintained',
        check_interval: 600,
        settings: { tcp: { url: 'tcp://db.example:5432' } },
      })
    ).id;
    fresh = (await createMonitor(a, { name: 'Fresh', check_interval: 600 })).id;
    heartbeat = (
      await createMonitor(a, {
        name: 'Cron',
        regions: undefined,
        settings: { heartbeat: { period: 3600, grace: 300 } },
      })
    ).id;
    writer = c.app.get(ResultsWriter);
    for (const seed of SEEDS) writer.add(probeResult(main, seed.region, seed.status, seed.ms), NOW_S - seed.ago);
    writer.add(probeResult(paused, 'us-east-1', 'up', 42), NOW_S - 5 * 60);
    writer.add(probeResult(maintained, 'us-east-1', 'down', null), NOW_S - 25 * 60);
    const window = await a.post('/api/maintenance_windows', {
      name: 'upgrade',
      monitors: [maintained],
      starts_at: NOW_S - 20 * 60,
      ends_at: NOW_S + HOUR,
    });
    expect(window.status).toBe(201);
    // Taken inside the window: stored flagged, out of every figure.
    writer.add(probeResult(maintained, 'us-east-1', 'up', 5_000), NOW_S - 10 * 60, true);
    // Another account's monitor and results never show.
    const other = await c.newAccount('elsewhere');
    otherAccountMonitor = (await createMonitor(other.client, { name: 'Not yours' })).id;
    writer.add(probeResult(otherAccountMonitor, 'us-east-1', 'down', 9_999), NOW_S - 60);
    await writer.flush();
    // The evaluator is not running: set the statuses it would have decided.
    const data = c.app.get<DataSource>(DATA_SOURCE);
    for (const [id, status] of [
      [main, 'up'],
      [paused, 'up'],
      [maintained, 'down'],
    ] as const) {
      await data
        .createQueryBuilder()
        .update(MonitorEntity)
        .set({ lastStatus: status })
        .where('id = :id', { id })
        .execute();
    }
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const summary = async () => {
    const res = await a.get('/api/monitor_summary');
    expect(res.status).toBe(200);
    return res.body.data;
  };

  /** Every row says what the monitor's own routes say, its uptimes what its /stats say. */
  const expectEqualToMonitorRoutes = async (data: any) => {
    for (const row of data.monitors) {
      const monitor = (await a.get(`/api/monitors/${row.id}`)).body.data;
      const day = (await a.get(`/api/monitors/${row.id}/stats?period=24h`)).body.data;
      const month = (await a.get(`/api/monitors/${row.id}/stats?period=30d`)).body.data;
      const type = Object.keys(monitor.settings)[0] as string;
      expect(row).toMatchObject({
        name: monitor.name,
        type,
        target: type === 'heartbeat' ? null : monitor.settings[type].url,
        active: monitor.active,
        last_status: monitor.last_status,
        last_status_change: monitor.last_status_change,
        last_checked_at: monitor.last_checked_at,
        created_at: monitor.created_at,
        uptime_24h: day.overall.uptime_percent,
        uptime_30d: month.overall.uptime_percent,
      });
    }
  };

  /** Every row's sparkline is the means of its up results per hour from sparkline_from, worked out from its checks. */
  const expectSparklinesFromChecks = async (data: any) => {
    for (const row of data.monitors) {
      const checks = (await a.get(`/api/monitors/${row.id}/checks?per_page=100`)).body.data.checks as any[];
      const expected = Array.from({ length: 24 }, (_, i) => {
        const times = checks
          .filter((k) => k.status === 'up' && k.response_time_ms !== null && !k.in_maintenance)
          .filter((k) => k.checked_at >= data.sparkline_from && k.checked_at <= data.generated_at)
          .filter((k) => Math.floor((k.checked_at - data.sparkline_from) / HOUR) === i)
          .map((k) => k.response_time_ms as number);
        return times.length === 0 ? null : Math.round(times.reduce((s, t) => s + t, 0) / times.length);
      });
      expect(row.response_ms).toEqual(expected);
    }
  };

  it('lists every monitor of the account, once, with the documented fields and no more', async () => {
    const data = await summary();
    expect(Object.keys(data).sort()).toEqual(['counts', 'generated_at', 'monitors', 'sparkline_from']);
    expect(data.generated_at).toBe(NOW_S);
    // The sparkline's first hour: the UTC hour 23 hours before the current one (12:00 now → 13:00 the day before).
    expect(data.sparkline_from).toBe(FIRST_HOUR);
    const ids = data.monitors.map((m: any) => m.id);
    expect(ids).toEqual([main, paused, maintained, fresh, heartbeat].sort());
    expect(ids).not.toContain(otherAccountMonitor);
    for (const monitor of data.monitors) expect(Object.keys(monitor).sort()).toEqual(SUMMARY_FIELDS);
  });

  it('says of each monitor what GET /api/monitors/{id} and its /stats say', async () => {
    const data = await summary();
    await expectEqualToMonitorRoutes(data);
    // The figures are not all null: the main monitor's history was worked out by hand.
    const mainRow = data.monitors.find((m: any) => m.id === main);
    // 24 h: up 100, 301, 200, 1000, 777 (exactly 86400 s ago: the window includes it); down 50, null.
    expect(mainRow.uptime_24h).toBe(Math.round((5 / 7) * 100 * 10_000) / 10_000);
    // 30 d (UTC days): 7 up, 3 down (the one 40 days ago is out).
    expect(mainRow.uptime_30d).toBe(Math.round((7 / 10) * 100 * 10_000) / 10_000);
  });

  it('draws the sparkline from the raw results of each UTC hour: means of up results, maintenance left out', async () => {
    const data = await summary();
    await expectSparklinesFromChecks(data);
    const mainRow = data.monitors.find((m: any) => m.id === main);
    // The current hour (12:00–12:20) holds 100 and 301 (the down result's time does not count).
    expect(mainRow.response_ms[23]).toBe(201);
    // 777, taken exactly 24 h ago, counts for the uptime but is before the sparkline's first hour.
    expect(mainRow.response_ms[0]).toBeNull();
    expect(mainRow.response_ms.filter((v: number | null) => v !== null)).toEqual([1_000, 200, 201]);
    const maintainedRow = data.monitors.find((m: any) => m.id === maintained);
    expect(maintainedRow.response_ms.every((v: number | null) => v === null)).toBe(true);
  });

  it('shows paused over maintenance over the checks, and counts each monitor once by that', async () => {
    const data = await summary();
    const statusOf = (id: string) => data.monitors.find((m: any) => m.id === id);
    expect(statusOf(main)).toMatchObject({ status: 'up', last_status: 'up', in_maintenance: false });
    expect(statusOf(paused)).toMatchObject({ status: 'paused', active: false });
    expect(statusOf(maintained)).toMatchObject({ status: 'maintenance', in_maintenance: true, last_status: 'down' });
    expect(statusOf(fresh)).toMatchObject({ status: 'pending', last_checked_at: null });
    expect(statusOf(heartbeat)).toMatchObject({ status: 'pending', type: 'heartbeat', target: null });
    expect(data.counts).toEqual({ total: 5, up: 1, down: 0, unknown: 0, pending: 2, paused: 1, maintenance: 1 });
    const account = (await a.get('/api/account')).body.data;
    expect(account.monitors_count).toBe(data.counts.total);
    expect(account.paused_monitors).toBe(data.counts.paused);
  });

  it('needs monitors:read, and refuses query parameters', async () => {
    const without = await c.newKey(
      accountId,
      PERMISSIONS.filter((p) => p !== 'monitors:read'),
    );
    expectError(await without.client.get('/api/monitor_summary'), 403, 'FORBIDDEN');
    const only = await c.newKey(accountId, ['monitors:read']);
    const res = await only.client.get('/api/monitor_summary');
    expect(res.status).toBe(200);
    expect(res.body.data.monitors).toHaveLength(5);
    expect((await c.client().get('/api/monitor_summary')).status).toBe(401);
    expectValidationError(await a.get('/api/monitor_summary?page=2'), 'page');
  });

  it('is gzipped for clients that take it, the same JSON either way', async () => {
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const req = request(`${c.baseUrl}/api/monitor_summary`, {
          headers: { authorization: `Bearer ${a.apiKey}`, 'accept-encoding': encoding },
        });
        req.on('response', (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
        });
        req.on('error', reject);
        req.end();
      });
    const zipped = await raw('gzip, br');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toBe('application/json; charset=utf-8');
    const plain = await raw('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')));
  });

  it('runs as many SQL statements on monitors and results for 25 monitors as for 5', async () => {
    const measure = async () => {
      counter.statements = 0;
      counter.counting = true;
      try {
        await summary();
      } finally {
        counter.counting = false;
      }
      return counter.statements;
    };
    // A late result (of another account) voids what SQLite's reader keeps: the next summary reads all.
    const cold = async () => {
      writer.add(probeResult(otherAccountMonitor, 'us-east-1', 'up', 1), NOW_S - HOUR);
      await writer.flush();
      return measure();
    };
    const fiveCold = await cold();
    const fiveWarm = await measure();
    const extra: string[] = [];
    for (let i = 0; i < 20; i++) extra.push((await createMonitor(a, { name: `Extra ${i}` })).id);
    for (const id of extra) writer.add(probeResult(id, 'us-east-1', 'up', 10), NOW_S - HOUR);
    await writer.flush();
    const twentyFiveCold = await cold();
    const twentyFiveWarm = await measure();
    expect((await summary()).monitors).toHaveLength(25);
    // PostgreSQL: monitors, results grouped, roll-ups grouped. SQLite: monitors; then sealed hours,
    // the first hour, sealed days (only when not kept), the hours and days not sealed yet.
    expect({ fiveCold, fiveWarm }).toEqual(
      kind.name === 'sqlite' ? { fiveCold: 6, fiveWarm: 3 } : { fiveCold: 3, fiveWarm: 3 },
    );
    expect({ twentyFiveCold, twentyFiveWarm }).toEqual({ twentyFiveCold: fiveCold, twentyFiveWarm: fiveWarm });
  });

  it('stays equal to /stats and the checks as hours seal, results come late or from elsewhere, and time passes', async () => {
    const nowS = () => Math.floor(clock.now() / 1000);
    const check = async () => {
      const data = await summary();
      expect(data.generated_at).toBe(nowS());
      await expectEqualToMonitorRoutes(data);
      await expectSparklinesFromChecks(data);
      return data.monitors.find((m: any) => m.id === main).uptime_24h as number;
    };
    const before = await check();
    // 12:50: a result on time, in the hour not sealed yet.
    clock.advance(30 * 60_000);
    writer.add(probeResult(main, 'eu-west-1', 'up', 333));
    await writer.flush();
    await check();
    // Stored now, taken 5 hours ago: in an hour sealed long since.
    writer.add(probeResult(main, 'us-east-1', 'down', null), nowS() - 5 * HOUR);
    await writer.flush();
    const afterLate = await check();
    expect(afterLate).toBeLessThan(before);
    if (kind.name === 'sqlite') {
      // Another process on the same file deletes a result of a sealed hour (13 h ago: the 1000 ms one).
      const other = new BetterSqlite3(db.url.slice('sqlite:'.length));
      try {
        const deleted = other
          .prepare(`DELETE FROM "check_results" WHERE "monitor_id" = ? AND "response_time_ms" = 1000`)
          .run(main);
        expect(deleted.changes).toBe(1);
      } finally {
        other.close();
      }
      expect(await check()).toBeLessThan(afterLate);
    }
    // 14:55: the window's first hour, the sealed hours and the sparkline's hours all move on.
    clock.advance(2 * HOUR * 1000 + 5 * 60_000);
    await check();
  });

  it('turns a monitor unseen for 3 intervals unknown, as the monitor route does', async () => {
    // Last: the clock moves on (the rate limit's budget does not take time running backwards).
    clock.advance(4 * 86_400 * 1000);
    const data = await summary();
    const freshRow = data.monitors.find((m: any) => m.id === fresh);
    const monitor = (await a.get(`/api/monitors/${fresh}`)).body.data;
    expect(monitor.last_status).toBe('unknown');
    expect(freshRow).toMatchObject({ last_status: 'unknown', status: 'unknown' });
  });
});
