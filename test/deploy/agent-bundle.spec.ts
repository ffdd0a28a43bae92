import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { subjectsFor, toWireRequest, type ProbeRequest, type ProbeResult } from '#contracts';
import { connectNats, PICKET_VERSION, type NatsConnection } from '#runtime';
import { freePort } from '../support/faults.js';
import { describeWithNats, testNatsUrl } from '../support/nats.js';
import { REPO_ROOT } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

/**
 * The single-file agent: `npm run build:agent` output copied alone into an empty folder (no
 * node_modules anywhere above it) starts, reports ICMP available through its bundled addon,
 * and answers a probe request over NATS.
 */
describeWithNats('the single-file agent (npm run build:agent)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'picket-agent-vm-'));
  const prefix = `bundle_${randomBytes(4).toString('hex')}`;
  let agent: ChildProcess;
  let output = '';
  let port = 0;
  let nc: NatsConnection;
  let target: Server;

  beforeAll(async () => {
    const built = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'picket.mjs'), 'build-agent', dir], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect({ status: built.status, stderr: built.stderr }).toMatchObject({ status: 0 });
    port = await freePort();
    agent = spawn(process.execPath, ['picket-agent.mjs'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        NATS_URL: testNatsUrl()!,
        NATS_SUBJECT_PREFIX: prefix,
        AGENT_ID: 'bundled',
        AGENT_REGIONS: 'eu-west-1',
        AGENT_HTTP_PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    agent.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    nc = await connectNats(testNatsUrl()!, 'bundle-test', { log: () => undefined, warn: () => undefined });
    target = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  }, 120_000);

  afterAll(async () => {
    agent?.kill('SIGKILL');
    await nc?.drain();
    target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is one script and the native addon, and runs with nothing else', async () => {
    expect(readdirSync(dir).sort()).toEqual(['picket-agent.mjs', expect.stringMatching(/^raw-[A-Z0-9]+\.node$/)]);
    const health = await waitFor(
      'the bundled agent to answer /healthz',
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
        return res?.ok ? ((await res.json()) as Record<string, unknown>) : undefined;
      },
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${output}`);
    });
    // ICMP works (we run as root), so the addon was loaded from beside the bundle.
    expect(health).toMatchObject({ agent_id: 'bundled', version: PICKET_VERSION, regions: ['eu-west-1'], icmp: true });
  });

  it('answers a probe request over NATS', async () => {
    await waitFor('the agent to take work', async () =>
      (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.json() as Promise<{ nats: boolean }>)).nats
        ? true
        : undefined,
    );
    const monitorId = randomBytes(12).toString('hex');
    const scheduledAt = Date.now();
    const request: ProbeRequest = {
      check_id: `${monitorId}:${scheduledAt}:eu-west-1`,
      monitor_id: monitorId,
      region: 'eu-west-1',
      scheduled_at: scheduledAt,
      type: 'tcp',
      settings: { url: `tcp://127.0.0.1:${(target.address() as AddressInfo).port}` },
      timeout_ms: 5000,
    };
    const reply = await nc.request(subjectsFor(prefix).probe('eu-west-1'), JSON.stringify(toWireRequest(request)), {
      timeout: 10_000,
    });
    const result = JSON.parse(reply.string()) as ProbeResult;
    expect(result).toMatchObject({ check_id: request.check_id, status: 'up', agent_id: 'bundled' });
  });
});
