import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { freePort } from '../support/faults.js';
import { ApiClient } from '../support/api-client.js';
import { testDatabases, type DatabaseKind, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { startPicket, type RunningProcess } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

// A key from a random source: a made-up one is refused at start (docs/decisions/0018-abuse-limits-and-quotas.md).
const KEY = `pkt_${randomBytes(32).toString('hex')}`;
const DELAY = 20;
const STEP = 60;

/** One database, target, webhook receiver and coordinator process of its own: the tests run concurrently. */
class Harness {
  db!: TestDatabase;
  readonly target = new SwitchableTarget();
  readonly arrivals: { path: string; event: string; dedup: string; at: number }[] = [];
  readonly hooks = new FakeReceiver((req, res) => {
    const body = req.json as { event: string; monitor_id: string; incident_id: string };
    this.arrivals.push({
      path: req.url,
      event: body.event,
      dedup: `${body.monitor_id}-${body.incident_id}`,
      at: Date.now(),
    });
    reply(res, 204);
  });
  coordinator: RunningProcess | undefined;
  api!: ApiClient;

  static async open(kind: DatabaseKind): Promise<Harness> {
    const h = new Harness();
    h.db = await kind.create();
    await h.target.start();
    await h.hooks.start({ https: false });
    return h;
  }

  async start(env: Record<string, string>): Promise<void> {
    const port = await freePort();
    const coordinator = startPicket('start', {
      DATABASE_URL: this.db.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'warn',
      ...env,
    });
    this.coordinator = coordinator;
    this.api = new ApiClient(`http://127.0.0.1:${port}`, KEY);
    await waitFor(
      'the coordinator to serve',
      async () => ((await this.api.get('/api/account')).status === 200 ? true : undefined),
      180_000, // the first start may build dist/
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${coordinator.output()}`);
    });
  }

  /** Waits until the monitor's last_status is `status`. */
  async waitForStatus(id: string, status: string, timeoutMs?: number): Promise<void> {
    await waitFor(
      `monitor ${status}`,
      async () => ((await this.api.get(`/api/monitors/${id}`)).body.data.last_status === status ? true : undefined),
      timeoutMs,
    );
  }

  at(path: string, event: string) {
    return this.arrivals.filter((a) => a.path === path && a.event === event);
  }

  async close(): Promise<void> {
    await this.coordinator?.kill('SIGKILL');
    await this.target.stop();
    await this.hooks.stop();
    await this.db?.drop();
  }
}

/** Runs `test` on a harness of its own, closed whatever happens. */
async function withHarness(kind: DatabaseKind, test: (h: Harness) => Promise<void>): Promise<void> {
  const h = await Harness.open(kind);
  try {
    await test(h);
  } finally {
    await h.close();
  }
}

/**
 * Notification rules through coordinator kills (docs/decisions/0029-notification-rules.md): the
 * planned messages of an outage — the delayed `monitor.down` and an escalation step's — live
 * in the outbox, so a coordinator SIGKILLed before they are due sends each of them once after
 * a restart, at its time, and the recovery reaches everyone told. Most of each test is waiting
 * for the delay and the step on the real clock, so the tests run concurrently, each with its
 * own processes and database.
 */
describe('notification rules through coordinator kills', () => {
  it.concurrent.each(testDatabases())(
    'a delayed down and an escalation step survive two kills, each sent once at its time; the recovery tells both ($name)',
    (kind) =>
      withHarness(kind, async (h) => {
        const { target, arrivals, hooks } = h;
        await h.start({ CHECKS_ENABLED: 'true', DISPATCH_ENABLED: 'true' });
        const contact = async (name: string) =>
          (
            await h.api.post('/api/contacts', {
              name,
              channel: 'webhook',
              details: { url: `${hooks.baseUrl}/${name}` },
            })
          ).body.contact.id as string;
        const main = await contact('main');
        const escalated = await contact('escalated');
        const created = await h.api.post('/api/monitors', {
          name: 'rules',
          settings: { https: { url: target.url } },
          regions: ['us-east-1', 'eu-west-1'],
          check_interval: 10,
          timeout: 5,
          fail_threshold: 2,
          contacts: [main],
          notification_rules: { delay_seconds: DELAY, escalation: [{ after_seconds: STEP, contacts: [escalated] }] },
        });
        expect(created.status).toBe(201);
        const id = created.body.data.id as string;
        await h.waitForStatus(id, 'up');
        target.mode = 'fail';
        await h.waitForStatus(id, 'down', 60_000);
        const [incident] = (await h.api.get('/api/incidents')).body.data.incidents as {
          id: string;
          started_at: number;
        }[];
        const startedAt = incident!.started_at * 1000;
        // Killed inside the delay: nothing was due, nothing was sent.
        expect(await h.coordinator!.kill('SIGKILL')).toBe('SIGKILL');
        expect(arrivals).toEqual([]);

        // Run 2: no checks (the monitor stays down), dispatch on. The delayed down comes at its time.
        await h.start({ CHECKS_ENABLED: 'false', DISPATCH_ENABLED: 'true' });
        await waitFor(
          'the delayed down',
          async () => (h.at('/main', 'monitor.down').length > 0 ? true : undefined),
          60_000,
        );
        expect(h.at('/main', 'monitor.down')[0]!.at).toBeGreaterThanOrEqual(startedAt + DELAY * 1000);
        expect(h.at('/escalated', 'monitor.down')).toEqual([]);
        // Killed again before the step.
        expect(await h.coordinator!.kill('SIGKILL')).toBe('SIGKILL');

        // Run 3: checks on again; the step is due at start + 60 s, whichever coordinator runs then.
        await h.start({ CHECKS_ENABLED: 'true', DISPATCH_ENABLED: 'true' });
        await waitFor(
          'the escalation',
          async () => (h.at('/escalated', 'monitor.down').length > 0 ? true : undefined),
          (STEP + 30) * 1000,
        );
        expect(h.at('/escalated', 'monitor.down')[0]!.at).toBeGreaterThanOrEqual(startedAt + STEP * 1000);
        target.mode = 'ok';
        await h.waitForStatus(id, 'up', 60_000);
        await waitFor('both ups', async () =>
          h.at('/main', 'monitor.up').length > 0 && h.at('/escalated', 'monitor.up').length > 0 ? true : undefined,
        );
        await new Promise((r) => setTimeout(r, 3000)); // several dispatcher polls: nothing more
        // Each contact: its down, then its up, nothing else. (The two ups go out together, in either
        // order; the downs' order and times are checked above.)
        expect(h.at('/main', 'monitor.up')[0]!.at).toBeGreaterThanOrEqual(h.at('/escalated', 'monitor.down')[0]!.at);
        for (const path of ['/main', '/escalated']) {
          expect([path, arrivals.filter((a) => a.path === path).map((a) => a.event)]).toEqual([
            path,
            ['monitor.down', 'monitor.up'],
          ]);
        }
        expect(arrivals).toHaveLength(4);
        // One outage, one dedup key.
        expect(new Set(arrivals.map((a) => a.dedup))).toEqual(new Set([`${id}-${incident!.id}`]));
        expect([0, 'SIGTERM']).toContain(await h.coordinator!.kill('SIGTERM'));
      }),
    420_000,
  );

  it.concurrent.each(testDatabases())(
    'an outage shorter than the delay notifies nobody but is an incident ($name)',
    (kind) =>
      withHarness(kind, async (h) => {
        const { target, arrivals, hooks } = h;
        await h.start({ CHECKS_ENABLED: 'true', DISPATCH_ENABLED: 'true' });
        const hook = (
          await h.api.post('/api/contacts', {
            name: 'short',
            channel: 'webhook',
            details: { url: `${hooks.baseUrl}/short` },
          })
        ).body.contact.id as string;
        const created = await h.api.post('/api/monitors', {
          name: 'short outage',
          settings: { https: { url: target.url } },
          regions: ['us-east-1'],
          check_interval: 10,
          timeout: 5,
          fail_threshold: 1,
          contacts: [hook],
          notification_rules: { delay_seconds: 3600 },
        });
        const id = created.body.data.id as string;
        await h.waitForStatus(id, 'up');
        target.mode = 'fail';
        await h.waitForStatus(id, 'down', 60_000);
        target.mode = 'ok';
        await h.waitForStatus(id, 'up', 60_000);
        await new Promise((r) => setTimeout(r, 3000));
        expect(arrivals.filter((a) => a.path === '/short')).toEqual([]);
        const incidents = (await h.api.get(`/api/incidents?resolved=true`)).body.data.incidents as {
          monitor_id: string;
        }[];
        expect(incidents.filter((i) => i.monitor_id === id)).toHaveLength(1);
        expect([0, 'SIGTERM']).toContain(await h.coordinator!.kill('SIGTERM'));
      }),
    240_000,
  );
});
