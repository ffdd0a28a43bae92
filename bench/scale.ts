import { Logger } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newObjectId, systemClock } from '#runtime';
import { openDataSource, parseDatabaseUrl } from '../apps/coordinator/src/database/data-source.js';
import { ENTITIES } from '../apps/coordinator/src/entities.js';
import { MonitorEntity } from '../apps/coordinator/src/monitors/monitor.entity.js';
import { freePort, processRssMb, startCoordinator, stopCoordinator } from './coordinator-process.js';
import { deployedNodeOptions } from '../test/support/deployed-node-options.js';
import { jsonLineOf, percentile, publish, sleep, type Row } from './report.js';
import { withScratchPostgres } from './scratch-postgres.js';

const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk';
const REGIONS = ['us-east-1', 'eu-west-1'] as const;

/**
 * A whole coordinator process (embedded mode; SQLite, or PostgreSQL with
 * BENCH_DATABASES=sqlite,postgres) holding N monitors (tcp checks of a
 * loopback listener, check_interval 300 s, 2 regions: N / 150 checks a second): its RSS
 * while it checks them, then requests/s and latency of `GET /api/monitors` and of a public
 * status page under wrk, with the checks still running.
 */
export async function scaleBench(): Promise<void> {
  Logger.overrideLogger(false);
  const sizes = (process.env.BENCH_MONITORS ?? '10000,100000').split(',').map(Number);
  const settle = Number(process.env.BENCH_SECONDS ?? 60);
  const wrkSeconds = Number(process.env.BENCH_WRK_SECONDS ?? 10);
  // The list's latency at a fixed rate below saturation, beside wrk's closed loop (decision 0048); 0: none.
  const pacedRate = Number(process.env.BENCH_PACED_RATE ?? 100);
  const databases = (process.env.BENCH_DATABASES ?? 'sqlite').split(',');
  // `pending` (default): a cold start, where every monitor's first result is a status change (a
  // storm of them through the first rotation). `up`: the steady state, where a check that agrees
  // with the stored status writes none.
  const seedStatus = process.env.BENCH_SEED_STATUS === 'up' ? 'up' : 'pending';
  // Each size runs once per NODE_OPTIONS: V8's defaults, and the heap limits deploy/ sets.
  const optionSets = (process.env.BENCH_COORDINATOR_NODE_OPTIONS ?? `none;${deployedNodeOptions('coordinator')}`)
    .split(';')
    .map((options) => (options === 'none' ? '' : options));
  requireWrk();
  const target = createTcpServer((socket) => socket.end());
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetPort = (target.address() as AddressInfo).port;
  const memory: Row[] = [];
  const http: Row[] = [];
  try {
    for (const database of databases) {
      for (const size of sizes) {
        for (const nodeOptions of optionSets) {
          const run = await onDatabase(database, (databaseUrl) =>
            runOnce(databaseUrl, size, nodeOptions, { targetPort, settle, wrkSeconds, pacedRate, seedStatus }),
          );
          memory.push(run.memory);
          http.push(...run.http);
        }
      }
    }
  } finally {
    target.close();
  }
  publish(
    'Coordinator memory',
    `\`npm run bench -- scale\`: one coordinator process (embedded mode) with N tcp monitors of a ` +
      `loopback listener (check_interval 300 s, 2 regions), sampled each second for ${settle} s after start; ` +
      `then the same process under the HTTP load below. Each size runs once per NODE_OPTIONS. Seeded ` +
      `pending: every monitor's first result is a status change (a cold start's storm of them); seeded up: ` +
      `the steady state (BENCH_SEED_STATUS=up).`,
    memory,
  );
  publish(
    'API and status pages',
    `\`npm run bench -- scale\`: wrk (1 thread, 16 connections, ${wrkSeconds} s per line) against the coordinator ` +
      `above while it keeps checking its monitors. The status page shows 20 monitors and is served from the ` +
      `15 s page cache, as a crowd on a bad day would get it. Load \`${pacedRate}/s\`: the list's pages first at a ` +
      `fixed ${pacedRate} requests/s for ${wrkSeconds} s (open loop, latency from each request's due time: ` +
      `bench/paced-load.ts, decision 0048).`,
    http,
  );
}

/** Exits with a hint when there is no wrk binary. */
export function requireWrk(): void {
  try {
    execFileSync(WRK, ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary throws ENOENT.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`no wrk at ${WRK}: apt-get install wrk (or set BENCH_WRK)\n`);
      process.exit(1);
    }
  }
}

/** Runs `fn` on a fresh database of the kind: a SQLite file in a temporary directory, or a scratch PostgreSQL database. */
export async function onDatabase<T>(database: string, fn: (databaseUrl: string) => Promise<T>): Promise<T> {
  if (database === 'postgres') return withScratchPostgres('picket_bench_scale', fn);
  if (database !== 'sqlite') throw new Error(`BENCH_DATABASES: unknown database ${database}`);
  const dir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  try {
    return await fn(`sqlite:${join(dir, 'picket.db')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface RunSettings {
  targetPort: number;
  settle: number;
  wrkSeconds: number;
  pacedRate: number;
  seedStatus: 'pending' | 'up';
}

async function runOnce(
  databaseUrl: string,
  size: number,
  nodeOptions: string,
  { targetPort, settle, wrkSeconds, pacedRate, seedStatus }: RunSettings,
): Promise<{ memory: Row; http: Row[] }> {
  const apiKey = `pkt_${randomBytes(32).toString('hex')}`;
  const port = freePort();
  const env = {
    DATABASE_URL: databaseUrl,
    BOOTSTRAP_API_KEY: apiKey,
    LOG_LEVEL: 'error',
    // The budget would stop wrk after 5000 requests: this measures the server, not the limit.
    RATE_LIMIT_POINTS_PER_HOUR: '100000000',
    NODE_OPTIONS: nodeOptions,
    // PostgreSQL requires one (docs/decisions/0020-secrets-at-rest.md); a throwaway key for a throwaway database.
    ...(databaseUrl.startsWith('postgres') ? { SECRETS_KEY: randomBytes(32).toString('base64') } : {}),
  };
  const database = databaseUrl.startsWith('postgres') ? 'PostgreSQL' : 'SQLite';
  const shown = nodeOptions || '(none)';
  // First start: schema and the default account; then the monitors, written directly.
  let coordinator = await startCoordinator(env, port);
  await stopCoordinator(coordinator);
  const seedSeconds = await seed(databaseUrl, size, targetPort, seedStatus);
  const started = Date.now();
  coordinator = await startCoordinator(env, port);
  const startSeconds = (Date.now() - started) / 1000;
  try {
    const samples: number[] = [];
    for (let i = 0; i < settle; i++) {
      await sleep(1000);
      samples.push(processRssMb(coordinator.pid));
    }
    const settled = samples.at(-1) ?? 0;
    const api = coordinator.url;
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const firstMonitors = (await (await fetch(`${api}/api/monitors?per_page=20`, { headers })).json()) as {
      data: { monitors: { id: string }[] };
    };
    const page = (await (
      await fetch(`${api}/api/status_pages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Bench', monitors: firstMonitors.data.monitors.map((m) => m.id) }),
      })
    ).json()) as { data: { id: string } };
    const lastPage = Math.ceil(size / 100);
    const lines: [string, string, boolean][] = [
      ['GET /api/monitors (first page, 50)', '/api/monitors', true],
      [
        `GET /api/monitors?per_page=100&page=${lastPage} (last page)`,
        `/api/monitors?per_page=100&page=${lastPage}`,
        true,
      ],
      ['GET /status/{id} (HTML, gzip)', `/status/${page.data.id}`, false],
      ['GET /status/{id}.json', `/status/${page.data.id}.json`, false],
    ];
    const http: Row[] = [];
    const record = (label: string, load: string, result: Row) => {
      const rss = processRssMb(coordinator.pid);
      http.push({
        database,
        monitors: size,
        seeded: seedStatus,
        NODE_OPTIONS: shown,
        request: label,
        load,
        ...result,
        'RSS after MB': Math.round(rss),
      });
      samples.push(rss);
    };
    // The list's pages at a fixed rate first, before wrk's saturation has grown the heap.
    if (pacedRate > 0) {
      for (const [label, path] of lines.filter(([, , authorised]) => authorised)) {
        record(label, `${pacedRate}/s`, await paced(`${api}${path}`, pacedRate, wrkSeconds, apiKey));
      }
    }
    for (const [label, path, authorised] of lines) {
      record(label, 'wrk -c16', wrk(`${api}${path}`, wrkSeconds, authorised ? apiKey : null));
    }
    const sorted = samples.filter((mb) => !Number.isNaN(mb)).sort((a, b) => a - b);
    return {
      memory: {
        database,
        monitors: size,
        seeded: seedStatus,
        NODE_OPTIONS: shown,
        'checks/s': Math.round((size * REGIONS.length) / 300),
        'seed s': seedSeconds,
        'start s': startSeconds,
        'RSS p50 MB': Math.round(percentile(sorted, 50)),
        'RSS max MB': Math.round(sorted.at(-1) ?? 0),
        'RSS before HTTP MB': Math.round(settled),
        // A heap cap too small for the load ends the process (out of heap).
        'still running': coordinator.child.exitCode === null && coordinator.child.signalCode === null ? 'yes' : 'NO',
      },
      http,
    };
  } finally {
    await stopCoordinator(coordinator);
  }
}

/** Writes N monitors of the default account straight into the database (the API would take minutes). */
async function seed(databaseUrl: string, size: number, targetPort: number, status: 'pending' | 'up'): Promise<number> {
  const started = Date.now();
  const ds = await openDataSource(parseDatabaseUrl(databaseUrl)!, ENTITIES);
  try {
    const accountId = (await ds.query<{ id: string }[]>(`SELECT "id" FROM "accounts" LIMIT 1`))[0]?.id;
    if (!accountId) throw new Error('no account after the first start');
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < size; i += 500) {
      const chunk = Array.from({ length: Math.min(500, size - i) }, (_, k) => ({
        id: newObjectId(systemClock.now()),
        accountId,
        name: `Monitor ${i + k}`,
        active: true,
        checkInterval: 300,
        timeout: 30,
        failThreshold: 2,
        regions: [...REGIONS],
        monitorType: 'tcp' as const,
        settings: { url: `tcp://127.0.0.1:${targetPort}` },
        lastStatus: status,
        lastStatusChange: now,
        createdAt: now,
        updatedAt: now,
      }));
      await ds.manager.insert(MonitorEntity, chunk);
    }
  } finally {
    await ds.destroy();
  }
  return (Date.now() - started) / 1000;
}

/** Requests/s and latency of `url` at a fixed rate, from bench/paced-load.ts in its own process. */
async function paced(url: string, rate: number, seconds: number, apiKey: string): Promise<Row> {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'paced-load.js');
  // The key through the environment, not the command line other users' `ps` shows.
  return jsonLineOf<Row>(process.execPath, [script, url, String(rate), String(seconds)], {
    ...process.env,
    PACED_API_KEY: apiKey,
  });
}

/** Requests/s and latency percentiles of one wrk run (`--latency`). */
export function wrk(url: string, seconds: number, apiKey: string | null): Row {
  const args = ['-t1', '-c16', `-d${seconds}s`, '--latency', '-H', 'Accept-Encoding: gzip'];
  if (apiKey) args.push('-H', `Authorization: Bearer ${apiKey}`);
  const out = execFileSync(WRK, [...args, url], { encoding: 'utf8' });
  const number = (pattern: RegExp) => Number(pattern.exec(out)?.[1] ?? NaN);
  const ms = (pattern: RegExp) => {
    const match = pattern.exec(out);
    if (!match) return NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const non2xx = number(/Non-2xx or 3xx responses: (\d+)/);
  return {
    'requests/s': Math.round(number(/Requests\/sec:\s+([\d.]+)/)),
    'p50 ms': ms(/50%\s+([\d.]+)(us|ms|s)/),
    'p99 ms': ms(/99%\s+([\d.]+)(us|ms|s)/),
    'max ms': ms(/Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/),
    errors: Number.isNaN(non2xx) ? 0 : non2xx,
  };
}
