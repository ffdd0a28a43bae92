import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
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
import { withScratchPostgres } from './scratch-postgres.js';

const MONITORS = 1000;
/** The stored rows (BENCH_STORED) are spread over this many days before the timed results. */
const STORED_DAYS = 7;

/**
 * The ResultsWriter (batched insert-or-ignore plus daily roll-ups, as the coordinator runs
 * it) storing BENCH_RESULTS results of 1000 monitors, on SQLite and on PostgreSQL
 * (BENCH_DATABASES, default `sqlite,postgres`). With BENCH_STORED, the table first holds that
 * many results of the same monitors over the week before (written by one SQL statement, not
 * timed), so the figure is the rate at that table size.
 */
export async function ingestBench(): Promise<void> {
  Logger.overrideLogger(false);
  const total = Number(process.env.BENCH_RESULTS ?? 200_000);
  const stored = Number(process.env.BENCH_STORED ?? 0);
  const databases = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');
  const rows: Row[] = [];
  if (databases.includes('sqlite')) rows.push(await run('SQLite', sqliteUrl(), total, stored));
  if (databases.includes('postgres')) {
    try {
      rows.push(await withScratchPostgres('picket_bench', (url) => run('PostgreSQL', url, total, stored)));
    } catch (error) {
      process.stderr.write(`PostgreSQL skipped (${String(error)}); set BENCH_POSTGRES_URL\n`);
    }
  }
  publish(
    'Ingest',
    `\`npm run bench -- ingest\`: ${total} results of ${MONITORS} monitors through the ResultsWriter ` +
      `(batches of 500, insert-or-ignore, roll-ups updated in the same transaction)` +
      (stored > 0 ? `, into a table already holding ${stored} results of the ${STORED_DAYS} days before` : '') +
      `. CPU is this process only.`,
    rows,
  );
}

let sqliteDir = '';
function sqliteUrl(): string {
  sqliteDir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  return `sqlite:${join(sqliteDir, 'bench.db')}`;
}

async function run(label: string, url: string, total: number, stored: number): Promise<Row> {
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
    const base = Date.now();
    const fillStarted = process.hrtime.bigint();
    if (stored > 0) await fill(ds, stored, base);
    const fillSeconds = Number(process.hrtime.bigint() - fillStarted) / 1e9;
    const writer = new ResultsWriter(
      new CheckResultsRepository(new Database(ds)),
      systemClock,
      loadCoordinatorConfig({}),
    );
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
      'stored before': stored,
      'fill s': fillSeconds,
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

/**
 * `count` results of the bench's monitors (monitor i % 1000, region i % 3, all UP) with
 * scheduled_at evenly spread over the STORED_DAYS days before `beforeMs`, checked a second
 * later: one INSERT … SELECT from a generated series, in one transaction.
 */
async function fill(ds: DataSource, count: number, beforeMs: number): Promise<void> {
  const step = Math.floor((STORED_DAYS * 86_400_000) / count);
  const first = beforeMs - count * step;
  const columns =
    '"id", "monitor_id", "check_id", "region", "status", "response_time_ms", "timings", "http_status", ' +
    '"agent_id", "checker_ip", "scheduled_at", "checked_at", "in_maintenance"';
  const region = (i: string) =>
    `CASE ${i} % 3 ${[0, 1, 2].map((k) => `WHEN ${k} THEN '${REGION_IDS[k]!}'`).join(' ')} END`;
  if (ds.options.type === 'postgres') {
    // The daily partitions the retention job would have made as those days came.
    await new CheckResultsRepository(new Database(ds)).ensurePartitions(
      Math.floor(first / 86_400_000),
      Math.floor(beforeMs / 86_400_000),
    );
    await ds.query(
      `INSERT INTO "check_results" (${columns}) SELECT lpad(to_hex(i), 24, '0'), m, m || ':' || s || ':' || g, g, 'up', ` +
        `20 + i % 200, '{"total_ms":20}', 200, 'bench', '192.0.2.10', s, s / 1000 + 1, false FROM ` +
        `(SELECT i, rpad(to_hex(${0x6650a1b2} + i % ${MONITORS}), 24, '0') AS m, ${first}::bigint + i * ${step} AS s, ` +
        `${region('i')} AS g FROM generate_series(0, ${count - 1}) AS i) AS n`,
    );
    await ds.query('ANALYZE "check_results"');
    return;
  }
  await ds.query(
    `INSERT INTO "check_results" (${columns}) WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1}), ` +
      `f AS (SELECT i, printf('%x', ${0x6650a1b2} + i % ${MONITORS}) || '0000000000000000' AS m, ${first} + i * ${step} AS s, ` +
      `${region('i')} AS g FROM n) ` +
      `SELECT printf('%024x', i), m, m || ':' || s || ':' || g, g, 'up', 20 + i % 200, '{"total_ms":20}', 200, 'bench', ` +
      `'192.0.2.10', s, s / 1000 + 1, 0 FROM f`,
  );
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
