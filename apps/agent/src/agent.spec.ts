import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUser, fmtCreds } from '@nats-io/jwt';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  checkIdOf,
  subjectsFor,
  toWireRequest,
  type AgentHeartbeat,
  type ProbeRequest,
  type ProbeResult,
} from '#contracts';
import { ConfigError, connectNats, type NatsConnection } from '#runtime';
import { describeWithNats, testNatsUrl } from '../../../test/support/nats.js';
import { waitFor } from '../../../test/support/wait.js';
import { createAgentApp } from './app.js';
import { loadAgentConfig, needsEnrollment } from './config.js';
import { probeRoutes } from './probe-routes.js';
import { agentReadiness } from './readiness.js';

describe('agent configuration', () => {
  it('needs NATS_URL and names every bad variable', () => {
    let error: unknown;
    try {
      loadAgentConfig({ AGENT_REGIONS: 'mars-1', AGENT_HTTP_PORT: '99999', AGENT_PUBLIC_IPS: '1.2.3.4,not-an-ip' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const named = (error as ConfigError).problems.map((p) => p.split(' ')[0]).sort();
    expect(named).toEqual(['AGENT_HTTP_PORT', 'AGENT_PUBLIC_IPS', 'AGENT_REGIONS', 'NATS_URL']);
  });

  it('takes tls:// and its NATS settings, and refuses half of a pair naming the variables, never the password', () => {
    expect(
      loadAgentConfig({ NATS_URL: 'tls://nats.example:4222', NATS_USER: 'agent', NATS_PASSWORD: 'p' }),
    ).toMatchObject({
      NATS_URL: 'tls://nats.example:4222',
      NATS_USER: 'agent',
    });
    expect(() => loadAgentConfig({ NATS_URL: 'tls://nats.example:4222', NATS_USER: 'agent' })).toThrow(
      'NATS_USER and NATS_PASSWORD: set both or neither',
    );
    let message = '';
    try {
      loadAgentConfig({ NATS_URL: 'tls://agent:hunter2@h:4222', NATS_PASSWORD: 'pa55word', NATS_KEY_FILE: '/k' });
    } catch (error) {
      message = String(error);
    }
    expect(message).toContain('choose one way to authenticate to NATS');
    expect(message).toContain('NATS_CERT_FILE and NATS_KEY_FILE: set both or neither');
    expect(message).not.toMatch(/hunter2|pa55word/);
  });

  it('reads regions, public addresses and limits', () => {
    const config = loadAgentConfig({
      NATS_URL: 'nats://127.0.0.1:4222',
      AGENT_REGIONS: 'eu-west-1, us-east-1',
      AGENT_PUBLIC_IPS: '203.0.113.7,2001:db8::7',
      AGENT_MAX_IN_FLIGHT: '50',
    });
    expect(config).toMatchObject({
      AGENT_REGIONS: ['eu-west-1', 'us-east-1'],
      AGENT_PUBLIC_IPS: ['203.0.113.7', '2001:db8::7'],
      AGENT_MAX_IN_FLIGHT: 50,
      NATS_SUBJECT_PREFIX: 'picket',
    });
  });
});

describe('a private region agent (AGENT_PRIVATE_REGION)', () => {
  const nats = { NATS_URL: 'nats://127.0.0.1:4222' };

  it('serves that region alone, on subjects naming the account', () => {
    const config = loadAgentConfig({ ...nats, AGENT_PRIVATE_REGION: '65a1b2c3d4e5f60718293a4b/office' });
    expect(config.privateRegion).toEqual({ accountId: '65a1b2c3d4e5f60718293a4b', region: 'office' });
    expect(config.servedRegions).toEqual(['office']);
    expect(config.AGENT_REGIONS).toEqual([]);
    expect(probeRoutes(config)).toEqual([
      { subject: 'picket.private.65a1b2c3d4e5f60718293a4b.office.probe', pattern: 'probe', queue: 'picket-agents' },
      {
        subject: 'picket.private.65a1b2c3d4e5f60718293a4b.office.probe.batch',
        pattern: 'probe-batch',
        queue: 'picket-agents',
      },
    ]);
    // Without it: the public regions, as before.
    expect(loadAgentConfig({ ...nats, AGENT_REGIONS: 'eu-west-1' }).servedRegions).toEqual(['eu-west-1']);
  });

  it.each([
    ['office', 'AGENT_PRIVATE_REGION'],
    ['65a1b2c3d4e5f60718293a4b/eu-west-1', 'AGENT_PRIVATE_REGION'],
    ['65a1b2c3d4e5f60718293a4b/Office', 'AGENT_PRIVATE_REGION'],
    ['65A1B2C3D4E5F60718293A4B/office', 'AGENT_PRIVATE_REGION'],
  ])('refuses %s naming %s', (value, variable) => {
    expect(() => loadAgentConfig({ ...nats, AGENT_PRIVATE_REGION: value })).toThrow(variable);
  });

  it('refuses AGENT_REGIONS beside it', () => {
    expect(() =>
      loadAgentConfig({ ...nats, AGENT_PRIVATE_REGION: '65a1b2c3d4e5f60718293a4b/office', AGENT_REGIONS: 'eu-west-1' }),
    ).toThrow('AGENT_REGIONS: must not be set with AGENT_PRIVATE_REGION');
  });
});

describe('an enrolling agent (AGENT_ENROLL_TOKEN)', () => {
  const region = { NATS_URL: 'nats://127.0.0.1:4222', AGENT_PRIVATE_REGION: '65a1b2c3d4e5f60718293a4b/office' };
  /** The shape of a token (a JWT whose `sub` is a user key); its signature is NATS's business. */
  const token = [
    Buffer.from('{"typ":"JWT","alg":"ed25519-nkey"}').toString('base64url'),
    Buffer.from(JSON.stringify({ sub: `U${'A'.repeat(55)}` })).toString('base64url'),
    'c2ln',
  ].join('.');
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'picket-enroll-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('enrolls when the creds file is not there yet, and not once it is', () => {
    const creds = join(dir, 'nats.creds');
    const config = loadAgentConfig({ ...region, AGENT_ENROLL_TOKEN: token, NATS_CREDS_FILE: creds });
    expect(needsEnrollment(config)).toBe(true);
    expect(config.NATS_CREDS_FILE).toBe(creds);
    writeFileSync(creds, fmtCreds(token, createUser()));
    expect(needsEnrollment(loadAgentConfig({ ...region, AGENT_ENROLL_TOKEN: token, NATS_CREDS_FILE: creds }))).toBe(
      false,
    );
  });

  it.each([
    [{ NATS_CREDS_FILE: 'x' }, 'AGENT_ENROLL_TOKEN: needs AGENT_PRIVATE_REGION', false],
    [{}, 'AGENT_ENROLL_TOKEN: needs NATS_CREDS_FILE', true],
    [
      { NATS_CREDS_FILE: '/nonexistent-dir/nats.creds' },
      'its directory /nonexistent-dir is missing or not writable',
      true,
    ],
    [
      { NATS_CREDS_FILE: 'CREDS', AGENT_ENROLL_TOKEN: 'pkt_not-a-jwt' },
      'AGENT_ENROLL_TOKEN: not an enrollment token',
      true,
    ],
    [{ NATS_CREDS_FILE: 'CREDS', NATS_TOKEN: 'secret' }, 'choose one way to authenticate', true],
  ])('refuses %j: %s', (env, problem, withRegion) => {
    const vars: Record<string, string> = { AGENT_ENROLL_TOKEN: token, ...env };
    if (vars.NATS_CREDS_FILE === 'CREDS') vars.NATS_CREDS_FILE = join(dir, 'other.creds');
    const base = withRegion ? region : { NATS_URL: region.NATS_URL };
    expect(() => loadAgentConfig({ ...base, ...vars })).toThrow(problem);
    try {
      loadAgentConfig({ ...base, ...vars });
    } catch (error) {
      // The token is a secret: never in a message.
      expect((error as Error).message).not.toContain(token);
    }
  });
});

describe('agent readiness (GET /readyz)', () => {
  const refused = 'connecting: connection refused (ECONNREFUSED)';
  it.each([
    ['connected, running', null, false, 200, [], { nats: 'ok', shutdown: 'ok' }],
    ['never connected yet', refused, false, 503, ['nats'], { nats: refused, shutdown: 'ok' }],
    ['first attempt under way', 'connecting', false, 503, ['nats'], { nats: 'connecting', shutdown: 'ok' }],
    ['shutting down, still connected', null, true, 503, ['shutdown'], { nats: 'ok', shutdown: 'shutting down' }],
    [
      'shutting down, link closed',
      'closed',
      true,
      503,
      ['nats', 'shutdown'],
      { nats: 'closed', shutdown: 'shutting down' },
    ],
  ] as const)('%s', (_, natsProblem, shuttingDown, httpStatus, failing, checks) => {
    expect(agentReadiness(natsProblem, shuttingDown)).toEqual({
      httpStatus,
      body: { status: httpStatus === 200 ? 'ready' : 'unavailable', failing, checks },
    });
  });
});

describeWithNats('agent over NATS', () => {
  const prefix = `test_${randomBytes(4).toString('hex')}`;
  const subjects = subjectsFor(prefix);
  let app: NestFastifyApplication;
  let base: string;
  let nc: NatsConnection;
  let target: Server;
  /** Holds every request until the test calls release(): a check that runs as long as the test wants. */
  let heldTarget: Server;
  const held: (() => void)[] = [];
  const heartbeats: AgentHeartbeat[] = [];
  const quiet = { log: () => undefined, warn: () => undefined };

  function request(port: number, overrides: Partial<ProbeRequest> = {}): ProbeRequest {
    const scheduledAt = Date.now();
    return {
      check_id: checkIdOf('6b0263b0aed78dd82a402afe', scheduledAt, 'eu-west-1'),
      monitor_id: '6b0263b0aed78dd82a402afe',
      region: 'eu-west-1',
      scheduled_at: scheduledAt,
      type: 'https',
      settings: { url: `http://127.0.0.1:${port}/health`, check_certificate_expiration: false },
      timeout_ms: 5000,
      ...overrides,
    };
  }

  async function ask(req: ProbeRequest | Record<string, unknown>, timeout = 10_000): Promise<ProbeResult> {
    const wire = 'settings' in req && 'type' in req ? toWireRequest(req as ProbeRequest) : req;
    const reply = await nc.request(subjects.probe('eu-west-1'), JSON.stringify(wire), { timeout });
    return JSON.parse(reply.string()) as ProbeResult;
  }

  beforeAll(async () => {
    target = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    heldTarget = createServer((_req, res) => {
      held.push(() => res.end('held'));
    }).listen(0, '127.0.0.1');
    nc = await connectNats(testNatsUrl()!, 'agent-test', quiet);
    nc.subscribe(subjects.heartbeat, {
      callback: (_e, msg) => {
        heartbeats.push(JSON.parse(msg.string()));
      },
    });
    app = await createAgentApp(
      loadAgentConfig({
        NATS_URL: testNatsUrl()!,
        NATS_SUBJECT_PREFIX: prefix,
        AGENT_ID: 'agent-under-test',
        AGENT_REGIONS: 'eu-west-1,sa-east-1',
        AGENT_PUBLIC_IPS: '203.0.113.7',
        AGENT_HEARTBEAT_SECONDS: '1',
        AGENT_DRAIN_SECONDS: '10',
      }),
      { logger: false },
    );
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    // The app does not wait for NATS: work can reach it once it says it is ready.
    await waitFor('the agent to be ready', async () => ((await fetch(`${base}/readyz`)).ok ? true : undefined));
  });

  afterAll(async () => {
    await nc?.drain();
    target?.close();
    heldTarget?.close();
  });

  it('answers a probe request of its region with a validated result', async () => {
    const req = request((target.address() as AddressInfo).port);
    const result = await ask(req);
    expect(result).toMatchObject({
      check_id: req.check_id,
      monitor_id: req.monitor_id,
      region: 'eu-west-1',
      status: 'up',
      phase: null,
      http_status: 200,
      agent_id: 'agent-under-test',
    });
    expect(result.timings.total_ms).toBeGreaterThanOrEqual(0);
  });

  it('reports a failing target as DOWN, not as an error', async () => {
    const result = await ask(request(1));
    expect(result).toMatchObject({ status: 'down', phase: 'connect', agent_id: 'agent-under-test' });
  });

  it('drops invalid requests instead of running them (no reply)', async () => {
    await expect(ask({ check_id: 'x', type: 'https' }, 500)).rejects.toThrow();
  });

  it('publishes heartbeats with its regions, addresses and capacity', async () => {
    while (heartbeats.length === 0) await new Promise((r) => setTimeout(r, 50));
    expect(heartbeats[0]).toMatchObject({
      agent_id: 'agent-under-test',
      regions: ['eu-west-1', 'sa-east-1'],
      ipv4: ['203.0.113.7'],
      ipv6: [],
      max_in_flight: 2000,
      icmp: true,
    });
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    const health = (await (await fetch(`${base}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({
      status: 'ok',
      agent_id: 'agent-under-test',
      nats: true,
      nats_state: 'connected',
      icmp: true,
    });
    const ready = await fetch(`${base}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { status: 'ready', failing: [], checks: { nats: 'ok', shutdown: 'ok' } },
    });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(
      /picket_probe_duration_seconds_count\{[^}]*region="eu-west-1"[^}]*result="up"[^}]*\} [1-9]/,
    );
    expect(metrics).toContain('picket_probes_in_flight');
    expect(metrics).toMatch(/^picket_nats_connected\{agent_id="agent-under-test"\} 1$/m);
    expect(metrics).toContain('process_cpu_user_seconds_total');
  });

  it('drains on shutdown: not ready at once, a running check still gets its answer, new work finds no agent', async () => {
    const pending = ask(request((heldTarget.address() as AddressInfo).port));
    await waitFor('the check to reach its target', async () => (held.length > 0 ? true : undefined));
    const closing = app.close();
    // The check is held, so the agent is draining and its HTTP server still answers.
    const ready = await fetch(`${base}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 503,
      body: { status: 'unavailable', failing: ['shutdown'], checks: { nats: 'ok', shutdown: 'shutting down' } },
    });
    for (const release of held) release();
    await closing;
    const result = await pending;
    expect(result).toMatchObject({ status: 'up', http_status: 200 });
    await expect(ask(request((target.address() as AddressInfo).port), 2000)).rejects.toThrow(/503|no responders/i);
  });
});
