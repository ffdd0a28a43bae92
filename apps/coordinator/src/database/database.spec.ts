import { afterEach, describe, expect, it } from '@jest/globals';
import type { DataSource, EntityManager } from 'typeorm';
import { testDatabases, type TestDatabase } from '../../../../test/support/databases.js';
import { AccountEntity } from '../auth/account.entity.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { MonitorContactEntity, MonitorEntity } from '../monitors/monitor.entity.js';
import { loadCoordinatorConfig } from '../config.js';
import { ENTITIES } from '../entities.js';
import { openDataSource, parseDatabaseUrl } from './data-source.js';
import { Database } from './database.js';
import { migrate } from './migrate.js';
import { POSTGRES_MIGRATIONS } from './migrations/postgres/index.js';
import { SQLITE_MIGRATIONS } from './migrations/sqlite/index.js';

const T = 1_795_318_704;
/** A monitor row, all but its ids. */
const MONITOR = {
  name: 'm',
  active: true,
  checkInterval: 300,
  timeout: 30,
  failThreshold: 2,
  regions: ['eu-west-1' as const],
  monitorType: 'tcp' as const,
  settings: { url: 'tcp://db:5432' },
  lastStatus: 'pending' as const,
  lastStatusChange: T,
  createdAt: T,
  updatedAt: T,
};

/** Every reviewed migration, oldest first (both dialects list the same ones). */
const MIGRATIONS = SQLITE_MIGRATIONS.map((M) => new M().name);

/** The account 'aaa…' every row of these tests belongs to, named `name`. */
function insertAccount(m: EntityManager, name = 'a', createdAt = T) {
  return m.insert(AccountEntity, { id: 'a'.repeat(24), name, subscriptionStatus: 'active', createdAt });
}

describe('migration lists', () => {
  it('both dialects have the same migrations, in the same order', () => {
    expect(POSTGRES_MIGRATIONS.map((M) => new M().name)).toEqual(MIGRATIONS);
    expect(MIGRATIONS.slice(0, 2)).toEqual(['InitialSchema1763800000000', 'CheckHistory1763900000000']);
  });
});

describe('parseDatabaseUrl', () => {
  it.each([
    ['sqlite:./data/picket.db', { dialect: 'sqlite', path: './data/picket.db' }],
    ['sqlite:/var/lib/picket/p.db', { dialect: 'sqlite', path: '/var/lib/picket/p.db' }],
    ['sqlite:///var/lib/picket/p.db', { dialect: 'sqlite', path: '/var/lib/picket/p.db' }],
    ['sqlite::memory:', { dialect: 'sqlite', path: ':memory:' }],
    ['postgres://u@h:5432/db', { dialect: 'postgres', url: 'postgres://u@h:5432/db' }],
    ['postgresql://u@h/db', { dialect: 'postgres', url: 'postgresql://u@h/db' }],
    ['sqlite:', null],
    ['mysql://x', null],
  ])('%s', (url, expected) => {
    expect(parseDatabaseUrl(url)).toEqual(expected);
  });
});

describe.each(testDatabases())('storage on $name', (kind) => {
  const open: DataSource[] = [];
  let db: TestDatabase | undefined;

  async function connect(): Promise<DataSource> {
    db ??= await kind.create();
    const target = parseDatabaseUrl(db.url);
    if (!target) throw new Error('bad test url');
    const dataSource = await openDataSource(target, ENTITIES);
    open.push(dataSource);
    return dataSource;
  }

  afterEach(async () => {
    for (const ds of open.splice(0)) if (ds.isInitialized) await ds.destroy();
    await db?.drop();
    db = undefined;
  });

  it('the reviewed migrations produce exactly the schema the entities describe, once', async () => {
    const ds = await connect();
    expect(await migrate(ds)).toEqual(MIGRATIONS);
    const pending = await ds.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    expect(await migrate(ds)).toEqual([]);
  });

  it('two processes migrating at once apply each migration once', async () => {
    const [a, b] = [await connect(), await connect()];
    const applied = await Promise.all([migrate(a), migrate(b)]);
    expect(applied.flat()).toEqual(MIGRATIONS);
    const rows: unknown[] = await a.query('SELECT name FROM picket_migrations');
    expect(rows).toHaveLength(MIGRATIONS.length);
  });

  // Registered only there: SQLite has no unlogged tables, and lists no skipped test.
  if (kind.name === 'postgres') {
    it('PostgreSQL keeps the rate-limit buckets unlogged and every other table logged (0043)', async () => {
      const ds = await connect();
      await migrate(ds);
      const persistence = async () =>
        Object.fromEntries(
          (
            await ds.query<{ relname: string; relpersistence: string }[]>(
              `SELECT "relname", "relpersistence" FROM pg_class WHERE "relkind" IN ('r', 'p') ` +
                `AND "relnamespace" = current_schema()::regnamespace`,
            )
          ).map((row) => [row.relname, row.relpersistence]),
        );
      const tables = await persistence();
      expect(tables).toMatchObject({ rate_limits: 'u', auth_failures: 'u', monitors: 'p', accounts: 'p' });
      const unlogged = Object.keys(tables).filter((name) => tables[name] !== 'p');
      expect(unlogged.sort()).toEqual(['auth_failures', 'rate_limits']);
      // Down to just before this migration (later ones are undone first).
      const after = MIGRATIONS.length - MIGRATIONS.indexOf('UnloggedRateLimits1766400000000');
      for (let i = 0; i < after; i++) await ds.undoLastMigration();
      expect(await persistence()).toMatchObject({ rate_limits: 'p', auth_failures: 'p' });
    });
  }

  it('the migrations can be reverted', async () => {
    const ds = await connect();
    await migrate(ds);
    const runner = ds.createQueryRunner();
    for (let i = 0; i < MIGRATIONS.length; i++) await ds.undoLastMigration();
    for (const table of ['monitors', 'check_results', 'check_rollups']) {
      expect({ table, exists: await runner.hasTable(table) }).toEqual({ table, exists: false });
    }
    await runner.release();
  });

  it('keying results by (scheduled_at, monitor_id, region) keeps the first of any stored twice', async () => {
    const ds = await connect();
    await migrate(ds);
    await insertAccount(ds.manager);
    // Inserted with today's schema, before the later migrations take their columns away.
    await ds.manager.insert(MonitorEntity, { ...MONITOR, id: 'b'.repeat(24), accountId: 'a'.repeat(24) });
    // Back to the schema unique on check_id only: undo CheckResultKey and every migration after it.
    const undone = MIGRATIONS.slice(MIGRATIONS.indexOf('CheckResultKey1764800000000'));
    for (let i = 0; i < undone.length; i++) await ds.undoLastMigration();
    const row = (id: string, checkId: string, scheduledAt: number, region: string) =>
      `('${id}', '${'b'.repeat(24)}', '${checkId}', '${region}', 'up', '{}', 'agent', ${scheduledAt}, ${T})`;
    await ds.query(
      `INSERT INTO "check_results" ("id", "monitor_id", "check_id", "region", "status", "timings", "agent_id", "scheduled_at", "checked_at") VALUES ` +
        [
          row('1'.repeat(24), 'x:1:eu-west-1', 1000, 'eu-west-1'),
          row('2'.repeat(24), 'y:1:eu-west-1', 1000, 'eu-west-1'), // the same check under another check_id
          row('3'.repeat(24), 'x:1:us-east-1', 1000, 'us-east-1'),
          row('4'.repeat(24), 'x:2:eu-west-1', 2000, 'eu-west-1'),
        ].join(', '),
    );
    expect(await migrate(ds)).toEqual(undone);
    const left: { id: string }[] = await ds.query(`SELECT "id" FROM "check_results" ORDER BY "id"`);
    expect(left.map((r) => r.id[0])).toEqual(['1', '3', '4']);
  });

  it('adding last_checked_at fills it from each monitor’s newest UP or DOWN result', async () => {
    const ds = await connect();
    await migrate(ds);
    await insertAccount(ds.manager);
    for (const id of ['b', 'c', 'd']) {
      await ds.manager.insert(MonitorEntity, { ...MONITOR, id: id.repeat(24), accountId: 'a'.repeat(24) });
    }
    const undone = MIGRATIONS.slice(MIGRATIONS.indexOf('MonitorLastChecked1764900000000'));
    for (let i = 0; i < undone.length; i++) await ds.undoLastMigration();
    const row = (n: number, monitor: string, status: string, checkedAt: number) =>
      `('${String(n).repeat(24)}', '${monitor.repeat(24)}', 'k${n}', 'eu-west-1', '${status}', '{}', 'agent', ${n}, ${checkedAt})`;
    await ds.query(
      `INSERT INTO "check_results" ("id", "monitor_id", "check_id", "region", "status", "timings", "agent_id", "scheduled_at", "checked_at") VALUES ` +
        [
          row(1, 'b', 'up', T + 100),
          row(2, 'b', 'down', T + 200),
          row(3, 'b', 'unknown', T + 300),
          row(4, 'b', 'blocked', T + 400),
          row(5, 'c', 'unknown', T + 500),
        ].join(', '),
    );
    expect(await migrate(ds)).toEqual(undone);
    const checked = async (id: string) =>
      (await ds.manager.findOneByOrFail(MonitorEntity, { id: id.repeat(24) })).lastCheckedAt;
    // b: its DOWN (the UNKNOWN and BLOCKED after it do not count); c: only UNKNOWN; d: no results.
    expect([await checked('b'), await checked('c'), await checked('d')]).toEqual([T + 200, null, null]);
  });

  it('HTTPS monitors saved before the header rules keep only the header lines still allowed', async () => {
    const ds = await connect();
    await migrate(ds);
    await insertAccount(ds.manager);
    const https = (id: string, request_headers?: string) =>
      ds.manager.insert(MonitorEntity, {
        ...MONITOR,
        id: id.repeat(24),
        accountId: 'a'.repeat(24),
        monitorType: 'https',
        settings: {
          url: 'https://e.example',
          check_certificate_expiration: false,
          ...(request_headers === undefined ? {} : { request_headers }),
        },
      });
    await https('b', 'X-Token: t\nContent-Length: 5\nTransfer-Encoding: chunked');
    await https('c', 'Connection: close');
    await https('d', 'Accept: text/plain');
    await https('e');
    await ds.manager.insert(MonitorEntity, { ...MONITOR, id: 'f'.repeat(24), accountId: 'a'.repeat(24) });
    const undone = MIGRATIONS.slice(MIGRATIONS.indexOf('RequestHeadersRepair1765650000000'));
    for (let i = 0; i < undone.length; i++) await ds.undoLastMigration();
    expect(await migrate(ds)).toEqual(undone);
    const settings = async (id: string) =>
      (await ds.manager.findOneByOrFail(MonitorEntity, { id: id.repeat(24) })).settings;
    expect(await settings('b')).toEqual({
      url: 'https://e.example',
      check_certificate_expiration: false,
      request_headers: 'X-Token: t',
    });
    expect(await settings('c')).toEqual({ url: 'https://e.example', check_certificate_expiration: false });
    expect(await settings('d')).toMatchObject({ request_headers: 'Accept: text/plain' });
    expect(await settings('e')).toEqual({ url: 'https://e.example', check_certificate_expiration: false });
    expect(await settings('f')).toEqual(MONITOR.settings);
  });

  it('widening monitor_type for heartbeats keeps every monitor and what hangs off it (no cascade)', async () => {
    const ds = await connect();
    await migrate(ds);
    await insertAccount(ds.manager);
    const undone = MIGRATIONS.slice(MIGRATIONS.indexOf('HeartbeatMonitors1765800000000'));
    for (let i = 0; i < undone.length; i++) await ds.undoLastMigration();
    await ds.query(
      `INSERT INTO "monitors" ("id", "account_id", "name", "active", "check_interval", "timeout", "fail_threshold", "regions", "monitor_type", "settings", "last_status", "last_status_change", "created_at", "updated_at", "last_checked_at") ` +
        `VALUES ('${'b'.repeat(24)}', '${'a'.repeat(24)}', 'm', true, 300, 30, 2, '["eu-west-1"]', 'tcp', '{"url":"tcp://db:5432"}', 'up', ${T}, ${T}, ${T}, ${T + 5})`,
    );
    await ds.query(
      `INSERT INTO "check_results" ("id", "monitor_id", "check_id", "region", "status", "timings", "agent_id", "scheduled_at", "checked_at") ` +
        `VALUES ('${'1'.repeat(24)}', '${'b'.repeat(24)}', 'k', 'eu-west-1', 'up', '{}', 'agent', 1, ${T + 5})`,
    );
    expect(await migrate(ds)).toEqual(undone);
    const monitor = await ds.manager.findOneByOrFail(MonitorEntity, { id: 'b'.repeat(24) });
    expect([monitor.monitorType, monitor.lastCheckedAt, monitor.heartbeatToken]).toEqual(['tcp', T + 5, null]);
    expect(await ds.query(`SELECT "id" FROM "check_results"`)).toHaveLength(1);
    // A heartbeat (nine characters) fits, and a token is unique.
    const heartbeat = { ...MONITOR, accountId: 'a'.repeat(24), monitorType: 'heartbeat' as const, regions: [] };
    const settings = { period: 60, grace: 60 };
    await ds.manager.insert(MonitorEntity, {
      ...heartbeat,
      settings,
      id: 'c'.repeat(24),
      heartbeatToken: 'T'.repeat(32),
    });
    await expect(
      ds.manager.insert(MonitorEntity, { ...heartbeat, settings, id: 'd'.repeat(24), heartbeatToken: 'T'.repeat(32) }),
    ).rejects.toThrow();
  });

  it('deleting a contact or an account cascades; bigint seconds come back as numbers', async () => {
    const ds = await connect();
    await migrate(ds);
    const m = ds.manager;
    const t = T;
    await insertAccount(m, 'a', t);
    const contact = {
      id: 'c'.repeat(24),
      accountId: 'a'.repeat(24),
      name: 'c',
      channel: 'email' as const,
      details: { email: 'x@example.com' },
      active: true,
      downAlertsOnly: false,
      error: null,
      consecutiveFailures: 0,
      createdAt: t,
      updatedAt: t,
    };
    await m.insert(ContactEntity, contact);
    await m.insert(MonitorEntity, { ...MONITOR, id: 'b'.repeat(24), accountId: 'a'.repeat(24) });
    await m.insert(MonitorContactEntity, { monitorId: 'b'.repeat(24), contactId: 'c'.repeat(24), position: 0 });

    const monitor = await m.findOneByOrFail(MonitorEntity, { id: 'b'.repeat(24) });
    expect(monitor.createdAt).toBe(t);
    expect(monitor.regions).toEqual(['eu-west-1']);
    expect((await m.findOneByOrFail(ContactEntity, { id: 'c'.repeat(24) })).details).toEqual({
      email: 'x@example.com',
    });

    await m.delete(ContactEntity, { id: 'c'.repeat(24) });
    expect(await m.count(MonitorContactEntity)).toBe(0);
    await m.delete(AccountEntity, { id: 'a'.repeat(24) });
    expect(await m.count(MonitorEntity)).toBe(0);
  });
});

describe('Database on SQLite', () => {
  it('keeps the page cache SQLITE_CACHE_MB asks for, 4 MiB unless told', async () => {
    const db = await testDatabases()[0]!.create();
    try {
      for (const [env, kib] of [
        [{}, 4096],
        [{ SQLITE_CACHE_MB: '32' }, 32_768],
      ] as const) {
        const target = loadCoordinatorConfig({ DATABASE_URL: db.url, ...env }).database;
        const ds = await openDataSource(target, ENTITIES);
        try {
          expect(await ds.query('PRAGMA cache_size')).toEqual([{ cache_size: -kib }]);
        } finally {
          await ds.destroy();
        }
      }
      expect(() => loadCoordinatorConfig({ DATABASE_URL: db.url, SQLITE_CACHE_MB: '0' })).toThrow(/SQLITE_CACHE_MB/);
    } finally {
      await db.drop();
    }
  });

  it('serialises transactions on the single shared connection: no lost update', async () => {
    const sqlite = testDatabases()[0]!;
    const db = await sqlite.create();
    const ds = await openDataSource(parseDatabaseUrl(db.url)!, ENTITIES);
    try {
      await migrate(ds);
      const database = new Database(ds);
      expect(database.dialect).toBe('sqlite');
      await insertAccount(ds.manager, '0', 1);
      await Promise.all(
        Array.from({ length: 25 }, () =>
          database.transaction(async (m) => {
            const account = await m.findOneByOrFail(AccountEntity, { id: 'a'.repeat(24) });
            await new Promise((r) => setImmediate(r));
            await m.update(AccountEntity, { id: account.id }, { name: String(Number(account.name) + 1) });
          }),
        ),
      );
      expect((await ds.manager.findOneByOrFail(AccountEntity, { id: 'a'.repeat(24) })).name).toBe('25');
      // Many transactions in one process leave nothing behind that grows with their number.
      for (let i = 0; i < 20_000; i++) await database.transaction((m) => m.query('SELECT 1'));
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });

  it('a transaction that reads, then writes, is not failed by another process committing in between', async () => {
    // Two connections to one file, as the server and the admin CLI have. A deferred
    // transaction would read a snapshot, let the other connection commit, and then fail its
    // own write with "database is locked" (SQLITE_BUSY_SNAPSHOT; no busy timeout applies).
    const sqlite = testDatabases()[0]!;
    const db = await sqlite.create();
    const [a, b] = [
      await openDataSource(parseDatabaseUrl(db.url)!, ENTITIES),
      await openDataSource(parseDatabaseUrl(db.url)!, ENTITIES),
    ];
    try {
      await migrate(a);
      await insertAccount(a.manager, '0', 1);
      await b.query('PRAGMA busy_timeout = 0'); // b's write must not wait (the thread is shared with a)
      let other: unknown = null;
      await new Database(a).transaction(async (m) => {
        const account = await m.findOneByOrFail(AccountEntity, { id: 'a'.repeat(24) });
        // The other process writes now: it must wait for this transaction, not overtake it.
        other = await new Database(b)
          .transaction((n) => n.update(AccountEntity, { id: account.id }, { name: 'other' }))
          .then(
            () => 'committed',
            (error: unknown) => String(error),
          );
        await m.update(AccountEntity, { id: account.id }, { name: String(Number(account.name) + 1) });
      });
      expect(other).toMatch(/database is locked/);
      expect((await a.manager.findOneByOrFail(AccountEntity, { id: 'a'.repeat(24) })).name).toBe('1');
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
      await db.drop();
    }
  });
});
