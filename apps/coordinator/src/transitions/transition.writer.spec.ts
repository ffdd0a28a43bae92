import { afterEach, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { ManualClock, newObjectId } from '#runtime';
import { testDatabases, type TestDatabase } from '../../../../test/support/databases.js';
import { AccountEntity } from '../auth/account.entity.js';
import { LeaseStore } from '../cluster/lease.store.js';
import { PartitionManager } from '../cluster/partition-manager.js';
import { partitionOf } from '../cluster/partitions.js';
import { loadCoordinatorConfig } from '../config.js';
import { openDataSource, parseDatabaseUrl } from '../database/data-source.js';
import { Database } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { ENTITIES } from '../entities.js';
import { IncidentEntity } from '../incidents/incident.entity.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import type { OutboxService } from '../notify/outbox.service.js';
import { ManualTimers } from '../scheduling/timers.js';
import { LeaseLostError, TRANSITION_WRITES_AT_ONCE, TransitionWriter } from './transition.writer.js';

/** Long enough for any statement on an idle test database; a lock wait would outlast it. */
const BLOCKED_AFTER_MS = 5_000;

/** Holds whoever calls `enter` until `open`; `entered` resolves at the first call. */
interface Gate {
  entered: Promise<void>;
  open(): void;
  enter(): Promise<void>;
}

function gate(): Gate {
  let opened!: () => void;
  let entered!: () => void;
  const openedP = new Promise<void>((resolve) => (opened = resolve));
  const enteredP = new Promise<void>((resolve) => (entered = resolve));
  return {
    entered: enteredP,
    open: opened,
    enter: () => {
      entered();
      return openedP;
    },
  };
}

/** Whether `work` settles before BLOCKED_AFTER_MS (it is still waiting on a lock otherwise). */
async function settlesPromptly(work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), BLOCKED_AFTER_MS)));
  try {
    return await Promise.race([work.then(() => true), waited]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The status change as it meets the partition leases (docs/decisions/0039-postgresql-under-a-burst-of-status-changes.md):
 * a real database, the real lease store and partition manager; the outbox is a stand-in that can
 * hold a change in the middle of its transaction.
 */
describe.each(testDatabases())('status changes and the partition fence on $name', (kind) => {
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 12));
  let db: TestDatabase | undefined;
  let dataSource: DataSource | undefined;
  // Lock waits between connections: PostgreSQL's alone (SQLite has one connection and
  // serialises its transactions). Registered only there, so SQLite lists no skipped test.
  const onPostgres = (name: string, test: () => Promise<void>) => {
    if (kind.name === 'postgres') it(name, test);
  };

  afterEach(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
    db = undefined;
  });

  async function setup(hold?: Gate) {
    db = await kind.create();
    const target = parseDatabaseUrl(db.url);
    if (!target) throw new Error('bad url');
    dataSource = await openDataSource(target, ENTITIES);
    await migrate(dataSource);
    const database = new Database(dataSource);
    const store = new LeaseStore(database);
    const config = loadCoordinatorConfig({ DATABASE_URL: db.url, COORDINATOR_ID: 'replica-a' });
    const partitions = new PartitionManager(store, config, clock, new ManualTimers(clock));
    await partitions.start({ gained: () => Promise.resolve(), lost: () => undefined });
    const inside = { now: 0, peak: 0 };
    // What the outbox was handed: the monitor of a change and, for a recovery, its incident.
    const handed: { monitor?: MonitorEntity; incident?: IncidentEntity | null } = {};
    const outbox = {
      planOutage: async (_m: unknown, monitor: MonitorEntity) => {
        handed.monitor = monitor;
        inside.peak = Math.max(inside.peak, ++inside.now);
        await hold?.enter();
        inside.now--;
        return 0;
      },
      planRecovery: (_m: unknown, monitor: MonitorEntity, facts: { incident: IncidentEntity | null }) => {
        handed.monitor = monitor;
        handed.incident = facts.incident;
        return Promise.resolve(0);
      },
      written: () => undefined,
    } as unknown as OutboxService;
    // The statements each transaction sends between its begin and its commit.
    const statements: string[][] = [];
    dataSource.subscribers.push({
      beforeQuery: ({ query }: { query: string }) => {
        const word = query.trim().split(/\s+/)[0]?.toUpperCase() ?? '';
        if (word === 'START' || word === 'BEGIN') statements.push([]);
        else if (word !== 'COMMIT' && word !== 'ROLLBACK') statements.at(-1)?.push(query.trim());
      },
    });
    const writer = new TransitionWriter(database, outbox, clock);
    const accountId = newObjectId(clock.now());
    await dataSource.manager.insert(AccountEntity, {
      id: accountId,
      name: 'a',
      subscriptionStatus: 'active',
      createdAt: 1,
    });
    const monitor = async (id = newObjectId(clock.now())) => {
      await dataSource!.manager.insert(MonitorEntity, {
        id,
        accountId,
        name: 'API',
        active: true,
        checkInterval: 60,
        timeout: 10,
        failThreshold: 2,
        regions: ['eu-west-1'],
        monitorType: 'https',
        settings: { url: 'https://api.example.com/', check_certificate_expiration: false },
        lastStatus: 'up',
        lastStatusChange: 1,
        createdAt: 1,
        updatedAt: 1,
      });
      return id;
    };
    const down = (
      monitorId: string,
      fence = (m: Parameters<PartitionManager['fence']>[0]) => partitions.fence(m, monitorId),
    ) => writer.write({ monitorId, status: 'down', changedAt: 100, reason: 'HTTP 503', evidence: {}, fence });
    const up = (monitorId: string) =>
      writer.write({
        monitorId,
        status: 'up',
        changedAt: 200,
        reason: null,
        evidence: {},
        fence: (m) => partitions.fence(m, monitorId),
      });
    return { dataSource, store, partitions, writer, monitor, down, up, inside, handed, statements };
  }

  it('a change whose fence fails is rolled back whole: no status, no incident', async () => {
    const s = await setup();
    const id = await s.monitor();
    await expect(s.down(id, () => Promise.resolve(false))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await s.dataSource.manager.findOneByOrFail(MonitorEntity, { id })).toMatchObject({ lastStatus: 'up' });
    expect(await s.dataSource.manager.countBy(IncidentEntity, { monitorId: id })).toBe(0);
    await s.down(id);
    expect(await s.dataSource.manager.findOneByOrFail(MonitorEntity, { id })).toMatchObject({ lastStatus: 'down' });
    expect(await s.dataSource.manager.countBy(IncidentEntity, { monitorId: id })).toBe(1);
  });

  it('a change reads, locks and writes its monitor in one statement that also finds the open incident', async () => {
    const s = await setup();
    // The one transaction's statements: the first must write the monitor and read it back; none
    // after it may touch the monitor or look its open incident up again; the fence is last.
    const rest = () => {
      expect(s.statements).toHaveLength(1);
      const [first, ...others] = s.statements[0] ?? [];
      expect(first).toMatch(/^UPDATE "monitors" SET .* RETURNING .*"resolved_at" IS NULL/s);
      expect(others.at(-1)).toContain('"partition_leases"');
      for (const sql of others) expect(sql).not.toMatch(/"monitors"|"resolved_at" IS NULL/);
      return others;
    };
    const id = await s.monitor();
    s.statements.length = 0;
    await s.down(id);
    expect(rest()).toContainEqual(expect.stringMatching(/^INSERT INTO "incidents"/));
    const stored = await s.dataSource.manager.findOneByOrFail(MonitorEntity, { id });
    expect(stored).toMatchObject({ lastStatus: 'down', lastStatusChange: 100 });
    // The outbox gets the monitor as it now is, every column converted as the ORM reads it.
    expect(s.handed.monitor).toEqual(stored);
    // Down again with the incident open: nothing more to write or read.
    s.statements.length = 0;
    await s.down(id);
    expect(rest()).toEqual([expect.stringContaining('"partition_leases"')]);

    const incident = await s.dataSource.manager.findOneByOrFail(IncidentEntity, { monitorId: id });
    s.statements.length = 0;
    await s.up(id);
    // The open incident, named by the first statement, is read by its id, then resolved.
    expect(rest()).toEqual([
      expect.stringMatching(/^SELECT .* FROM "incidents" .*"id" = /s),
      expect.stringMatching(/^UPDATE "incidents"/),
      expect.stringContaining('"partition_leases"'),
    ]);
    expect(s.handed.incident).toEqual(incident);
    expect(await s.dataSource.manager.findOneByOrFail(IncidentEntity, { id: incident.id })).toMatchObject({
      resolvedAt: 200,
    });

    // Nothing open: the change is its one statement and the fence.
    s.statements.length = 0;
    await s.up(id);
    expect(rest()).toEqual([expect.stringContaining('"partition_leases"')]);
    // A monitor deleted meanwhile: nothing to write, no fence needed.
    s.statements.length = 0;
    await expect(s.down(newObjectId(clock.now()))).resolves.toBeUndefined();
    expect(s.statements).toEqual([[expect.stringMatching(/^UPDATE "monitors" /)]]);
  });

  onPostgres('a change under way does not hold up the renewal of the leases until it commits', async () => {
    const hold = gate();
    const s = await setup(hold);
    const id = await s.monitor();
    const writing = s.down(id);
    await hold.entered; // in the middle of its transaction: incident written, messages being planned
    const renewed = await settlesPromptly(s.store.renew('replica-a', clock.now() + 60_000));
    hold.open();
    await writing;
    expect(renewed).toBe(true);
    expect(await s.dataSource.manager.findOneByOrFail(MonitorEntity, { id })).toMatchObject({ lastStatus: 'down' });
  });

  onPostgres('changes of one partition commit side by side; a claim of it waits for them', async () => {
    const s = await setup();
    const first = await s.monitor();
    let second = await s.monitor();
    while (partitionOf(second) !== partitionOf(first)) {
      clock.advance(1000);
      second = await s.monitor();
    }
    // One change holds the fence (its last statement) and has not committed yet.
    const hold = gate();
    const holding = s.dataSource.transaction(async (m) => {
      expect(await s.partitions.fence(m, first)).toBe(true);
      await hold.enter();
    });
    await hold.entered;
    const other = await settlesPromptly(s.down(second));
    const claim = s.store.claim('replica-b', partitionOf(first), clock.now() + 3_600_000, clock.now() + 3_700_000);
    const claimed = await settlesPromptly(claim);
    hold.open();
    await holding;
    expect(other).toBe(true);
    expect(claimed).toBe(false);
    // Once the change committed the claim goes through (the lease had run out by then).
    await expect(claim).resolves.toBe(true);
  });

  onPostgres(
    'a burst of status changes takes TRANSITION_WRITES_AT_ONCE connections, the rest wait their turn',
    async () => {
      const hold = gate();
      const s = await setup(hold);
      const ids: string[] = [];
      for (let i = 0; i < TRANSITION_WRITES_AT_ONCE + 3; i++) {
        clock.advance(1000);
        ids.push(await s.monitor());
      }
      const writing = ids.map((id) => s.down(id));
      await hold.entered;
      // The others may still be on their way in: wait until the writer holds back the rest.
      while (s.inside.now + s.writer.waiting < ids.length) await new Promise((r) => setTimeout(r, 10));
      expect(s.inside.now).toBe(TRANSITION_WRITES_AT_ONCE);
      expect(s.writer.waiting).toBe(3);
      // The API's reads still get a connection meanwhile.
      expect(await settlesPromptly(s.dataSource.manager.countBy(MonitorEntity, {}))).toBe(true);
      hold.open();
      await Promise.all(writing);
      expect(s.inside.peak).toBe(TRANSITION_WRITES_AT_ONCE);
      expect(await s.dataSource.manager.countBy(MonitorEntity, { lastStatus: 'down' })).toBe(ids.length);
    },
  );
});
