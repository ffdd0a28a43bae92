import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../support/api-client.js';
import { CapturingLogger, startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { natsServerBinary, PrivateNats } from '../support/faults.js';
import { describeWithNats } from '../support/nats.js';
import { startTestAgent, type RunningProcess } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';
import { createMonitor, createWebhookContact } from '../support/monitor-fixtures.js';

/**
 * Truth when Picket cannot see (docs/decisions/0001-truth-when-blind.md), in NATS mode with a
 * private NATS server the test stops and starts, and real agent processes. A monitor whose
 * region no agent serves turns `unknown` within 3 intervals (never `up`, never `down`), tells
 * nobody, shows "No data" on its public page, and the operator sees it in the log and the
 * metrics; when an agent appears it is `up` without a notification. Cutting NATS makes every
 * monitor `unknown`, not `up`, again without a notification.
 */
const binary = natsServerBinary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the blind-monitor test needs nats-server on this machine (Debian package nats-server)');
}
const suite = binary ? describeWithNats : describe.skip;
const INTERVAL = 10;

suite('monitors Picket cannot see', () => {
  const prefix = `blind_${randomBytes(4).toString('hex')}`;
  const nats = new PrivateNats(binary ?? '');
  const logger = new CapturingLogger();
  const target = new SwitchableTarget();
  const hooks = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));
  const agents: RunningProcess[] = [];
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let seen: string; // a monitor in a region with an agent
  let blind: string; // a monitor in a region without one
  let pageId: string;

  const statusOf = async (id: string) =>
    (await api.get(`/api/monitors/${id}`)).body.data as {
      last_status: string;
      last_checked_at: number | null;
    };
  const metrics = async () => (await fetch(`${c.baseUrl}/metrics`)).text();
  const startAgent = (id: string, region: string) => agents.push(startTestAgent({ url: nats.url, prefix }, id, region));
  /** Waits for `status`, failing at once on any status outside `allowed` on the way. */
  async function expectStatus(id: string, status: string, allowed: string[], timeoutMs: number): Promise<void> {
    await waitFor(
      `monitor ${id} ${status}`,
      async () => {
        const now = (await statusOf(id)).last_status;
        expect([...allowed, status]).toContain(now);
        return now === status ? true : undefined;
      },
      timeoutMs,
    );
  }

  beforeAll(async () => {
    await nats.start();
    await target.start();
    await hooks.start({ https: false });
    startAgent('blind-eu', 'eu-west-1');
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, {
      logger,
      env: { CHECKS_ENABLED: 'true', NATS_URL: nats.url, NATS_SUBJECT_PREFIX: prefix, LOG_LEVEL: 'debug' },
    });
    api = (await c.newAccount('blind')).client;
    const contact = await createWebhookContact(api, `${hooks.baseUrl}/hook`);
    const monitor = async (name: string, region: string) =>
      (
        await createMonitor(api, {
          name,
          settings: { https: { url: target.url } },
          regions: [region],
          check_interval: INTERVAL,
          timeout: 5,
          fail_threshold: 2,
          contacts: [contact],
        })
      ).id as string;
    seen = await monitor('seen', 'eu-west-1');
    blind = await monitor('blind', 'sa-east-1');
    const page = await api.post('/api/status_pages', { name: 'Status', monitors: [seen, blind] });
    expect(page.status).toBe(201);
    pageId = page.body.data.id as string;
  }, 180_000);

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.kill('SIGKILL')));
    await c?.close();
    await nats.stop();
    await target.stop();
    await hooks.stop();
    await db?.drop();
  }, 60_000);

  it(
    'a region without agents: unknown within 3 intervals, no notification, "No data", up again silently',
    async () => {
      await expectStatus(seen, 'up', ['pending'], 120_000); // the agent process may still be starting
      await expectStatus(blind, 'unknown', ['pending'], (3 * INTERVAL + 15) * 1000);
      expect((await statusOf(blind)).last_checked_at).toBeNull();

      const text = await metrics();
      expect(text).toMatch(/^picket_region_agents\{region="sa-east-1"\} 0$/m);
      expect(text).toMatch(/^picket_region_agents\{region="eu-west-1"\} 1$/m);
      expect(text).toMatch(/^picket_region_monitors\{region="sa-east-1"\} 1$/m);
      expect(text).toMatch(/^picket_region_monitors\{region="us-west-1"\} 0$/m);
      expect(text).toMatch(/^picket_monitors_stale 1$/m);
      expect(text).toMatch(/^picket_monitors\{status="unknown"\} 1$/m);
      const warnings = logger.lines.filter((l) => /region sa-east-1 has no live agent but 1 monitors need it/.test(l));
      expect(warnings).toHaveLength(1); // once per region and change, not per check

      const json = await fetch(`${c.baseUrl}/status/${pageId}.json`);
      const page = (await json.json()) as { data: { monitors: { name: string; status: string }[] } };
      expect(page.data.monitors.find((m) => m.name === 'blind')?.status).toBe('unknown');
      const html = await (await fetch(`${c.baseUrl}/status/${pageId}`)).text();
      expect(html).toMatch(/No data/);
      expect(html).toMatch(/data-status="unknown"/);

      startAgent('blind-sa', 'sa-east-1');
      await expectStatus(blind, 'up', ['unknown'], 120_000);
      expect((await statusOf(blind)).last_checked_at).not.toBeNull();
      await waitFor('the region to be reported served again', () =>
        Promise.resolve(
          logger.lines.some((l) => /region sa-east-1 has 1 live agents again/.test(l)) ? true : undefined,
        ),
      );
      expect(hooks.requests).toEqual([]);
    },
    5 * 60_000,
  );

  it(
    'NATS cut mid-run: every monitor unknown, never up or down, nobody told; back to up when it returns',
    async () => {
      await nats.stop();
      for (const id of [seen, blind]) await expectStatus(id, 'unknown', ['up'], (3 * INTERVAL + 20) * 1000);
      const ready = await fetch(`${c.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { failing: string[] }).failing).toContain('nats');
      expect(await metrics()).toMatch(/^picket_nats_connected 0$/m);
      await nats.start();
      for (const id of [seen, blind]) await expectStatus(id, 'up', ['unknown'], 120_000);
      await waitFor('/readyz to be ready again', async () =>
        (await fetch(`${c.baseUrl}/readyz`)).status === 200 ? true : undefined,
      );
      expect(await metrics()).toMatch(/^picket_nats_connected 1$/m);
      expect(hooks.requests).toEqual([]);
    },
    5 * 60_000,
  );
});
