import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, natsServerBinary, PrivateNats } from '../support/faults.js';
import { ensureBuilt, startPicket, whenOutputMatches, type RunningProcess } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

/**
 * A wrong or unreachable NATS_URL is never waited on in silence: coordinator and agent processes
 * say at once where they connect, serve HTTP while NATS is away (the agent's /readyz says why it
 * is not ready), connect when NATS appears, and with NATS_CONNECT_TIMEOUT_SECONDS exit 1 with a
 * message. Each process gets its own closed port, later a private nats-server on that port.
 */
const binary = natsServerBinary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the NATS start-up tests need nats-server on this machine (Debian package nats-server)');
}
if (!binary) process.stderr.write('[picket tests] SKIPPING the NATS start-up tests: no nats-server on this machine.\n');

/**
 * The issue's requirement: the process says where it connects at once, before Nest and the
 * probers are loaded, within 1 s of its start (measured from the spawn: node's own start and
 * picket.mjs's up-to-date check included). On a quiet 2-core machine, on 2026-11-26, the connect
 * line came at 0.58-0.65 s (agent) and 0.46-0.66 s (coordinator), and Nest's "application
 * successfully started" at 1.04-1.13 s and 1.60-1.85 s: the connect line at 0.56-0.58 and
 * 0.29-0.36 of the time to Nest's line. With the other jest worker spawning processes CI measured
 * 1.3-1.8 s for the connect line, best of three. So each start is judged twice: by the share of
 * the time to Nest's line it took (load slows both alike; a regression that connects once Nest
 * is up takes nearly all of it), and by the clock with an allowance for a loaded machine. A start
 * that misses either is measured again, up to three starts.
 */
const FIRST_LINE_MS = 1000;
const LOADED_MACHINE_ALLOWANCE_MS = 1500;
const MAX_SHARE_OF_BOOT = 0.75;
const NEST_STARTED = /Nest application successfully started/;

const LIMIT = { NATS_CONNECT_TIMEOUT_SECONDS: '2' };

interface FirstLine {
  /** From the spawn to the connect line. */
  ms: number;
  /** ms as a share of the time from the spawn to Nest's "application successfully started". */
  share: number;
  process: RunningProcess;
}

const good = (line: FirstLine) =>
  line.ms <= FIRST_LINE_MS + LOADED_MACHINE_ALLOWANCE_MS && line.share <= MAX_SHARE_OF_BOOT;

async function firstLine(start: () => RunningProcess, pattern: RegExp): Promise<FirstLine> {
  let last: FirstLine | null = null;
  for (let attempt = 0; attempt < 3 && (last === null || !good(last)); attempt++) {
    await last?.process.kill('SIGKILL');
    ensureBuilt(); // another edit may have made dist/ stale since: tsc must not be timed
    const spawnedAt = performance.now();
    const started = start();
    const [connectAt, nestAt] = await Promise.all([
      whenOutputMatches(started, pattern),
      whenOutputMatches(started, NEST_STARTED),
    ]);
    last = { ms: connectAt - spawnedAt, share: (connectAt - spawnedAt) / (nestAt - spawnedAt), process: started };
  }
  return last!;
}

interface Answer {
  status: number;
  body: Record<string, any>;
}

async function get(url: string): Promise<Answer | undefined> {
  const res = await fetch(url).catch(() => null);
  return res ? { status: res.status, body: (await res.json()) as Record<string, any> } : undefined;
}

(binary ? describe : describe.skip)('NATS at start-up: said at once, never waited on in silence', () => {
  const prefix = `startup_${randomBytes(4).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'picket-nats-startup-'));
  const processes: RunningProcess[] = [];
  const servers: PrivateNats[] = [];

  beforeAll(() => {
    ensureBuilt();
  }, 300_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const agentEnv = (natsPort: number, httpPort: number, extra: Record<string, string> = {}) => ({
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    NATS_SUBJECT_PREFIX: prefix,
    AGENT_ID: `startup-${httpPort}`,
    AGENT_REGIONS: 'eu-west-1',
    AGENT_HTTP_PORT: String(httpPort),
    AGENT_HTTP_HOST: '127.0.0.1',
    AGENT_HEARTBEAT_SECONDS: '1',
    AGENT_DRAIN_SECONDS: '1',
    ...extra,
  });

  const coordinatorEnv = (natsPort: number, httpPort: number, extra: Record<string, string> = {}) => ({
    DATABASE_URL: `sqlite:${join(dir, `coordinator-${httpPort}.db`)}`,
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    NATS_SUBJECT_PREFIX: prefix,
    PORT: String(httpPort),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...extra,
  });

  it('agent: says where it connects within 1 s, answers /healthz and /readyz without NATS, is ready only while NATS is up', async () => {
    const nats = new PrivateNats(binary!);
    servers.push(nats);
    nats.port = await freePort();
    const httpPort = await freePort();
    const base = `http://127.0.0.1:${httpPort}`;
    const {
      ms,
      share,
      process: agent,
    } = await firstLine(
      () => startPicket('agent', agentEnv(nats.port, httpPort)),
      new RegExp(`connecting to NATS nats://127\\.0\\.0\\.1:${nats.port}\\b`),
    );
    processes.push(agent);
    expect(share).toBeLessThanOrEqual(MAX_SHARE_OF_BOOT);
    expect(ms).toBeLessThanOrEqual(FIRST_LINE_MS + LOADED_MACHINE_ALLOWANCE_MS);

    // NATS unreachable: alive (200) but not ready (503), each saying why.
    const health = await waitFor('the agent to answer /healthz', () => get(`${base}/healthz`), 60_000).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}\n${agent.output()}`);
      },
    );
    expect(health).toMatchObject({ status: 200, body: { status: 'ok', nats: false, nats_state: 'connecting' } });
    const notReady = await waitFor('/readyz to give the reason', async () => {
      const answer = await get(`${base}/readyz`);
      return answer?.body.checks?.nats !== 'connecting' ? answer : undefined;
    });
    expect(notReady).toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        failing: ['nats'],
        checks: { nats: 'connecting: connection refused (ECONNREFUSED)', shutdown: 'ok' },
      },
    });
    expect(agent.output()).toContain(
      `NATS nats://127.0.0.1:${nats.port} not reachable: connection refused (ECONNREFUSED)`,
    );
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^picket_nats_connected\{[^}]*\} 0$/m);

    // NATS appears on that port: ready.
    await nats.start();
    const ready = await waitFor('the agent to be ready', async () => {
      const answer = await get(`${base}/readyz`);
      return answer?.status === 200 ? answer : undefined;
    });
    expect(ready.body).toEqual({ status: 'ready', failing: [], checks: { nats: 'ok', shutdown: 'ok' } });
    expect((await get(`${base}/healthz`))?.body).toMatchObject({ nats: true, nats_state: 'connected' });

    // NATS goes away: /healthz stays 200 but says so, /readyz is 503 again.
    await nats.stop();
    const lost = await waitFor('/healthz to report the outage', async () => {
      const answer = await get(`${base}/healthz`);
      return answer?.body.nats === false ? answer : undefined;
    });
    expect(lost).toMatchObject({ status: 200, body: { status: 'ok', nats: false, nats_state: 'reconnecting' } });
    expect(await get(`${base}/readyz`)).toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        failing: ['nats'],
        checks: { nats: `reconnecting: connection to 127.0.0.1:${nats.port} lost`, shutdown: 'ok' },
      },
    });

    // Shutting down during the outage does not hang on NATS.
    expect(await agent.kill('SIGTERM')).toBe('SIGTERM');
  }, 120_000);

  it('coordinator: says where it connects within 1 s and serves HTTP while NATS is unreachable', async () => {
    const nats = new PrivateNats(binary!);
    servers.push(nats);
    nats.port = await freePort();
    const httpPort = await freePort();
    const base = `http://127.0.0.1:${httpPort}`;
    const {
      ms,
      share,
      process: coordinator,
    } = await firstLine(
      () => startPicket('start', coordinatorEnv(nats.port, httpPort)),
      new RegExp(`connecting to NATS nats://127\\.0\\.0\\.1:${nats.port}\\b`),
    );
    processes.push(coordinator);
    expect(share).toBeLessThanOrEqual(MAX_SHARE_OF_BOOT);
    expect(ms).toBeLessThanOrEqual(FIRST_LINE_MS + LOADED_MACHINE_ALLOWANCE_MS);

    const health = await waitFor(
      'the coordinator to answer /healthz',
      async () => {
        const answer = await get(`${base}/healthz`);
        return answer?.status === 200 ? answer : undefined;
      },
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${coordinator.output()}`);
    });
    expect(health.body).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/api/openapi.json`)).status).toBe(200);
    expect(coordinator.output()).toContain(
      `NATS nats://127.0.0.1:${nats.port} not reachable: connection refused (ECONNREFUSED)`,
    );

    await nats.start();
    await waitFor('the coordinator to connect', async () =>
      coordinator.output().includes(`connected to NATS 127.0.0.1:${nats.port}`) ? true : undefined,
    );
    await nats.stop();
    await waitFor('the coordinator to notice the outage', async () =>
      coordinator.output().includes(`NATS connection lost (127.0.0.1:${nats.port}); reconnecting`) ? true : undefined,
    );
    // Shutting down during the outage does not hang on NATS.
    expect(await coordinator.kill('SIGTERM')).toBe('SIGTERM');
  }, 120_000);

  it('never connected, a coordinator stops on SIGTERM without waiting for NATS', async () => {
    const natsPort = await freePort();
    const httpPort = await freePort();
    const coordinator = startPicket('start', coordinatorEnv(natsPort, httpPort));
    processes.push(coordinator);
    await waitFor('the coordinator to listen', async () =>
      (await get(`http://127.0.0.1:${httpPort}/healthz`))?.status === 200 ? true : undefined,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${coordinator.output()}`);
    });
    expect(await coordinator.kill('SIGTERM')).toBe('SIGTERM');
    expect(coordinator.output()).not.toContain(`connected to NATS 127.0.0.1:${natsPort}`);
  }, 120_000);

  it.each([
    ['agent', (natsPort: number, httpPort: number) => startPicket('agent', agentEnv(natsPort, httpPort, LIMIT))],
    [
      'coordinator',
      (natsPort: number, httpPort: number) => startPicket('start', coordinatorEnv(natsPort, httpPort, LIMIT)),
    ],
  ])(
    'NATS_CONNECT_TIMEOUT_SECONDS=2 on a closed port: the %s exits 1 with a message naming the URL and the variable',
    async (_, start) => {
      const natsPort = await freePort();
      const running = start(natsPort, await freePort());
      processes.push(running);
      expect(await running.exited).toBe(1);
      expect(running.output()).toContain(
        `gave up connecting to NATS nats://127.0.0.1:${natsPort} after 2 s ` +
          `(last error: connection refused (ECONNREFUSED)); check NATS_URL and that the server is reachable from ` +
          `here, or raise NATS_CONNECT_TIMEOUT_SECONDS (0 keeps trying for ever)`,
      );
    },
    120_000,
  );
});
