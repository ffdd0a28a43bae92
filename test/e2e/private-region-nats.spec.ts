import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PROBE_QUEUE_GROUP, subjectsFor } from '#contracts';
import { connectNats, NatsLink, systemClock, type NatsConnection } from '#runtime';
import { createAgentApp } from '../../apps/agent/src/app.js';
import { loadAgentConfig } from '../../apps/agent/src/config.js';
import { NatsTransport } from '../../apps/coordinator/src/probing/nats.transport.js';
import { ConfiguredNats, expectConfinedToRegion } from '../support/nats-secure.js';
import { probeRequest } from '../support/probe-request.js';
import { waitFor } from '../support/wait.js';

/**
 * The private region subjects let NATS itself confine an agent to one account's region
 * (docs/decisions/0030-private-regions.md): a nats-server of this test's own with a user for
 * account A's `office` whose permissions are the ones docs/operations.md ("Private regions")
 * gives. The agent app serves the region through that user; the server refuses the same user
 * public work, account B's region, heartbeats elsewhere, and replies it was not asked for.
 */
const binary = ConfiguredNats.binary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the private region NATS tests need nats-server on this machine (Debian package nats-server)');
}

const subjects = subjectsFor('picket');
const ACCOUNT_A = '65a1b2c3d4e5f60718293a4b';
const ACCOUNT_B = '65a1b2c3d4e5f60718293a4c';
const PASSWORD = randomBytes(12).toString('hex');

/** The server's users: a coordinator, and the agent user of account A's `office` as documented. */
function authorization(): string {
  const own = {
    probe: subjects.privateProbe(ACCOUNT_A, 'office'),
    beat: subjects.privateHeartbeat(ACCOUNT_A, 'office'),
  };
  return `authorization {
  users: [
    {
      user: coordinator
      password: "${PASSWORD}"
      permissions: {
        publish: { allow: ["picket.probe.>", "${subjects.privateProbe('*', '*')}"] }
        subscribe: { allow: ["${subjects.heartbeat}", "${subjects.privateHeartbeats}", "_INBOX.>"] }
      }
    }
    {
      user: office-a
      password: "${PASSWORD}"
      permissions: {
        publish: { allow: ["${own.beat}"] }
        subscribe: { allow: ["${own.probe} ${PROBE_QUEUE_GROUP}"] }
        allow_responses: true
      }
    }
  ]
}
`;
}

(binary ? describe : describe.skip)('a private region confined by NATS permissions', () => {
  let dir: string;
  const server = new ConfiguredNats(binary ?? '');
  let url: string;
  let agent: NestFastifyApplication | undefined;
  let coordinator: NatsLink;
  const connections: NatsConnection[] = [];
  let target: Server;

  async function connection(user: string): Promise<NatsConnection> {
    const quiet = { log: () => undefined, warn: () => undefined };
    const nc = await connectNats(url, 'private-region-test', quiet, { user, pass: PASSWORD });
    connections.push(nc);
    return nc;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'picket-private-region-'));
    const config = join(dir, 'nats.conf');
    writeFileSync(config, authorization());
    const port = await server.pickPort();
    await server.start(config, {});
    url = `nats://127.0.0.1:${port}`;
    target = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    coordinator = new NatsLink(
      url,
      'private-region-test',
      { log: () => undefined, warn: () => undefined, error: () => undefined },
      {
        connectTimeoutSeconds: 0,
        onGiveUp: () => undefined,
        security: { user: 'coordinator', pass: PASSWORD },
      },
    );
    coordinator.start();
  });

  afterAll(async () => {
    await agent?.close();
    await coordinator?.close();
    await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
    await server.stop();
    target?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the region's agent, with its confined user, runs the account's checks and its heartbeats arrive", async () => {
    agent = await createAgentApp(
      loadAgentConfig({
        NATS_URL: url,
        NATS_USER: 'office-a',
        NATS_PASSWORD: PASSWORD,
        AGENT_ID: 'office-a-1',
        AGENT_PRIVATE_REGION: `${ACCOUNT_A}/office`,
        AGENT_HEARTBEAT_SECONDS: '1',
      }),
      { logger: false },
    );
    const nc = await coordinator.whenConnected();
    const heartbeat = new Promise<{ subject: string; body: Record<string, unknown> }>((resolve) => {
      nc.subscribe(subjects.privateHeartbeats, {
        max: 1,
        callback: (_e, msg) => resolve({ subject: msg.subject, body: msg.json() }),
      });
    });
    const transport = new NatsTransport(coordinator, 'picket', systemClock);
    const port = (target.address() as AddressInfo).port;
    const request = probeRequest('https', { url: `http://127.0.0.1:${port}/`, check_certificate_expiration: false });
    const result = await waitFor('the private agent to answer', async () => {
      const answer = await transport.request({ ...request, region: 'office', account_id: ACCOUNT_A });
      return answer.status === 'unknown' ? undefined : answer;
    });
    expect(result).toMatchObject({ status: 'up', region: 'office', agent_id: 'office-a-1' });
    await expect(heartbeat).resolves.toMatchObject({
      subject: subjects.privateHeartbeat(ACCOUNT_A, 'office'),
      body: { agent_id: 'office-a-1', regions: ['office'] },
    });
    // The same region id of account B has no agent here: UNKNOWN, never answered by A's agent.
    const other = await transport.request({ ...request, region: 'office', account_id: ACCOUNT_B });
    expect(other).toMatchObject({ status: 'unknown', error: 'no agent serves region office' });
  });

  it('the server refuses that user public work, another account’s region, other heartbeats and unasked replies', async () => {
    const nc = await connection('office-a');
    await expectConfinedToRegion(nc, 'picket', ACCOUNT_A, ACCOUNT_B, 'office');
  });
});
