import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { REGION_IDS, type ProbeResult } from '#contracts';
import { systemClock } from '#runtime';
import { AccountEntity } from '../apps/coordinator/src/auth/account.entity.js';
import { loadCoordinatorConfig } from '../apps/coordinator/src/config.js';
import { openDataSource, parseDatabaseUrl } from '../apps/coordinator/src/database/data-source.js';
import { ENTITIES } from '../apps/coordinator/src/entities.js';
import { Database } from '../apps/coordinator/src/database/database.js';
import { migrate } from '../apps/coordinator/src/database/migrate.js';
import { CheckResultsRepository } from '../apps/coordinator/src/history/check-results.repository.js';
import { ResultsWriter } from '../apps/coordinator/src/history/results-writer.js';
import { MonitorEntity } from '../apps/coordinator/src/monitors/monitor.entity.js';
import { cpuSeconds, publish, type Row } from './report.js';

const MONITORS = 1000;

/**
 * The ResultsWriter (batched insert-or-ignore plus daily roll-ups, as the coordinator runs
 * it) storing BENCH_RESULTS results of 1000 monitors, on SQLite and on PostgreSQL.
 */
export async function ingestBench(): Promise<void> {
  Logger.overrideLogger(false);
  const total = Number(process.env.BENCH_RESULTS ?? 200_000);
  const rows: Row[] = [await run('SQLite', sqliteUrl(), total)];
  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `picket_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE "${name}"`);
    const url = new URL(admin);
    url.pathname = `/${name}`;
    rows.push(await run('PostgreSQL', url.toString(), total));
  } catch (error) {
    process.stderr.write(`PostgreSQL skipped (${String(error)}); set BENCH_POSTGRES_URL\n`);
  } finally {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
  publish(
    'Ingest',
    `\`npm run bench -- ingest\`: ${total} results of ${MONITORS} monitors through the ResultsWriter ` +
      `(batches of 500, insert-or-ignore, roll-ups updated in the same transaction). CPU is this process only.`,
    rows,
  );
}

let sqliteDir = '';
function sqliteUrl(): string {
  sqliteDir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  return `sqlite:${join(sqliteDir, 'bench.db')}`;
}

async function run(label: string, url: string, total: number): Promise<Row> {
  const ds = await openDataSource(parseDatabaseUrl(url)!, ENTITIES);
  try {
    await migrate(ds);
    const now = Math.floor(Date.now() / 1000);
    await ds.manager.insert(AccountEntity, {
      id: 'a'.repeat(24),
      name: 'bench',
      subscriptionStatus: 'active',
      createdAt: now,
    });
    const ids = Array.from({ length: MONITORS }, (_, i) => (0x6650a1b2 + i).toString(16).padEnd(24, '0'));
    for (let i = 0; i < ids.length; i += 200) {
      await ds.manager.insert(
        MonitorEntity,
        ids.slice(i, i + 200).map((id) => ({
          id,
          accountId: 'a'.repeat(24),
          name: id,
          active: true,
          checkInterval: 60,
          timeout: 30,
          failThreshold: 2,
          regions: ['eu-west-1'],
          monitorType: 'https' as const,
          settings: { url: 'https://example.com/' },
          lastStatus: 'pending' as const,
          lastStatusChange: now,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
    const writer = new ResultsWriter(
      new CheckResultsRepository(new Database(ds)),
      systemClock,
      loadCoordinatorConfig({}),
    );
    const base = Date.now();
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < total; i++) {
      writer.add(result(ids[i % MONITORS]!, base + i));
      if (i % 5000 === 4999) await writer.flush(); // producers arrive over time; keep memory flat
    }
    await writer.flush();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuUsed = cpuSeconds(cpu);
    await writer.beforeApplicationShutdown();
    return {
      database: label,
      results: total,
      seconds,
      'results/s': Math.round(total / seconds),
      'CPU s': cpuUsed,
      'cores used': cpuUsed / seconds,
    };
  } finally {
    await ds.destroy();
    if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
  }
}

function result(monitorId: string, scheduledAt: number): ProbeResult {
  const region = REGION_IDS[scheduledAt % 3]!;
  const ms = 20 + (scheduledAt % 200);
  return {
    check_id: `${monitorId}:${scheduledAt}:${region}`,
    monitor_id: monitorId,
    region,
    scheduled_at: scheduledAt,
    status: 'up',
    phase: null,
    error: null,
    response_time_ms: ms,
    timings: { dns_ms: 1, connect_ms: 2, tls_ms: 3, first_byte_ms: ms - 2, total_ms: ms },
    http_status: 200,
    cert_not_after: null,
    agent_id: 'bench',
    checker_ip: '192.0.2.10',
    started_at: scheduledAt,
  };
}
