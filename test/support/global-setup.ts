import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { connect } from 'node:net';
import pg from 'pg';

/** Whether a NATS server answers with its INFO line at `url` (nats://host:port). */
function natsProblem(url: string): Promise<string | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 4222) });
    const done = (problem: string | null) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(2000, () => done('no answer within 2 s'));
    socket.once('data', (data) => done(data.toString().startsWith('INFO') ? null : 'not a NATS server'));
    socket.once('error', (error) => done(error.message));
  });
}

async function requireOrSkip(
  service: string,
  url: string,
  problem: string | null,
  flag: string,
  variable: string,
  what: string,
): Promise<void> {
  if (problem === null) {
    process.env[flag] = '1';
    return;
  }
  if (process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
    throw new Error(`${service} is required (PICKET_TEST_REQUIRE_SERVICES=1) but ${url} is unreachable: ${problem}`);
  }
  process.env[flag] = '0';
  process.stderr.write(
    `\n[picket tests] SKIPPING ${what}: ${url} is unreachable (${problem}).\n` +
      `[picket tests] To run them, start ${service} there or set ${variable}.\n\n`,
  );
}

/**
 * Runs once before all test files and decides whether the PostgreSQL, NATS and Chromium suites run: PostgreSQL does
 * when a server answers at PICKET_TEST_POSTGRES_URL (default: the local server on
 * 127.0.0.1:5432). With PICKET_TEST_REQUIRE_SERVICES=1 (CI) a missing server fails the run.
 * The outcome reaches the test workers through PICKET_TEST_POSTGRES and
 * PICKET_TEST_POSTGRES_URL. (Self-contained: Jest loads this file outside the ESM mapper.)
 */
export default async function globalSetup(): Promise<void> {
  const url = process.env.PICKET_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  process.env.PICKET_TEST_POSTGRES_URL = url;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  let problem: string | null = null;
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
  await requireOrSkip(
    'PostgreSQL',
    url,
    problem,
    'PICKET_TEST_POSTGRES',
    'PICKET_TEST_POSTGRES_URL=postgres://user@host:port/db',
    'the PostgreSQL variants of the API and repository suites',
  );

  const natsUrl = process.env.PICKET_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
  process.env.PICKET_TEST_NATS_URL = natsUrl;
  await requireOrSkip(
    'NATS',
    natsUrl,
    await natsProblem(natsUrl),
    'PICKET_TEST_NATS',
    'PICKET_TEST_NATS_URL=nats://host:port',
    'the NATS suites (agent over NATS, coordinator with agents)',
  );

  // The status-page browser suite drives a real headless Chromium (Debian's `chromium` package).
  const chromium = process.env.PICKET_TEST_CHROMIUM_PATH ?? '/usr/bin/chromium';
  process.env.PICKET_TEST_CHROMIUM_PATH = chromium;
  const chromiumProblem = await access(chromium, constants.X_OK).then(
    () => null,
    () => 'no executable there',
  );
  if (chromiumProblem === null) {
    process.env.PICKET_TEST_CHROMIUM = '1';
  } else if (process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
    throw new Error(`Chromium is required (PICKET_TEST_REQUIRE_SERVICES=1) but ${chromium}: ${chromiumProblem}`);
  } else {
    process.env.PICKET_TEST_CHROMIUM = '0';
    process.stderr.write(
      `\n[picket tests] SKIPPING the status-page browser tests: no Chromium at ${chromium} (${chromiumProblem}).\n` +
        `[picket tests] To run them, install it (Debian: apt-get install -y --no-install-recommends chromium) or set ` +
        `PICKET_TEST_CHROMIUM_PATH=/path/to/chromium.\n\n`,
    );
  }
}
