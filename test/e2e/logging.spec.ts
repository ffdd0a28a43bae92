import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapturingLogger, startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { TcpProxy } from '../support/faults.js';
import { ensureBuilt, REPO_ROOT, startPicket, whenOutputMatches, type RunningProcess } from '../support/processes.js';

/**
 * What Picket writes to its logs, as an operator's log pipeline receives it: the built
 * processes with stdout and stderr piped (no colours; the first-start key outside the JSON
 * lines; `--help` starts nothing), and a real coordinator's request ids and outage lines.
 */

const ANSI = new RegExp(String.fromCharCode(27) + '\\[');
const KEY = /pkt_[0-9a-f]{64}/;
/** Generous: the first spawn may have to rebuild dist/. */
const SPAWN_TIMEOUT = 240_000;

/** The test's environment minus whatever could change what a child prints or where it stores. */
function quietEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (['NO_COLOR', 'FORCE_COLOR', 'DATABASE_URL', 'BOOTSTRAP_API_KEY', 'LOG_FORMAT', 'LOG_LEVEL'].includes(key)) {
      continue;
    }
    env[key] = value;
  }
  return { ...env, ...extra };
}

describe('the built processes, stdout and stderr piped', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'picket-logging-'));
  }, SPAWN_TIMEOUT);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  async function firstStart(format: 'text' | 'json'): Promise<{ stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const running: RunningProcess = startPicket(
      'start',
      quietEnv({
        DATABASE_URL: `sqlite:${join(dir, `${format}.db`)}`,
        PORT: '0',
        HOST: '127.0.0.1',
        CHECKS_ENABLED: 'false',
        LOG_LEVEL: 'info',
        LOG_FORMAT: format,
      }),
    );
    running.child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    running.child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    // 'close': both pipes drained, not only the process gone.
    const closed = new Promise((resolve) => running.child.once('close', resolve));
    try {
      await whenOutputMatches(running, /listening on/);
    } finally {
      await running.kill();
      await closed;
    }
    return { stdout, stderr };
  }

  it(
    'text logs into a pipe carry no colour codes',
    async () => {
      const { stdout, stderr } = await firstStart('text');
      expect(stdout).toMatch(/coordinator listening on/);
      expect(stdout).not.toMatch(ANSI);
      expect(stderr).not.toMatch(ANSI);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'LOG_FORMAT=json: the first-start key is never in a JSON line, but is shown once as plain text on stderr',
    async () => {
      const { stdout, stderr } = await firstStart('json');
      const lines = `${stdout}\n${stderr}`.split('\n').filter((line) => line.trim() !== '');
      const json = lines.filter((line) => line.startsWith('{'));
      expect(json.length).toBeGreaterThan(3);
      for (const line of json) {
        expect(() => JSON.parse(line) as unknown).not.toThrow();
        expect(line).not.toMatch(/pkt_[0-9a-f]/);
      }
      // Every line of stdout is a JSON record: the log stream a shipper reads.
      for (const line of stdout.split('\n').filter((l) => l.trim() !== '')) expect(line).toMatch(/^\{.*\}$/);
      expect(stderr.match(new RegExp(KEY, 'g'))).toHaveLength(1);
      // The log says that a key was made and where it went, without the key.
      const messages = json.map((line) => (JSON.parse(line) as { message: string }).message);
      expect(messages.some((message) => /^FIRST START: created the account "default"/.test(message))).toBe(true);
    },
    SPAWN_TIMEOUT,
  );

  function run(command: string, args: string[], env: Record<string, string> = {}) {
    return spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'picket.mjs'), command, ...args], {
      cwd: REPO_ROOT,
      env: quietEnv(env),
      encoding: 'utf8',
      timeout: 20_000,
    });
  }

  it.each([
    ['start', '--help', /coordinator/],
    ['start', '-h', /coordinator/],
    ['agent', '--help', /agent/],
    ['agent', '-h', /agent/],
  ])(
    '`%s %s` prints what the command does and where its configuration comes from, and starts nothing',
    (command, flag, what) => {
      const database = join(dir, `help-${command}${flag}.db`);
      const result = run(command, [flag], {
        DATABASE_URL: `sqlite:${database}`,
        PORT: '0',
        NATS_URL: 'nats://127.0.0.1:1',
        AGENT_HTTP_PORT: '0',
      });
      expect({ status: result.status, signal: result.signal }).toEqual({ status: 0, signal: null });
      expect(result.stdout).toMatch(/^usage: /);
      expect(result.stdout).toMatch(what);
      expect(result.stdout).toMatch(/environment variables/);
      expect(result.stdout).toMatch(/README\.md/);
      expect(result.stdout).not.toMatch(/listening|connecting to NATS/);
      expect(existsSync(database)).toBe(false);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'an argument the server does not take is refused with the usage, exit 2',
    () => {
      const result = run('start', ['--port', '9000'], { DATABASE_URL: `sqlite:${join(dir, 'args.db')}` });
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/--port/);
      expect(result.stderr).toMatch(/usage: /);
      expect(existsSync(join(dir, 'args.db'))).toBe(false);
    },
    SPAWN_TIMEOUT,
  );

  it(
    "the CLI's own --help and -h still print its commands",
    () => {
      for (const flag of ['--help', '-h']) {
        const result = run('cli', [flag]);
        expect({ flag, status: result.status }).toEqual({ flag, status: 0 });
        expect(result.stderr).toMatch(/keys create --account/);
      }
    },
    SPAWN_TIMEOUT,
  );
});

describe('request ids', () => {
  let c: RunningCoordinator;
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url);
  });
  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const idOf = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${c.baseUrl}${path}`, { headers });
    await res.arrayBuffer();
    return res.headers.get('x-request-id');
  };

  it('a valid incoming X-Request-Id is echoed, on answers and on errors alike', async () => {
    expect(await idOf('/healthz', { 'X-Request-Id': 'lb-7f3a.42:9_Z' })).toBe('lb-7f3a.42:9_Z');
    expect(await idOf('/api/monitors', { 'X-Request-Id': 'unauthenticated-1' })).toBe('unauthenticated-1');
    expect(await idOf('/no/such/path', { 'X-Request-Id': 'not-found-1' })).toBe('not-found-1');
  });

  it('without one, or with one too long or of other characters, each request gets a fresh id', async () => {
    const generated = [
      await idOf('/healthz'),
      await idOf('/healthz'),
      await idOf('/healthz', { 'X-Request-Id': 'x'.repeat(129) }),
      await idOf('/healthz', { 'X-Request-Id': 'evil id; with spaces' }),
      await idOf('/healthz', { 'X-Request-Id': '' }),
    ];
    for (const id of generated) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(generated).size).toBe(generated.length);
    expect(await idOf('/healthz', { 'X-Request-Id': 'y'.repeat(128) })).toBe('y'.repeat(128));
  });
});

const postgres = testDatabases().find((kind) => kind.name === 'postgres');
(postgres ? describe : describe.skip)('a database outage in the log', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let c: RunningCoordinator;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    db = await postgres!.create();
    const url = new URL(db.url);
    proxy = await new TcpProxy(url.hostname, Number(url.port || 5432)).start();
    url.port = String(proxy.port);
    c = await startCoordinator(url.toString(), { logger, env: { LOG_LEVEL: 'info' } });
  }, 60_000);
  afterAll(async () => {
    await proxy.restore();
    await c?.close();
    await proxy?.cut();
    await db?.drop();
  }, 60_000);

  it('is one line with the request id and the error code, without a stack', async () => {
    const { apiKey } = await c.newAccount('outage-log');
    await proxy.cut();
    const res = await fetch(`${c.baseUrl}/api/monitors`, {
      headers: { authorization: `Bearer ${apiKey}`, 'x-request-id': 'outage-req-1' },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-request-id')).toBe('outage-req-1');
    const lines = logger.lines.filter((line) => line.includes('outage-req-1'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warn GET \/api\/monitors \(request outage-req-1\): dependency unavailable: /);
    expect(lines[0]).toMatch(/ECONNREFUSED|ECONNRESET|08\d\d\d|57P0\d|Connection terminated/);
    expect(lines[0]).not.toMatch(/\n|\s+at /);
  });
});
