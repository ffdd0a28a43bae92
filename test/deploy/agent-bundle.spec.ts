import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { subjectsFor, toWireRequest, type ProbeRequest, type ProbeResult } from '#contracts';
import { connectNats, PICKET_VERSION, type NatsConnection } from '#runtime';
import { freePort } from '../support/faults.js';
import { describeWithNats, testNatsUrl } from '../support/nats.js';
import { probeRequest } from '../support/probe-request.js';
import { REPO_ROOT } from '../support/processes.js';
import { testPki } from '../support/tls.js';
import { waitFor } from '../support/wait.js';

/**
 * The single-file agent: `npm run build:agent` output copied alone into an empty folder (no
 * node_modules anywhere above it) starts, reports ICMP available through its bundled addon,
 * and answers probe requests over NATS, trusting the private CA that NODE_EXTRA_CA_CERTS names.
 */
describeWithNats('the single-file agent (npm run build:agent)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'picket-agent-vm-'));
  const prefix = `bundle_${randomBytes(4).toString('hex')}`;
  let agent: ChildProcess;
  let output = '';
  let port = 0;
  let nc: NatsConnection;
  let target: Server;
  let httpsTarget: Server;

  beforeAll(async () => {
    const built = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'picket.mjs'), 'build-agent', dir], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    expect({ status: built.status, stderr: built.stderr }).toMatchObject({ status: 0 });
    const pki = await testPki();
    const caFile = join(dir, 'private-ca.pem');
    writeFileSync(caFile, pki.ca);
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
        NODE_EXTRA_CA_CERTS: caFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    agent.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    nc = await connectNats(testNatsUrl()!, 'bundle-test', { log: () => undefined, warn: () => undefined });
    target = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    httpsTarget = createHttpsServer(pki.server, (_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => httpsTarget.listen(0, '127.0.0.1', resolve));
  }, 120_000);

  afterAll(async () => {
    agent?.kill('SIGKILL');
    await nc?.drain();
    target?.close();
    httpsTarget?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is one script and the native addon, and runs with nothing else', async () => {
    expect(readdirSync(dir).sort()).toEqual([
      'picket-agent.mjs',
      'private-ca.pem',
      expect.stringMatching(/^raw-[A-Z0-9]+\.node$/),
    ]);
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

  /** Sends one probe request to the agent over NATS and returns its reply. */
  async function probe(
    type: ProbeRequest['type'],
    url: string,
  ): Promise<{ request: ProbeRequest; result: ProbeResult }> {
    await waitFor('the agent to take work', async () =>
      (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.json() as Promise<{ nats: boolean }>)).nats
        ? true
        : undefined,
    );
    const request = probeRequest(type, { url });
    const reply = await nc.request(subjectsFor(prefix).probe('eu-west-1'), JSON.stringify(toWireRequest(request)), {
      timeout: 10_000,
    });
    return { request, result: JSON.parse(reply.string()) as ProbeResult };
  }

  it('answers a probe request over NATS', async () => {
    const { request, result } = await probe('tcp', `tcp://127.0.0.1:${(target.address() as AddressInfo).port}`);
    expect(result).toMatchObject({ check_id: request.check_id, status: 'up', agent_id: 'bundled' });
  });

  it("verifies HTTPS targets against Node's roots plus the CAs of NODE_EXTRA_CA_CERTS", async () => {
    const { request, result } = await probe(
      'https',
      `https://127.0.0.1:${(httpsTarget.address() as AddressInfo).port}/`,
    );
    expect(result).toMatchObject({ check_id: request.check_id, status: 'up', http_status: 200 });
  });
});
