import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  checkIdOf,
  fromWireRequest,
  PROBE_QUEUE_GROUP,
  subjectsFor,
  unknownResult,
  type ProbeRequest,
  type ProbeResult,
  type WireProbeRequestDto,
} from '#contracts';
import { NatsLink, systemClock, type NatsSecurity } from '#runtime';
import { createAgentApp } from '../../apps/agent/src/app.js';
import { loadAgentConfig } from '../../apps/agent/src/config.js';
import { BatchingNatsTransport } from '../../apps/coordinator/src/probing/nats-batch.transport.js';
import { NatsTransport } from '../../apps/coordinator/src/probing/nats.transport.js';
import { systemTimers } from '../../apps/coordinator/src/scheduling/timers.js';
import { natsServerBinary } from '../support/faults.js';
import { describeWithNats, testNatsUrl } from '../support/nats.js';
import { ConfiguredNats, deployedAuthConf, startJwtNats } from '../support/nats-secure.js';
import { waitFor } from '../support/wait.js';

/**
 * Batched probe traffic (docs/decisions/0034-batched-probe-traffic.md) between the coordinator's
 * BatchingNatsTransport and two real agents of one region, over the test NATS server.
 */
describeWithNats('batched probe traffic with two agents of a region', () => {
  const prefix = `batch_${randomBytes(4).toString('hex')}`;
  const monitorId = '6b0263b0aed78dd82a402afe';
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const agents = new Map<string, NestFastifyApplication>();
  let link: NatsLink;
  let transport: BatchingNatsTransport;
  let target: Server;
  let heldTarget: Server;
  const held: (() => void)[] = [];
  const batches: number[] = [];
  let fallbacks = 0;
  let n = 0;

  const newLink = () =>
    new NatsLink(testNatsUrl()!, 'batch-coordinator', quiet, { connectTimeoutSeconds: 0, onGiveUp: () => undefined });
  const newTransport = (nats: NatsLink) =>
    new BatchingNatsTransport(nats, prefix, systemClock, systemTimers, new NatsTransport(nats, prefix, systemClock), {
      windowMs: 20,
      onBatch: (checks) => batches.push(checks),
      onFallback: () => fallbacks++,
    });
  const request = (server: Server): ProbeRequest => {
    const scheduledAt = Date.now() * 100 + ++n; // unique per check
    return {
      check_id: checkIdOf(monitorId, scheduledAt, 'eu-west-1'),
      monitor_id: monitorId,
      region: 'eu-west-1',
      scheduled_at: scheduledAt,
      type: 'https',
      settings: {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        check_certificate_expiration: false,
      },
      timeout_ms: 10_000,
    };
  };

  beforeAll(async () => {
    target = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
    heldTarget = createServer((_req, res) => {
      held.push(() => res.end('held'));
    }).listen(0, '127.0.0.1');
    for (const id of ['agent-a', 'agent-b']) {
      const app = await createAgentApp(
        loadAgentConfig({
          NATS_URL: testNatsUrl()!,
          NATS_SUBJECT_PREFIX: prefix,
          AGENT_ID: id,
          AGENT_REGIONS: 'eu-west-1',
          AGENT_DRAIN_SECONDS: '10',
        }),
        { logger: false },
      );
      agents.set(id, app);
    }
    link = newLink();
    link.start();
    await link.whenConnected();
    transport = newTransport(link);
    // Both agents subscribed: a first batch is answered.
    await waitFor('an agent to answer a batch', async () =>
      (await transport.request(request(target))).status === 'up' ? true : undefined,
    );
  });

  afterAll(async () => {
    for (const app of agents.values()) await app.close();
    await link?.drain();
    target?.close();
    heldTarget?.close();
  });

  it('spreads batches over the agents of the queue group, every check answered by one of them', async () => {
    const seen = new Set<string>();
    const before = batches.length;
    const results: ProbeResult[] = [];
    // 20 rounds of 5 checks, each round a batch: the queue group gives each to one agent.
    for (let round = 0; round < 20; round++) {
      results.push(...(await Promise.all([0, 1, 2, 3, 4].map(() => transport.request(request(target))))));
    }
    for (const result of results) seen.add(result.agent_id);
    expect(results.map((r) => r.status)).toEqual(Array(100).fill('up'));
    expect([...seen].sort()).toEqual(['agent-a', 'agent-b']);
    // Coalesced: fewer messages than checks, none fell back to single checks.
    expect(batches.length - before).toBeLessThan(100);
    expect(batches.slice(before).reduce((a, b) => a + b, 0)).toBe(100);
    expect(fallbacks).toBe(0);
  });

  it('an agent answers each check of a batch as it finishes, and a draining agent still answers its running checks', async () => {
    await agents.get('agent-b')!.close();
    agents.delete('agent-b');
    const settled: string[] = [];
    const slow = request(heldTarget);
    const fast = request(target);
    const slowResult = transport.request(slow).then((r) => (settled.push('slow'), r));
    const fastResult = transport.request(fast).then((r) => (settled.push('fast'), r));
    // The fast check's result comes back while the slow one is still held by its target.
    expect(await fastResult).toMatchObject({ status: 'up', agent_id: 'agent-a' });
    await waitFor('the slow check to reach its target', async () => (held.length > 0 ? true : undefined));
    expect(settled).toEqual(['fast']);
    // The agent stops while the slow check runs: it drains, and the check's result still comes.
    const closing = agents.get('agent-a')!.close();
    agents.delete('agent-a');
    for (const release of held.splice(0)) release();
    await closing;
    expect(await slowResult).toMatchObject({ status: 'up', agent_id: 'agent-a', http_status: 200 });
    // No agent left at all: every check of the next batch is UNKNOWN at once.
    const none = await Promise.all([transport.request(request(target)), transport.request(request(target))]);
    expect(none.map((r) => `${r.status} ${r.error}`)).toEqual([
      'unknown no agent serves region eu-west-1',
      'unknown no agent serves region eu-west-1',
    ]);
  });

  it("a coordinator's link drained with checks in flight: each of them UNKNOWN, none left hanging", async () => {
    const app = await createAgentApp(
      loadAgentConfig({
        NATS_URL: testNatsUrl()!,
        NATS_SUBJECT_PREFIX: prefix,
        AGENT_ID: 'agent-c',
        AGENT_REGIONS: 'eu-west-1',
        AGENT_DRAIN_SECONDS: '1',
      }),
      { logger: false },
    );
    agents.set('agent-c', app);
    const own = newLink();
    own.start();
    await own.whenConnected();
    const stopping = newTransport(own);
    await waitFor('agent-c to answer', async () =>
      (await stopping.request(request(target))).agent_id === 'agent-c' ? true : undefined,
    );
    const inFlight = [stopping.request(request(heldTarget)), stopping.request(request(heldTarget))];
    await waitFor('both checks to reach their target', async () => (held.length >= 2 ? true : undefined));
    await own.drain();
    const results = await Promise.all(inFlight);
    expect(results.map((r) => `${r.status} ${r.agent_id} ${r.error}`)).toEqual([
      'unknown coordinator the message bus (NATS) is unavailable',
      'unknown coordinator the message bus (NATS) is unavailable',
    ]);
    for (const release of held.splice(0)) release();
  });
});

/**
 * The shipped permissions (deploy/nats/picket-auth.conf, and the agents' JWTs of `nats init`)
 * let an agent take a batch and answer it several times: without them, the coordinator would
 * fall back to single checks, which the tests above would not notice.
 */
const binary = natsServerBinary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('this suite needs nats-server on this machine (Debian package nats-server)');
}
(binary ? describe : describe.skip)('batches under the shipped NATS permissions', () => {
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const monitorId = '6b0263b0aed78dd82a402afe';

  /** An agent (as `agent`) that answers every batch in one reply per check; the coordinator (as `coordinator`) sends one. */
  async function batchAnsweredPerCheck(url: string, coordinator: NatsSecurity, agent: NatsSecurity) {
    const links = [coordinator, agent].map(
      (security, i) =>
        new NatsLink(url, `batch-permissions-${i}`, quiet, {
          connectTimeoutSeconds: 0,
          onGiveUp: () => undefined,
          security,
        }),
    );
    const [coordinatorLink, agentLink] = links as [NatsLink, NatsLink];
    try {
      for (const link of links) link.start();
      const agentNc = await agentLink.whenConnected();
      await coordinatorLink.whenConnected();
      const errors: string[] = [];
      agentNc.subscribe(subjectsFor('picket').probeBatch('eu-west-1'), {
        queue: PROBE_QUEUE_GROUP,
        callback: (error, msg) => {
          if (error) return void errors.push(error.message);
          for (const wire of msg.json<{ checks: WireProbeRequestDto[] }>().checks) {
            const asked = fromWireRequest(wire)!;
            msg.respond(JSON.stringify({ results: [unknownResult(asked, 'answered', 'agent-p', asked.scheduled_at)] }));
          }
        },
      });
      await agentNc.flush();
      let fallbacks = 0;
      const transport = new BatchingNatsTransport(
        coordinatorLink,
        'picket',
        systemClock,
        systemTimers,
        new NatsTransport(coordinatorLink, 'picket', systemClock),
        { windowMs: 20, onFallback: () => fallbacks++ },
      );
      const base = Date.now();
      const requests = [1, 2, 3].map((i) => ({
        check_id: checkIdOf(monitorId, base + i, 'eu-west-1'),
        monitor_id: monitorId,
        region: 'eu-west-1' as const,
        scheduled_at: base + i,
        type: 'tcp' as const,
        settings: { url: 'tcp://127.0.0.1:9' },
        timeout_ms: 1000,
      }));
      const results = await Promise.all(requests.map((r) => transport.request(r)));
      return { answers: results.map((r) => `${r.agent_id} ${r.error}`), fallbacks, errors };
    } finally {
      for (const link of links) await link.close();
    }
  }

  it('deploy/nats/picket-auth.conf: the agent user takes batches and answers each check of one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picket-batch-auth-'));
    const server = new ConfiguredNats(binary!);
    try {
      writeFileSync(join(dir, 'picket-auth.conf'), deployedAuthConf());
      writeFileSync(join(dir, 'nats.conf'), 'include picket-auth.conf\n');
      const port = await server.pickPort();
      await server.start(join(dir, 'nats.conf'), {
        PICKET_NATS_COORDINATOR_PASSWORD: 'c-secret',
        PICKET_NATS_AGENT_PASSWORD: 'a-secret',
      });
      const outcome = await batchAnsweredPerCheck(
        `nats://127.0.0.1:${port}`,
        { user: 'coordinator', pass: 'c-secret' },
        { user: 'agent', pass: 'a-secret' },
      );
      expect(outcome).toEqual({ answers: Array(3).fill('agent-p answered'), fallbacks: 0, errors: [] });
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("NATS JWT auth (`nats init`): the public agents' credentials take batches and answer each check of one", async () => {
    const nats = await startJwtNats();
    try {
      const outcome = await batchAnsweredPerCheck(
        nats.url,
        { credsFile: nats.files.coordinatorCreds },
        { credsFile: nats.files.publicAgentCreds },
      );
      expect(outcome).toEqual({ answers: Array(3).fill('agent-p answered'), fallbacks: 0, errors: [] });
    } finally {
      await nats.stop();
    }
  });
});
