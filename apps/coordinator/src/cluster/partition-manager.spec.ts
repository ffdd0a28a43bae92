import { afterEach, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { ManualClock } from '#runtime';
import { testDatabases, type TestDatabase } from '../../../../test/support/databases.js';
import { loadCoordinatorConfig } from '../config.js';
import { openDataSource, parseDatabaseUrl } from '../database/data-source.js';
import { ENTITIES } from '../entities.js';
import { Database } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { ManualTimers, type TimerHandle } from '../scheduling/timers.js';
import { LeaseStore } from './lease.store.js';
import { PartitionManager, ReplicaModeConflictError, type PartitionListener } from './partition-manager.js';
import { CoordinatorMemberEntity, PartitionLeaseEntity } from './cluster.entity.js';
import { desiredOwner, PARTITION_COUNT, partitionOf, type ReplicaMode } from './partitions.js';

const LEASE_SECONDS = 4;
const TTL_MS = LEASE_SECONDS * 1000;
const STEP_MS = 250;
const ALL = Array.from({ length: PARTITION_COUNT }, (_, p) => p);

/**
 * The lease store of a replica from before assignments were recorded: its heartbeat is the one
 * statement that version sends, which names no assignment (a new row gets the column's default,
 * ''). One statement, as there: a second one setting '' would let other replicas read the row
 * in between as balanced.
 */
class OlderVersionStore extends LeaseStore {
  constructor(private readonly database: Database) {
    super(database);
  }

  override async heartbeat(id: string, version: string, startedAt: number, now: number, mode: ReplicaMode) {
    await this.database.manager.upsert(
      CoordinatorMemberEntity,
      { id, version, startedAt, lastSeenAt: now, mode: mode.mode, subjectPrefix: mode.subjectPrefix },
      ['id'],
    );
  }
}

/**
 * Timers that fire `earlyByMs` before they are due (those set for longer than that), as Node's
 * can by the wall clock when the event loop is busy.
 */
class EarlyTimers extends ManualTimers {
  constructor(
    clock: ManualClock,
    private readonly earlyByMs: number,
  ) {
    super(clock);
  }

  override set(fn: () => void, delayMs: number): TimerHandle {
    return super.set(fn, delayMs > this.earlyByMs ? delayMs - this.earlyByMs : delayMs);
  }
}

/** A replica as the cluster sees it: its own connection, timers and listener log. */
interface Replica {
  id: string;
  manager: PartitionManager;
  timers: ManualTimers;
  dataSource: DataSource;
  /** Partitions the listener was told to schedule and not told to drop since. */
  scheduled: Set<number>;
  alive: boolean;
}

describe.each(testDatabases())('partition leases on $name', (kind) => {
  let db: TestDatabase | undefined;
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 12));
  const replicas: Replica[] = [];

  async function replica(
    id: string,
    store?: (db: Database) => LeaseStore,
    env: Record<string, string> = {},
    earlyByMs = 0,
  ): Promise<Replica> {
    db ??= await kind.create();
    const target = parseDatabaseUrl(db.url);
    if (!target) throw new Error('bad url');
    const dataSource = await openDataSource(target, ENTITIES);
    await migrate(dataSource);
    const database = new Database(dataSource);
    const config = loadCoordinatorConfig({
      DATABASE_URL: db.url,
      COORDINATOR_ID: id,
      COORDINATOR_LEASE_SECONDS: String(LEASE_SECONDS),
      ...env,
    });
    const timers = earlyByMs > 0 ? new EarlyTimers(clock, earlyByMs) : new ManualTimers(clock);
    const manager = new PartitionManager(store?.(database) ?? new LeaseStore(database), config, clock, timers);
    const r: Replica = { id, manager, timers, dataSource, scheduled: new Set(), alive: true };
    replicas.push(r);
    return r;
  }

  function listenerOf(r: Replica): PartitionListener {
    return {
      gained: (ps) => {
        for (const p of ps) r.scheduled.add(p);
        return Promise.resolve();
      },
      lost: (ps) => {
        for (const p of ps) r.scheduled.delete(p);
      },
    };
  }

  async function start(r: Replica): Promise<void> {
    await r.manager.start(listenerOf(r));
  }

  /** Time passes for every live replica; then the safety invariant is checked. */
  async function step(ms = STEP_MS): Promise<void> {
    clock.advance(ms);
    for (const r of replicas) if (r.alive) r.timers.runDue();
    await Promise.all(replicas.map((r) => r.manager.idle()));
    assertNoPartitionTwice();
  }

  async function run(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += STEP_MS) await step();
  }

  function assertNoPartitionTwice(): void {
    const seen = new Map<number, string>();
    for (const r of replicas) {
      for (const p of r.manager.partitions) {
        expect(`${p} scheduled by ${seen.get(p) ?? 'nobody else'}`).toBe(`${p} scheduled by nobody else`);
        seen.set(p, r.id);
      }
    }
  }

  afterEach(async () => {
    for (const r of replicas.splice(0)) if (r.dataSource.isInitialized) await r.dataSource.destroy();
    await db?.drop();
    db = undefined;
  });

  it('a lone replica takes every partition at its first round', async () => {
    const a = await replica('a');
    await start(a);
    expect(a.manager.partitions).toEqual(ALL);
    expect([...a.scheduled].sort((x, y) => x - y)).toEqual(ALL);
  });

  it('a second replica gets its share by hand-over, never overlapping the first', async () => {
    const a = await replica('a');
    const b = await replica('b');
    await start(a);
    await start(b);
    expect(b.manager.partitions).toEqual([]); // a holds them all, unexpired
    await run(2 * (TTL_MS / 4));
    const shareA = a.manager.partitions;
    const shareB = b.manager.partitions;
    expect(shareA.length).toBeGreaterThan(10);
    expect(shareB.length).toBeGreaterThan(10);
    expect([...shareA, ...shareB].sort((x, y) => x - y)).toEqual(ALL);
    expect([...b.scheduled].sort((x, y) => x - y)).toEqual(shareB);
    await run(5 * TTL_MS);
    expect(a.manager.partitions).toEqual(shareA); // stable while both live
  });

  it('a crashed replica’s partitions move within 1.25 leases, and it stops using them first', async () => {
    const a = await replica('a');
    const b = await replica('b');
    await start(a);
    await start(b);
    await run(TTL_MS);
    const shareA = a.manager.partitions;
    a.alive = false; // no more rounds: SIGKILL
    let moved = 0;
    while (b.manager.partitions.length < PARTITION_COUNT) {
      await step();
      moved += STEP_MS;
      expect(moved).toBeLessThanOrEqual(TTL_MS * 1.25 + STEP_MS);
    }
    expect(a.manager.partitions).toEqual([]);
    expect(shareA.every((p) => b.scheduled.has(p))).toBe(true);
  });

  it('a replica leaving gracefully hands its partitions over at the next round', async () => {
    const a = await replica('a');
    const b = await replica('b');
    await start(a);
    await start(b);
    await run(TTL_MS);
    await a.manager.stop();
    a.alive = false;
    expect(a.scheduled.size).toBe(0);
    await run(TTL_MS / 4);
    expect(b.manager.partitions).toEqual(ALL);
  });

  it('replicas share the partitions evenly, and as rendezvous hashing while an older replica is live', async () => {
    const ids = ['bench-replica-0', 'bench-replica-1', 'bench-replica-2'];
    const rs: Replica[] = [];
    for (const id of ids) {
      const r = await replica(id);
      await start(r);
      rs.push(r);
    }
    const sizes = (of: Replica[]) => of.map((r) => r.manager.partitions.length).sort((x, y) => x - y);
    const everyPartitionOnce = (of: Replica[]) =>
      expect(of.flatMap((r) => r.manager.partitions).sort((x, y) => x - y)).toEqual(ALL);
    await run(3 * TTL_MS);
    expect(sizes(rs)).toEqual([21, 21, 22]); // rendezvous alone would give 15, 15 and 34
    everyPartitionOnce(rs);
    expect(
      (await rs[0]!.dataSource.manager.find(CoordinatorMemberEntity, { order: { id: 'ASC' } })).map(
        (m) => m.assignment,
      ),
    ).toEqual(['balanced', 'balanced', 'balanced']);

    // A replica of an older version joins: every replica plans as it does, so none is left unowned.
    const older = await replica('bench-replica-3', (database) => new OlderVersionStore(database));
    await start(older);
    await run(3 * TTL_MS);
    const all = [...rs, older];
    everyPartitionOnce(all);
    const members = [...ids, older.id];
    for (const r of all) expect(r.manager.partitions).toEqual(ALL.filter((p) => desiredOwner(p, members) === r.id));

    // Once it is gone, balanced shares again.
    await older.manager.stop();
    older.alive = false;
    await run(3 * TTL_MS);
    expect(sizes(rs)).toEqual([21, 21, 22]);
    everyPartitionOnce(rs);
  });

  it('the status-change fence passes only for the partition’s current holder', async () => {
    const a = await replica('a');
    const b = await replica('b');
    await start(a);
    await start(b);
    await run(TTL_MS);
    const monitorOfA = Array.from({ length: 1000 }, (_, i) => `mon${i}`).find((id) => a.manager.ownsMonitor(id));
    if (!monitorOfA) throw new Error('a holds nothing');
    const fence = (r: Replica) => fenceOf(r, monitorOfA);
    await expect(fence(a)).resolves.toBe(true);
    await expect(fence(b)).resolves.toBe(false);
    a.alive = false;
    await run(TTL_MS * 1.5);
    await expect(fence(a)).resolves.toBe(false);
    await expect(fence(b)).resolves.toBe(true);
  });

  /** A lease store whose heartbeat fails like an unreachable database while `down()` says so. */
  function flaky(down: () => boolean) {
    return (database: Database) =>
      new (class extends LeaseStore {
        override heartbeat(...args: Parameters<LeaseStore['heartbeat']>): Promise<void> {
          return down() ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : super.heartbeat(...args);
        }
      })(database);
  }

  /** The fence as a status change passes it: inside a transaction. */
  const fenceOf = (r: Replica, monitorId: string, generation?: number) =>
    r.dataSource.transaction((m) => r.manager.fence(m, monitorId, generation));

  const monitorOf = (r: Replica) => {
    const id = Array.from({ length: 1000 }, (_, i) => `mon${i}`).find((m) => r.manager.ownsMonitor(m));
    if (!id) throw new Error(`${r.id} holds nothing`);
    return id;
  };

  it('without the database a replica keeps checking its partitions past the leases, and renews them after', async () => {
    let down = false;
    const a = await replica(
      'a',
      flaky(() => down),
    );
    await start(a);
    expect(a.scheduled.size).toBe(PARTITION_COUNT);
    down = true;
    const leasesEndBy = clock.now() + TTL_MS;
    await run(2 * TTL_MS);
    expect(clock.now()).toBeGreaterThanOrEqual(leasesEndBy);
    expect(a.manager.partitions).toEqual([]); // no lease it is sure of …
    expect(a.scheduled.size).toBe(PARTITION_COUNT); // … but its checks go on (docs/decisions/0001)
    expect(a.manager.ownsMonitor('mon1')).toBe(true);
    expect(a.manager.overdue).not.toBeNull();
    // Nobody took the partitions: a status change decided during the outage may still be written.
    const monitor = monitorOf(a);
    const generation = a.manager.generationOf(monitor);
    await expect(fenceOf(a, monitor, generation)).resolves.toBe(true);
    down = false;
    await run(TTL_MS / 4 + STEP_MS);
    expect(a.manager.partitions).toEqual(ALL);
    expect(a.scheduled.size).toBe(PARTITION_COUNT);
    expect(a.manager.overdue).toBeNull();
    await expect(fenceOf(a, monitor, generation)).resolves.toBe(true);
  });

  it('marks the leases overdue through an outage even when its timers fire early (the wall clock ahead of the loop)', async () => {
    let down = false;
    const a = await replica(
      'a',
      flaky(() => down),
      {},
      STEP_MS,
    );
    await start(a);
    down = true;
    await run(2 * TTL_MS);
    expect(a.manager.partitions).toEqual([]);
    expect(a.manager.overdue).not.toBeNull();
  });

  it('a replica cut off while another takes over drops what it lost and can never write it', async () => {
    let aDown = false;
    const a = await replica(
      'a',
      flaky(() => aDown),
    );
    const b = await replica('b');
    await start(a);
    await start(b);
    await run(TTL_MS);
    const shareA = a.manager.partitions;
    const monitor = monitorOf(a);
    aDown = true;
    const generation = a.manager.generationOf(monitor); // a decides a change during its outage
    await run(2 * TTL_MS); // b takes a's expired partitions; a still checks them
    expect(b.manager.partitions).toEqual(ALL);
    expect(shareA.every((p) => a.scheduled.has(p))).toBe(true);
    await expect(fenceOf(a, monitor, generation)).resolves.toBe(false);
    await expect(fenceOf(b, monitor)).resolves.toBe(true);
    aDown = false;
    await run(TTL_MS);
    // a learns that b holds them now: it stops checking them, and its held change stays unwritten
    // even if a gets the partition back later (the generation moved on).
    expect(shareA.some((p) => a.scheduled.has(p) && !a.manager.partitions.includes(p))).toBe(false);
    expect(a.manager.generationOf(monitor)).toBeGreaterThan(generation);
    await run(4 * TTL_MS); // hand-over back to a by rendezvous
    expect(a.manager.ownsMonitor(monitor)).toBe(true);
    await expect(fenceOf(a, monitor, generation)).resolves.toBe(false);
    await expect(fenceOf(a, monitor)).resolves.toBe(true);
  });

  it('a lease that lapsed between two rounds is dropped even when the same round claims it back', async () => {
    const a = await replica('a');
    await start(a);
    const monitor = monitorOf(a);
    const generation = a.manager.generationOf(monitor); // a change decided now, not yet written
    // Meanwhile another replica held the partition and let it go: the row names nobody now.
    await a.dataSource.manager.update(PartitionLeaseEntity, { partition: partitionOf(monitor) }, { owner: '' });
    await run(TTL_MS / 4 + STEP_MS); // a's next round: not renewed, free, claimed again
    expect(a.manager.ownsMonitor(monitor)).toBe(true);
    expect(a.manager.generationOf(monitor)).toBeGreaterThan(generation);
    await expect(fenceOf(a, monitor, generation)).resolves.toBe(false); // the change from before is never written
    await expect(fenceOf(a, monitor)).resolves.toBe(true);
  });

  it('a replica that would run checks another way than the live ones refuses to start', async () => {
    const a = await replica('a', undefined, { NATS_URL: 'nats://127.0.0.1:4222', NATS_SUBJECT_PREFIX: 'prod' });
    await start(a);
    const embedded = await replica('b');
    await expect(start(embedded)).rejects.toThrow(ReplicaModeConflictError);
    await expect(start(embedded)).rejects.toThrow(/runs on this database in NATS mode \(subject prefix prod\)/);
    expect(embedded.scheduled.size).toBe(0);
    const otherPrefix = await replica('c', undefined, { NATS_URL: 'nats://127.0.0.1:4222', NATS_SUBJECT_PREFIX: 'x' });
    await expect(start(otherPrefix)).rejects.toThrow(/subject prefix prod.*subject prefix x/);
    const same = await replica('d', undefined, { NATS_URL: 'nats://127.0.0.1:4222', NATS_SUBJECT_PREFIX: 'prod' });
    await start(same);
    // Once the NATS replicas are gone (left, or silent past the lease), an embedded one may start.
    await a.manager.stop();
    await same.manager.stop();
    await start(embedded);
    expect(embedded.scheduled.size).toBe(PARTITION_COUNT);
  });
});
