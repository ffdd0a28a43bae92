import { Logger } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { newObjectId, systemClock } from '#runtime';
import { openDataSource, parseDatabaseUrl } from '../apps/coordinator/src/database/data-source.js';
import { ENTITIES } from '../apps/coordinator/src/entities.js';
import { startCoordinator, stopCoordinator } from './coordinator-process.js';
import { publish, type Row } from './report.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOUR = 3_600;
const DAY = 86_400;
const REGION = 'eu-west-1';

/** The issue's goals (issue 15). */
const GOALS = { firstLoadKb: 200, interactiveMs: 1_500, requests: 5 } as const;

/**
 * `npm run bench -- dashboard`: the built dashboard against a real coordinator (SQLite,
 * CHECKS_ENABLED=false, DISPATCH_ENABLED=false) holding BENCH_MONITORS monitors with a day of
 * hourly results and 30 days of daily roll-ups each, loaded BENCH_RUNS times in headless
 * Chromium, each time in a fresh context (empty cache, new session).
 *
 * Interactive, as measured: from `page.goto('/')` until (1) the counts show the number of
 * monitors, (2) the first row is on screen with its 24 h uptime, and (3) typing a monitor's
 * name into the search box has narrowed the list to that one monitor ("1 of N monitors shown").
 * Requests: every `/api/...` request the page made until then (the event stream included).
 * First load: the gzipped bytes of every JavaScript and CSS file the page loaded.
 */
export async function dashboardBench(): Promise<void> {
  Logger.overrideLogger(false);
  const size = Number(process.env.BENCH_MONITORS ?? 10_000);
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'picket-bench-dashboard-'));
  const databaseUrl = `sqlite:${join(dir, 'picket.db')}`;
  const env = {
    DATABASE_URL: databaseUrl,
    BOOTSTRAP_API_KEY: `pkt_${randomBytes(32).toString('hex')}`,
    LOG_LEVEL: 'error',
    CHECKS_ENABLED: 'false',
    DISPATCH_ENABLED: 'false',
  };
  let browser: Browser | null = null;
  try {
    // First start: schema and the default account; then the monitors and history, written directly.
    let coordinator = await startCoordinator(env);
    await stopCoordinator(coordinator);
    const seeded = await seed(databaseUrl, size);
    const password = `bench-${randomBytes(8).toString('hex')}`;
    const token = createUser(databaseUrl, seeded.accountId);
    coordinator = await startCoordinator(env);
    try {
      const base = coordinator.url;
      const set = await fetch(`${base}/auth/set-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, password }),
      });
      if (set.status !== 204) throw new Error(`set-password answered ${set.status}`);
      const summary = await summaryCost(base, env.BOOTSTRAP_API_KEY);
      browser = await chromium.launch({
        executablePath: process.env.PICKET_TEST_CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-proxy-server'],
      });
      const loads: Load[] = [];
      for (let i = 0; i < runs; i++) loads.push(await loadOverview(browser, base, password, size, seeded.searchName));
      const firstLoadBytes = await gzippedBytes(base, loads[0]?.assets ?? []);
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
      const spread = (values: number[]) => `${Math.min(...values)}–${Math.max(...values)}`;
      const interactive = loads.map((l) => l.interactiveMs);
      const firstRows = loads.map((l) => l.firstRowsMs);
      const requests = loads.map((l) => l.apiRequests.length);
      const rows: Row[] = [
        {
          measure: 'first load, gzipped JS + CSS',
          goal: `≤ ${GOALS.firstLoadKb} KB`,
          median: `${(firstLoadBytes / 1024).toFixed(1)} KB`,
          runs: `${loads[0]?.assets.length ?? 0} files`,
          met: firstLoadBytes / 1024 <= GOALS.firstLoadKb ? 'yes' : 'no',
        },
        {
          measure: 'navigation → first rows with uptime',
          goal: '',
          median: `${median(firstRows)} ms`,
          runs: spread(firstRows),
          met: '',
        },
        {
          measure: 'navigation → interactive (counts, rows, search answered)',
          goal: `≤ ${GOALS.interactiveMs} ms`,
          median: `${median(interactive)} ms`,
          runs: spread(interactive),
          met: median(interactive) <= GOALS.interactiveMs ? 'yes' : 'no',
        },
        {
          measure: 'API requests until interactive',
          goal: `≤ ${GOALS.requests}`,
          median: String(median(requests)),
          runs: [...new Set(loads.map((l) => l.apiRequests.join(' ')))].join(' / '),
          met: median(requests) <= GOALS.requests ? 'yes' : 'no',
        },
        {
          measure: 'GET /api/monitor_summary alone (server + transfer)',
          goal: '',
          median: `${summary.ms} ms`,
          runs: `${(summary.gzipped / 1024).toFixed(0)} KB gzipped, ${(summary.plain / 1024).toFixed(0)} KB JSON`,
          met: '',
        },
      ];
      publish(
        'Dashboard overview',
        `\`npm run bench -- dashboard\`: the built dashboard and a coordinator process (SQLite, checks and ` +
          `dispatch off) with ${size} monitors (${seeded.down} down, ${seeded.paused} paused), each with ` +
          `${seeded.results / size} results in the last 24 h and 30 days of daily roll-ups ` +
          `(${seeded.results} results, ${seeded.rollups} roll-ups), loaded ${runs} times in headless Chromium ` +
          `on this machine, each in a fresh context. Interactive = the counts show ${size}, the first row shows ` +
          `its 24 h uptime, and a name typed into the search box has narrowed the list to one monitor. ` +
          `Medians; "runs" gives the range.`,
        rows,
      );
    } finally {
      await stopCoordinator(coordinator);
    }
  } finally {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Load {
  firstRowsMs: number;
  interactiveMs: number;
  apiRequests: string[];
  assets: string[];
}

async function loadOverview(
  browser: Browser,
  base: string,
  password: string,
  size: number,
  searchName: string,
): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const login = await context.request.post(`${base}/auth/login`, { data: { email: BENCH_EMAIL, password } });
    if (login.status() !== 204) throw new Error(`login answered ${login.status()}`);
    const page = await context.newPage();
    const apiRequests: string[] = [];
    const assets: string[] = [];
    let counting = true;
    page.on('request', (req) => {
      if (!counting) return;
      const { pathname } = new URL(req.url());
      if (pathname.startsWith('/api/')) apiRequests.push(pathname);
      if (/^\/assets\/.+\.(js|css)$/.test(pathname)) assets.push(pathname);
    });
    const started = Date.now();
    await page.goto(`${base}/`, { waitUntil: 'commit' });
    await page
      .locator('.count-total .value')
      .filter({ hasText: String(size) })
      .waitFor({ timeout: 60_000 });
    await page.locator('.row .uptime-24h').first().waitFor({ timeout: 60_000 });
    const firstRowsMs = Date.now() - started;
    await page.getByRole('searchbox').fill(searchName);
    await page
      .locator('.list-summary')
      .filter({ hasText: `1 of ${size} monitors shown` })
      .waitFor({ timeout: 60_000 });
    const interactiveMs = Date.now() - started;
    counting = false;
    return { firstRowsMs, interactiveMs, apiRequests, assets };
  } finally {
    await context.close();
  }
}

/** The gzipped size of each file as the coordinator sends it to a browser that takes gzip. */
async function gzippedBytes(base: string, paths: readonly string[]): Promise<number> {
  let total = 0;
  for (const path of new Set(paths)) total += (await rawGet(base, path, { 'accept-encoding': 'gzip' })).length;
  return total;
}

/** One summary request with an API key, gzipped and not: bytes and time (median of 5). */
async function summaryCost(base: string, apiKey: string): Promise<{ ms: number; gzipped: number; plain: number }> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const times: number[] = [];
  let gzipped = 0;
  for (let i = 0; i < 5; i++) {
    const started = Date.now();
    gzipped = (await rawGet(base, '/api/monitor_summary', { ...headers, 'accept-encoding': 'gzip' })).length;
    times.push(Date.now() - started);
  }
  const plain = (await rawGet(base, '/api/monitor_summary', headers)).length;
  return { ms: times.sort((a, b) => a - b)[2] ?? NaN, gzipped, plain };
}

function rawGet(base: string, path: string, headers: Record<string, string>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    request(`${base}${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(Buffer.concat(parts))
          : reject(new Error(`${path} answered ${res.statusCode}`)),
      );
    })
      .once('error', reject)
      .end();
  });
}

const BENCH_EMAIL = 'bench@example.com';

/** A dashboard user of the account through the admin CLI; returns the token of its set-password URL. */
function createUser(databaseUrl: string, accountId: string): string {
  const out = execFileSync(
    process.execPath,
    [join(ROOT, 'dist/apps/coordinator/src/cli.js'), 'users', 'create', '--account', accountId, '--email', BENCH_EMAIL],
    { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' }, encoding: 'utf8' },
  );
  const url = (JSON.parse(out) as { set_password_url: string }).set_password_url;
  const token = new URL(url).searchParams.get('token');
  if (!token) throw new Error(`no token in ${url}`);
  return token;
}

interface Seeded {
  accountId: string;
  down: number;
  paused: number;
  results: number;
  rollups: number;
  searchName: string;
}

/** Multi-row inserts of plain values (SQLite), a chunk at a time. */
async function insertRows(ds: DataSource, table: string, columns: readonly string[], rows: unknown[][]) {
  const perStatement = Math.floor(30_000 / columns.length);
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const values = chunk.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    await ds.query(
      `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${values}`,
      chunk.flat(),
    );
  }
}

/**
 * `size` https monitors of the default account (every 50th down, every 100th paused), each with
 * one result an hour for the last 24 h (up with 50–450 ms, the down ones' newest three down) and
 * a roll-up for each of the last 30 UTC days (288 checks, a few failures).
 */
async function seed(databaseUrl: string, size: number): Promise<Seeded> {
  const ds = await openDataSource(parseDatabaseUrl(databaseUrl)!, ENTITIES);
  try {
    const accountId = (await ds.query<{ id: string }[]>(`SELECT "id" FROM "accounts" LIMIT 1`))[0]?.id;
    if (!accountId) throw new Error('no account after the first start');
    const now = Math.floor(Date.now() / 1000);
    const today = Math.floor(now / DAY);
    const monitors: unknown[][] = [];
    const results: unknown[][] = [];
    const rollups: unknown[][] = [];
    let down = 0;
    let paused = 0;
    for (let i = 0; i < size; i++) {
      const id = newObjectId(systemClock.now());
      const isDown = i % 50 === 7;
      const isPaused = i % 100 === 3;
      down += isDown ? 1 : 0;
      paused += isPaused ? 1 : 0;
      monitors.push([
        id,
        accountId,
        `Monitor ${i}`,
        isPaused ? 0 : 1,
        300,
        10,
        2,
        JSON.stringify([REGION]),
        'https',
        JSON.stringify({ url: `https://service-${i}.example.com/health` }),
        isDown ? 'down' : 'up',
        now - (i % 5_000),
        now - 60,
        now - 40 * DAY,
        now - 40 * DAY,
      ]);
      for (let h = 0; h < 24; h++) {
        const failed = isDown && h < 3;
        const checkedAt = now - h * HOUR - 30;
        const scheduledAt = checkedAt * 1000 - 500;
        results.push([
          newObjectId(systemClock.now()),
          id,
          `${id}:${scheduledAt}:${REGION}`,
          REGION,
          failed ? 'down' : 'up',
          failed ? 'response' : null,
          failed ? 'HTTP 503' : null,
          failed ? null : 50 + ((i * 7 + h * 13) % 400),
          '{}',
          failed ? 503 : 200,
          null,
          'bench',
          '127.0.0.1',
          scheduledAt,
          checkedAt,
          0,
        ]);
      }
      for (let d = 0; d < 30; d++) {
        const failures = (i + d) % 17 === 0 ? 3 : 0;
        rollups.push([id, today - d, REGION, 288, failures, 0, (288 - failures) * 200, 288 - failures, 300, null]);
      }
    }
    await insertRows(
      ds,
      'monitors',
      [
        'id',
        'account_id',
        'name',
        'active',
        'check_interval',
        'timeout',
        'fail_threshold',
        'regions',
        'monitor_type',
        'settings',
        'last_status',
        'last_status_change',
        'last_checked_at',
        'created_at',
        'updated_at',
      ],
      monitors,
    );
    await insertRows(
      ds,
      'check_results',
      [
        'id',
        'monitor_id',
        'check_id',
        'region',
        'status',
        'phase',
        'error',
        'response_time_ms',
        'timings',
        'http_status',
        'cert_not_after',
        'agent_id',
        'checker_ip',
        'scheduled_at',
        'checked_at',
        'in_maintenance',
      ],
      results,
    );
    await insertRows(
      ds,
      'check_rollups',
      [
        'monitor_id',
        'day',
        'region',
        'checks',
        'failures',
        'unknowns',
        'sum_response_ms',
        'count_response',
        'p95_response_ms',
        'histogram',
      ],
      rollups,
    );
    return {
      accountId,
      down,
      paused,
      results: results.length,
      rollups: rollups.length,
      searchName: `Monitor ${Math.floor(size / 2) + 1}`,
    };
  } finally {
    await ds.destroy();
  }
}
