import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { ApiClient } from '../support/api-client.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { startPicket, type RunningProcess } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

// A key from a random source: a made-up one is refused at start (docs/decisions/0018-abuse-limits-and-quotas.md).
const KEY = `pkt_${randomBytes(32).toString('hex')}`;
const DELAY = 20;
const STEP = 60;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Notification rules through coordinator kills (docs/decisions/0029-notification-rules.md): the
 * planned messages of an outage — the delayed `monitor.down` and an escalation step's — live
 * in the outbox, so a coordinator SIGKILLed before they are due sends each of them once after
 * a restart, at its time, and the recovery reaches everyone told.
 */
describe.each(testDatabases())('notification rules through coordinator kills on $name', (kind) => {
  let db: TestDatabase;
  const target = new SwitchableTarget();
  const arrivals: { path: string; event: string; dedup: string; at: number }[] = [];
  const hooks = new FakeReceiver((req, res) => {
    const body = req.json as { event: string; monitor_id: string; incident_id: string };
    arrivals.push({
      path: req.url,
      event: body.event,
      dedup: `${body.monitor_id}-${body.incident_id}`,
      at: Date.now(),
    });
    reply(res, 204);
  });
  let coordinator: RunningProcess | undefined;
  let api: ApiClient;

  const start = async (env: Record<string, string>) => {
    const port = await freePort();
    coordinator = startPicket('start', {
      DATABASE_URL: db.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'warn',
      ...env,
    });
    api = new ApiClient(`http://127.0.0.1:${port}`, KEY);
    await waitFor(
      'the coordinator to serve',
      async () => ((await api.get('/api/account')).status === 200 ? true : undefined),
      180_000, // the first start may build dist/
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${coordinator!.output()}`);
    });
  };
  const at = (path: string, event: string) => arrivals.filter((a) => a.path === path && a.event === event);

  beforeAll(async () => {
    db = await kind.create();
    await target.start();
    await hooks.start({ https: false });
  }, 30_000);

  afterAll(async () => {
    await coordinator?.kill('SIGKILL');
    await target.stop();
    await hooks.stop();
    await db?.drop();
  });

  it('a delayed down and an escalation step survive two kills, each sent once at its time; the recovery tells both', async () => {
    await start({ CHECKS_ENABLED: 'true', DISPATCH_ENABLED: 'true' });
    const contact = async (name: string) =>
      (await api.post('/api/contacts', { name, channel: 'webhook', details: { url: `${hooks.baseUrl}/${name}` } })).body
        .contact.id as string;
    const main = await contact('main');
    const escalated = await contact('escalated');
    const created = await api.post('/api/monitors', {
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
    const status = async () => (await api.get(`/api/monitors/${id}`)).body.data.last_status as string;
    await waitFor('up', async () => ((await status()) === 'up' ? true : undefined));
    target.mode = 'fail';
    await waitFor('down', async () => ((await status()) === 'down' ? true : undefined), 60_000);
    const [incident] = (await api.get('/api/incidents')).body.data.incidents as { id: string; started_at: number }[];
    const startedAt = incident!.started_at * 1000;
    // Killed inside the delay: nothing was due, nothing was sent.
    expect(await coordinator!.kill('SIGKILL')).toBe('SIGKILL');
    expect(arrivals).toEqual([]);

    // Run 2: no checks (the monitor stays down), dispatch on. The delayed down comes at its time.
    await start({ CHECKS_ENABLED: 'false', DISPATCH_ENABLED: 'true' });
    await waitFor('the delayed down', async () => (at('/main', 'monitor.down').length > 0 ? true : undefined), 60_000);
    expect(at('/main', 'monitor.down')[0]!.at).toBeGreaterThanOrEqual(startedAt + DELAY * 1000);
    expect(at('/escalated', 'monitor.down')).toEqual([]);
    // Killed again before the step.
    expect(await coordinator!.kill('SIGKILL')).toBe('SIGKILL');

    // Run 3: checks on again; the step is due at start + 60 s, whichever coordinator runs then.
    await start({ CHECKS_ENABLED: 'true', DISPATCH_ENABLED: 'true' });
    await waitFor(
      'the escalation',
      async () => (at('/escalated', 'monitor.down').length > 0 ? true : undefined),
      (STEP + 30) * 1000,
    );
    expect(at('/escalated', 'monitor.down')[0]!.at).toBeGreaterThanOrEqual(startedAt + STEP * 1000);
    target.mode = 'ok';
    await waitFor('up', async () => ((await status()) === 'up' ? true : undefined), 60_000);
    await waitFor('both ups', async () =>
      at('/main', 'monitor.up').length > 0 && at('/escalated', 'monitor.up').length > 0 ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 3000)); // several dispatcher polls: nothing more
    expect(arrivals.map((a) => [a.path, a.event])).toEqual([
      ['/main', 'monitor.down'],
      ['/escalated', 'monitor.down'],
      ['/main', 'monitor.up'],
      ['/escalated', 'monitor.up'],
    ]);
    // One outage, one dedup key.
    expect(new Set(arrivals.map((a) => a.dedup))).toEqual(new Set([`${id}-${incident!.id}`]));
    expect([0, 'SIGTERM']).toContain(await coordinator!.kill('SIGTERM'));
  }, 420_000);

  it('an outage shorter than the delay notifies nobody but is an incident', async () => {
    await start({ CHECKS_ENABLED: 'true', DISPATCH_ENABLED: 'true' });
    const hook = (
      await api.post('/api/contacts', { name: 'short', channel: 'webhook', details: { url: `${hooks.baseUrl}/short` } })
    ).body.contact.id as string;
    const created = await api.post('/api/monitors', {
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
    const status = async () => (await api.get(`/api/monitors/${id}`)).body.data.last_status as string;
    await waitFor('up', async () => ((await status()) === 'up' ? true : undefined));
    target.mode = 'fail';
    await waitFor('down', async () => ((await status()) === 'down' ? true : undefined), 60_000);
    target.mode = 'ok';
    await waitFor('up again', async () => ((await status()) === 'up' ? true : undefined), 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    expect(arrivals.filter((a) => a.path === '/short')).toEqual([]);
    const incidents = (await api.get(`/api/incidents?resolved=true`)).body.data.incidents as { monitor_id: string }[];
    expect(incidents.filter((i) => i.monitor_id === id)).toHaveLength(1);
    expect([0, 'SIGTERM']).toContain(await coordinator!.kill('SIGTERM'));
  }, 240_000);
});
