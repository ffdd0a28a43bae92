import 'reflect-metadata';
import { monitorJsonText, toMonitorJson } from '../apps/coordinator/src/monitors/monitor.mapper.js';
import { monitorFromRow, type ListedMonitorRow } from '../apps/coordinator/src/monitors/monitors.repository.js';
import { publish, type Row } from './report.js';

/**
 * `npm run bench -- list-text`: the CPU of turning one page of listed rows into the list's JSON
 * answer, both ways side by side in one process: through objects (`monitorFromRow`,
 * `toMonitorJson`, `JSON.stringify`, what the list did before decision 0044 and the other
 * monitor answers still do) and as text (`monitorJsonText`, what the list does now). No database
 * and no HTTP: only the part of a request that decision changed.
 */

const NOW = 1_767_225_600;
const PING_BASE = 'https://picket.example.com';
const PAGE = Number(process.env.BENCH_PER_PAGE ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PAGES_PER_ROUND = 2_000;

/** A page of rows as SQLite's driver answers them: https, tcp and ping monitors, some with contacts and rules. */
function pageOfRows(): ListedMonitorRow[] {
  return Array.from({ length: PAGE }, (_, i) => {
    const id = `65a1b2c3d4e5f6071820${i.toString(16).padStart(4, '0')}`;
    const type = (['https', 'tcp', 'ping'] as const)[i % 3]!;
    const url =
      type === 'https'
        ? `https://site-${i}.example.com/health`
        : `${type}://host-${i}.example.com${type === 'tcp' ? ':443' : ''}`;
    return {
      id,
      account_id: '65a1b2c3d4e5f60718293a00',
      name: `Service ${i} (production)`,
      active: 1,
      check_interval: 60,
      timeout: 10,
      fail_threshold: 2,
      regions: '["eu-west-1","us-east-1","ap-southeast-1"]',
      monitor_type: type,
      settings: JSON.stringify({ url }),
      heartbeat_token: null,
      last_status: 'up',
      last_status_change: NOW - 3600,
      last_checked_at: NOW - 20,
      notification_rules: i % 10 === 0 ? '{"delay_seconds":120}' : null,
      created_at: NOW - 86_400 - i,
      updated_at: NOW - 7200,
      contact_ids: i % 2 === 0 ? '65a1b2c3d4e5f60718293a01,65a1b2c3d4e5f60718293a02' : null,
    };
  });
}

const pagination = { page: 1, per_page: PAGE, total: 100_000, total_pages: 1000, has_next: true, has_prev: false };

const WAYS: Record<string, (rows: ListedMonitorRow[]) => string> = {
  'objects (toMonitorJson + JSON.stringify)': (rows) =>
    JSON.stringify({
      status: 'ok',
      data: {
        monitors: rows.map((row) =>
          toMonitorJson(
            { monitor: monitorFromRow(row), contactIds: row.contact_ids === null ? [] : row.contact_ids.split(',') },
            NOW,
            PING_BASE,
          ),
        ),
        pagination,
      },
    }),
  'text (monitorJsonText)': (rows) =>
    `{"status":"ok","data":{"monitors":[${rows.map((row) => monitorJsonText(row, NOW, PING_BASE)).join(',')}],` +
    `"pagination":${JSON.stringify(pagination)}}}`,
};

export async function listTextBench(): Promise<void> {
  const rows = pageOfRows();
  const [objects, text] = Object.values(WAYS).map((way) => way(rows));
  if (JSON.stringify(JSON.parse(text!)) !== objects) throw new Error('the two ways answer differently');
  const samples = new Map<string, number[]>(Object.keys(WAYS).map((name) => [name, []]));
  // Interleaved rounds, the first of each not counted (warm-up).
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, way] of Object.entries(WAYS)) {
      const started = process.cpuUsage();
      for (let i = 0; i < PAGES_PER_ROUND; i++) way(rows);
      const used = process.cpuUsage(started);
      if (round > 0) samples.get(name)!.push((used.user + used.system) / PAGES_PER_ROUND);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const result: Row[] = [...samples].map(([name, micros]) => {
    const sorted = [...micros].sort((a, b) => a - b);
    return {
      way: name,
      per_page: PAGE,
      'CPU µs / page (median)': sorted[Math.floor(sorted.length / 2)]!,
      'CPU µs / page (min–max)': `${sorted[0]!.toFixed(0)}–${sorted[sorted.length - 1]!.toFixed(0)}`,
      'answer bytes': text!.length,
    };
  });
  publish(
    'The monitor list: one page of rows to its JSON answer',
    `\`npm run bench -- list-text\`: ${PAGE} listed rows (https, tcp and ping monitors, half with contacts, a tenth with stored notification rules) turned into the list's answer ${PAGES_PER_ROUND} times per round, ${ROUNDS} interleaved rounds after one not counted; CPU of this process. No database and no HTTP (decision 0044).`,
    result,
  );
}
