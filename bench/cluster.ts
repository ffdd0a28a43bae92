import { Logger } from '@nestjs/common';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pg from 'pg';
import { newObjectId, systemClock } from '#runtime';
import { partitionOf } from '../apps/coordinator/src/cluster/partitions.js';
import { openDataSource, parseDatabaseUrl } from '../apps/coordinator/src/database/data-source.js';
import { ENTITIES } from '../apps/coordinator/src/entities.js';
import { MonitorEntity } from '../apps/coordinator/src/monitors/monitor.entity.js';
import { processRssMb, startCoordinator, stopCoordinator, type CoordinatorProcess } from './coordinator-process.js';
import { downSubject, statsSubject, type FakeAgentStats } from './fake-agent.js';
import { onCleanup } from './harness.js';
import { percentile, publish, sleep, type Row } from './report.js';
import { DEFAULT_BATCH_WINDOW_MS } from '../apps/coordinator/src/probing/batch-window.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-1'] as const;
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Replica {
  id: string;
  process: CoordinatorProcess;
}

interface Snapshot {
  at: number;
  cpu: Map<number, number>;
  metrics: Map<string, string>;
  db: { inserted: number; updated: number; deleted: number; commits: number; size: number; wal: number; rows: number };
  agents: FakeAgentStats[];
  postgresCpu: Map<number, number>;
}

/**
 * The cluster benchmark (`npm run bench -- cluster`): BENCH_REPLICAS coordinator replicas (the
 * built coordinator, NATS mode, DISPATCH_ENABLED=false) on one fresh PostgreSQL database and
 * the local NATS server, BENCH_AGENTS bench-only fake agents (bench/fake-agent.ts: the agent's
 * wire, a lognormal latency around 80 ms, no probing) across 3 regions, BENCH_MONITORS tcp
 * monitors seeded in the database (check_interval BENCH_INTERVAL, all 3 regions). After a
 * warm-up of one interval, a window of BENCH_SECONDS measures each replica's CPU and RSS, the
 * database's rows and bytes, the scheduler's lateness and the NATS messages the agents saw;
 * then detection (some monitors' results turn DOWN) and failover (SIGKILL of one replica).
 */
export async function clusterBench(): Promise<void> {
  Logger.overrideLogger(false);
  const replicaCount = Number(process.env.BENCH_REPLICAS ?? 2);
  const agentCount = Number(process.env.BENCH_AGENTS ?? 3);
  const monitorCount = Number(process.env.BENCH_MONITORS ?? 10_000);
  const interval = Number(process.env.BENCH_INTERVAL ?? 60);
  const seconds = Number(process.env.BENCH_SECONDS ?? 90);
  const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? interval + 10);
  // `up` (default): the steady state, where a check that agrees with the stored status writes
  // no status change. `pending`: a cold start, where every monitor's first result is one.
  const seedStatus = process.env.BENCH_SEED_STATUS === 'pending' ? 'pending' : 'up';
  const detectCount = Math.max(1, Math.min(100, Math.floor(monitorCount / 100)));
  const natsUrl = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const dbName = `picket_bench_cluster_${randomBytes(4).toString('hex')}`;
  const prefix = `cluster_${randomBytes(4).toString('hex')}`;
  const dbUrl = new URL(admin);
  dbUrl.pathname = `/${dbName}`;
  const databaseUrl = dbUrl.toString();
  const adminClient = new pg.Client({ connectionString: admin });
  await adminClient.connect();
  await adminClient.query(`CREATE DATABASE "${dbName}"`);
  const children: ChildProcess[] = [];
  const cancelCleanup = onCleanup(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const replicas: Replica[] = [];
  let client: pg.Client | null = null;
  let nc: NatsConnection | null = null;
  const log = (text: string) => process.stderr.write(`[cluster] ${text}\n`);
  try {
    const baseEnv = {
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      NATS_URL: natsUrl,
      NATS_SUBJECT_PREFIX: prefix,
      DISPATCH_ENABLED: 'false',
      LOG_LEVEL: 'error',
    };
    // First start: schema and the default account; then the monitors, written directly.
    const first = await startCoordinator({ ...baseEnv, CHECKS_ENABLED: 'false' });
    await stopCoordinator(first);
    const seedStarted = Date.now();
    const monitorIds = await seed(databaseUrl, monitorCount, interval, seedStatus);
    log(`seeded ${monitorCount} monitors in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
    client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    nc = await connect({ servers: natsUrl });

    for (let i = 0; i < agentCount; i++) {
      const region = REGIONS[i % REGIONS.length]!;
      children.push(await startFakeAgent(`fake-${i}-${region}`, region, natsUrl, prefix));
    }
    // One after the other, as a rolling deployment would (each takes its partitions in turn);
    // a replica is registered for clean-up as soon as it runs.
    for (let i = 0; i < replicaCount; i++) {
      const id = `bench-replica-${i}`;
      const coordinator = await startCoordinator({ ...baseEnv, COORDINATOR_ID: id });
      children.push(coordinator.child);
      replicas.push({ id, process: coordinator });
    }
    log(`${replicaCount} replicas and ${agentCount} fake agents up; waiting for the leases to settle`);
    await waitUntil(async () => {
      const owners = await client!.query<{ owner: string; n: string }>(
        `SELECT "owner", count(*) AS n FROM "partition_leases" WHERE "expires_at" > $1 GROUP BY "owner"`,
        [Date.now()],
      );
      const held = owners.rows.filter((r) => r.owner !== '');
      return held.length === replicaCount && held.reduce((s, r) => s + Number(r.n), 0) === 64;
    }, 120_000);
    log(`leases settled; warm-up ${warmup} s`);
    await sleep(warmup * 1000);

    // ---- the measured window ----------------------------------------------------------------
    const before = await snapshot(client, nc, dbName, prefix, replicas, agentCount);
    const rss = new Map<string, number[]>(replicas.map((r) => [r.id, []]));
    // The backends' CPU is sampled every second: the replicas' pools close idle connections and
    // open new ones within the window, so two snapshots alone would miss most of it.
    const backends = new BackendCpu(before.postgresCpu);
    for (let t = 0; t < seconds; t++) {
      await sleep(Math.min(1, seconds - t) * 1000);
      backends.sample(postgresBackendsCpu(dbName));
      if (t % 5 === 4 || t === seconds - 1) for (const r of replicas) rss.get(r.id)!.push(processRssMb(r.process.pid));
    }
    const after = await snapshot(client, nc, dbName, prefix, replicas, agentCount);
    backends.sample(after.postgresCpu);
    const windowS = (after.at - before.at) / 1000;
    const dbChecks = after.db.rows - before.db.rows;

    const replicaRows: Row[] = [];
    const lateBuckets = new Map<number, number>();
    for (const r of replicas) {
      const m0 = before.metrics.get(r.id) ?? '';
      const m1 = after.metrics.get(r.id) ?? '';
      const checks = sumMetric(m1, 'picket_check_results_total') - sumMetric(m0, 'picket_check_results_total');
      const cpu = ((after.cpu.get(r.process.pid) ?? 0) - (before.cpu.get(r.process.pid) ?? 0)) / CLK_TCK;
      const owned = sumMetric(m1, 'picket_monitors');
      const samples = rss.get(r.id)!.filter((v) => !Number.isNaN(v));
      const rssMax = Math.max(...samples);
      for (const [le, count] of histogram(m1, 'picket_scheduler_lateness_seconds')) {
        const prior = histogram(m0, 'picket_scheduler_lateness_seconds').get(le) ?? 0;
        lateBuckets.set(le, (lateBuckets.get(le) ?? 0) + count - prior);
      }
      replicaRows.push({
        replica: r.id,
        'monitors held': owned,
        'checks/s': checks / windowS,
        'CPU %': (100 * cpu) / windowS,
        'CPU s / 1000 checks': checks > 0 ? cpu / (checks / 1000) : NaN,
        'RSS max MB': Math.round(rssMax),
        'RSS MB / 1000 monitors': owned > 0 ? rssMax / (owned / 1000) : NaN,
      });
    }
    const pgCpu = backends.ticks() / CLK_TCK;
    const agentDelta = (key: keyof Omit<FakeAgentStats, 'agent_id'>) =>
      after.agents.reduce((s, a) => s + a[key], 0) - before.agents.reduce((s, a) => s + a[key], 0);
    const batches = agentDelta('batches');
    const singles = agentDelta('singles');
    const replies = agentDelta('replies');
    const agentChecks = agentDelta('checks');
    const lateness = latenessQuantiles(lateBuckets);
    // What a stored result takes on disk (heap, TOAST and indexes of every day's partition).
    const stored = await client.query<{ bytes: string; rows: string }>(
      `SELECT (SELECT sum(pg_total_relation_size(inhrelid)) FROM pg_inherits
                WHERE inhparent = '"check_results"'::regclass) AS bytes,
              (SELECT count(*) FROM "check_results") AS rows`,
    );
    const bytesPerResult = Number(stored.rows[0]?.bytes) / Number(stored.rows[0]?.rows);
    log(`window done: ${dbChecks} results in ${windowS.toFixed(0)} s; detection next`);

    // ---- detection: some monitors' results turn DOWN in every region ------------------------
    const detect = monitorIds.slice(0, detectCount);
    const flipAt = Date.now();
    nc.publish(downSubject(prefix), JSON.stringify({ monitors: detect }));
    await nc.flush();
    const detected = new Map<string, number>();
    const detectDeadline = flipAt + (3 * interval + 60) * 1000;
    while (detected.size < detect.length && Date.now() < detectDeadline) {
      const down = await client.query<{ id: string }>(
        `SELECT "id" FROM "monitors" WHERE "id" = ANY($1) AND "last_status" = 'down'`,
        [detect],
      );
      const now = Date.now();
      for (const { id } of down.rows) if (!detected.has(id)) detected.set(id, now - flipAt);
      await sleep(250);
    }
    const detectTimes = [...detected.values()].sort((a, b) => a - b);
    log(`detection: ${detected.size}/${detect.length}; failover next`);

    // ---- failover: SIGKILL one replica ------------------------------------------------------
    const victim = replicas[0]!;
    let failover: Row = { failover: 'not measured (one replica)' };
    if (replicas.length > 1) {
      const held = await client.query<{ partition: number }>(
        `SELECT "partition" FROM "partition_leases" WHERE "owner" = $1`,
        [victim.id],
      );
      const orphanPartitions = new Set(held.rows.map((r) => Number(r.partition)));
      const orphans = monitorIds.filter((id) => orphanPartitions.has(partitionOf(id)));
      const killAt = Date.now();
      victim.process.child.kill('SIGKILL');
      let takeoverMs = NaN;
      let firstCheckMs = NaN;
      let allCheckedMs = NaN;
      const deadline = killAt + (interval + 60) * 1000;
      while (Date.now() < deadline && Number.isNaN(allCheckedMs)) {
        const now = Date.now();
        if (Number.isNaN(takeoverMs)) {
          const left = await client.query<{ n: string }>(
            `SELECT count(*) AS n FROM "partition_leases" WHERE "partition" = ANY($1) AND ("owner" = $2 OR "owner" = '' OR "expires_at" < $3)`,
            [[...orphanPartitions], victim.id, now],
          );
          if (Number(left.rows[0]?.n) === 0) takeoverMs = now - killAt;
        }
        const checked = await client.query<{ n: string }>(
          `SELECT count(DISTINCT "monitor_id") AS n FROM "check_results" WHERE "monitor_id" = ANY($1) AND "scheduled_at" > $2`,
          [orphans, killAt],
        );
        const n = Number(checked.rows[0]?.n);
        if (n > 0 && Number.isNaN(firstCheckMs)) firstCheckMs = now - killAt;
        if (n >= orphans.length * 0.99) allCheckedMs = now - killAt;
        await sleep(1000);
      }
      // Per moved monitor and region: the gap between the last check scheduled before the kill
      // and the first after it (an undisturbed monitor's is the interval).
      const gaps = await client.query<{ p50: string | null; max: string | null }>(
        `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY gap) AS p50, max(gap) AS max FROM (
           SELECT min("scheduled_at") FILTER (WHERE "scheduled_at" > $2)
                - max("scheduled_at") FILTER (WHERE "scheduled_at" <= $2) AS gap
           FROM "check_results" WHERE "monitor_id" = ANY($1) AND "scheduled_at" > $3
           GROUP BY "monitor_id", "region") g WHERE gap IS NOT NULL`,
        [orphans, killAt, killAt - 2 * interval * 1000],
      );
      failover = {
        'moved monitors': orphans.length,
        'leases taken over s': takeoverMs / 1000,
        'first moved check s': firstCheckMs / 1000,
        '99 % moved monitors checked s': allCheckedMs / 1000,
        'gap p50 s': Number(gaps.rows[0]?.p50 ?? NaN) / 1000,
        'gap max s': Number(gaps.rows[0]?.max ?? NaN) / 1000,
      };
      log(`failover: ${JSON.stringify(failover)}`);
    }

    const sizes =
      `${replicaCount} replicas, ${agentCount} fake agents (bench/fake-agent.ts, lognormal latency median 80 ms), ` +
      `${monitorCount} tcp monitors × ${REGIONS.length} regions at ${interval} s, seeded ${seedStatus}`;
    publish(
      'Cluster: per replica',
      `\`npm run bench -- cluster\`: ${sizes}, one PostgreSQL database, the local NATS server, ` +
        `PROBE_BATCH_WINDOW_MS ${DEFAULT_BATCH_WINDOW_MS} (the default), DISPATCH_ENABLED=false. Window of ${windowS.toFixed(0)} s after a ${warmup} s warm-up. ` +
        `CPU from /proc/<pid>/stat, checks from each replica's picket_check_results_total, RSS the window's maximum ` +
        `over the monitors the replica schedules (picket_monitors).`,
      replicaRows,
      { cluster: sizes },
    );
    publish(
      'Cluster: totals, detection, failover',
      `\`npm run bench -- cluster\`, the same run. Rows and bytes from pg_stat_database and pg_database_size of the ` +
        `bench's own database (rows include the roll-up updates; bytes include their dead tuples), check_results bytes / row from the size of its partitions (indexes included); WAL from pg_stat_wal (the whole server: other databases' writes count too). ` +
        `PostgreSQL CPU: the backends of the bench's database only (not the WAL writer or checkpointer), sampled every second. ` +
        `NATS messages: what the fake agents received and sent (probe batches, single requests, replies; heartbeats not counted). ` +
        `Detection: ${detect.length} monitors' results turn DOWN in every region (fail_threshold 2) until last_status is down. ` +
        `Failover: SIGKILL of ${victim.id}, COORDINATOR_LEASE_SECONDS 10.`,
      [
        {
          'checks/s (stored)': dbChecks / windowS,
          'checks/s (agents)': agentChecks / windowS,
          'PG rows written / check':
            (after.db.inserted + after.db.updated - before.db.inserted - before.db.updated) / dbChecks,
          'PG commits / s': (after.db.commits - before.db.commits) / windowS,
          'DB bytes / check': (after.db.size - before.db.size) / dbChecks,
          'check_results bytes / row': bytesPerResult,
          'WAL bytes / check (server)': (after.db.wal - before.db.wal) / dbChecks,
          'PG CPU s / 1000 checks': pgCpu / (dbChecks / 1000),
          'NATS msgs/s': (batches + singles + replies) / windowS,
          'checks / batch': batches > 0 ? (agentChecks - singles) / batches : NaN,
          'replies / batch': batches > 0 ? (replies - singles) / batches : NaN,
          'lateness p50 ms': lateness.p50,
          'lateness p99 ms': lateness.p99,
          detected: `${detected.size}/${detect.length}`,
          'detection p50 s': percentile(detectTimes, 50) / 1000,
          'detection max s': (detectTimes.at(-1) ?? NaN) / 1000,
          ...failover,
        },
      ],
      { cluster: sizes },
    );
  } finally {
    await nc?.close().catch(() => undefined);
    const running = replicas.filter((r) => r.process.child.exitCode === null && r.process.child.signalCode === null);
    await Promise.all(running.map((r) => stopCoordinator(r.process).catch(() => undefined)));
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await sleep(1000);
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    cancelCleanup();
    await client?.end().catch(() => undefined);
    await adminClient.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await adminClient.end().catch(() => undefined);
  }
}

/** Writes N monitors of the default account straight into the database; returns their ids. */
async function seed(
  databaseUrl: string,
  size: number,
  interval: number,
  seedStatus: 'up' | 'pending',
): Promise<string[]> {
  const ds = await openDataSource(parseDatabaseUrl(databaseUrl)!, ENTITIES);
  const ids: string[] = [];
  try {
    const accountId = (await ds.query<{ id: string }[]>(`SELECT "id" FROM "accounts" LIMIT 1`))[0]?.id;
    if (!accountId) throw new Error('no account after the first start');
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < size; i += 1000) {
      const chunk = Array.from({ length: Math.min(1000, size - i) }, (_, k) => {
        const id = newObjectId(systemClock.now());
        ids.push(id);
        return {
          id,
          accountId,
          name: `Monitor ${i + k}`,
          active: true,
          checkInterval: interval,
          timeout: 10,
          failThreshold: 2,
          regions: [...REGIONS],
          monitorType: 'tcp' as const,
          // Never connected to: the fake agents probe nothing.
          settings: { url: 'tcp://127.0.0.1:9' },
          lastStatus: seedStatus,
          lastStatusChange: now,
          createdAt: now,
          updatedAt: now,
        };
      });
      await ds.manager.insert(MonitorEntity, chunk);
    }
  } finally {
    await ds.destroy();
  }
  return ids;
}

async function startFakeAgent(id: string, region: string, natsUrl: string, prefix: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(HERE, 'fake-agent.js')], {
    env: {
      ...process.env,
      FAKE_AGENT_ID: id,
      FAKE_REGIONS: region,
      NATS_URL: natsUrl,
      NATS_SUBJECT_PREFIX: prefix,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`fake agent ${id} exited with ${code}`)));
  });
  child.stdout.resume();
  return child;
}

async function snapshot(
  client: pg.Client,
  nc: NatsConnection,
  dbName: string,
  prefix: string,
  replicas: readonly Replica[],
  agentCount: number,
): Promise<Snapshot> {
  const metrics = new Map<string, string>();
  const cpu = new Map<number, number>();
  await Promise.all(
    replicas.map(async (r) => {
      metrics.set(r.id, await (await fetch(`${r.process.url}/metrics`)).text());
      cpu.set(r.process.pid, processCpuTicks(r.process.pid));
    }),
  );
  const stat = await client.query<Record<string, string>>(
    `SELECT tup_inserted, tup_updated, tup_deleted, xact_commit, pg_database_size($1) AS size,
            (SELECT wal_bytes FROM pg_stat_wal) AS wal,
            (SELECT count(*) FROM "check_results") AS rows
     FROM pg_stat_database WHERE datname = $1`,
    [dbName],
  );
  const s = stat.rows[0]!;
  const agents: FakeAgentStats[] = [];
  for (let i = 0; i < agentCount; i++) {
    const id = `fake-${i}-${REGIONS[i % REGIONS.length]!}`;
    const reply = await nc.request(statsSubject(prefix, id), '', { timeout: 5000 });
    agents.push(reply.json<FakeAgentStats>());
  }
  return {
    at: Date.now(),
    cpu,
    metrics,
    db: {
      inserted: Number(s.tup_inserted),
      updated: Number(s.tup_updated),
      deleted: Number(s.tup_deleted),
      commits: Number(s.xact_commit),
      size: Number(s.size),
      wal: Number(s.wal),
      rows: Number(s.rows),
    },
    agents,
    postgresCpu: postgresBackendsCpu(dbName),
  };
}

/** utime + stime of a process, clock ticks (NaN once it has exited). */
function processCpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5), counted from after the command name (field 3 is index 0).
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/** CPU ticks of each PostgreSQL backend connected to `dbName` (its process title names the database). */
function postgresBackendsCpu(dbName: string): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres: ') && cmdline.includes(` ${dbName} `)) {
        ticks.set(Number(entry), processCpuTicks(Number(entry)));
      }
    } catch {
      // gone, or not readable
    }
  }
  return ticks;
}

/**
 * Ticks the backends used within the window, from samples: each from its first sample (a backend
 * absent at the start began within the window, from 0) to its last. A backend that exits between
 * two samples loses at most one interval's use.
 */
class BackendCpu {
  private readonly first: Map<number, number>;
  private readonly last = new Map<number, number>();

  constructor(start: Map<number, number>) {
    this.first = new Map([...start].filter(([, ticks]) => !Number.isNaN(ticks)));
  }

  sample(now: Map<number, number>): void {
    for (const [pid, ticks] of now) {
      if (Number.isNaN(ticks)) continue;
      if (!this.first.has(pid)) this.first.set(pid, 0);
      this.last.set(pid, ticks);
    }
  }

  ticks(): number {
    let sum = 0;
    for (const [pid, ticks] of this.last) sum += ticks - (this.first.get(pid) ?? 0);
    return sum;
  }
}

/** Sum of every sample of a metric (all label sets) in Prometheus text. */
function sumMetric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** A histogram's cumulative buckets: upper bound (s) → count. */
function histogram(text: string, name: string): Map<number, number> {
  const buckets = new Map<number, number>();
  const pattern = new RegExp(`^${name}_bucket\\{.*le="([^"]+)".*\\} (\\S+)$`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (match) buckets.set(match[1] === '+Inf' ? Infinity : Number(match[1]), Number(match[2]));
  }
  return buckets;
}

/** p50 and p99 of cumulative buckets, as the bucket's upper bound in ms ("at most"). */
function latenessQuantiles(buckets: Map<number, number>): { p50: string; p99: string } {
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  const at = (q: number) => {
    const bound = sorted.find(([, count]) => count >= q * total)?.[0];
    return bound === undefined || total === 0 ? 'n/a' : bound === Infinity ? '> 5000' : `≤ ${bound * 1000}`;
  };
  return { p50: at(0.5), p99: at(0.99) };
}

async function waitUntil(condition: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await sleep(500);
  }
  throw new Error(`condition not met within ${ms / 1000} s`);
}
