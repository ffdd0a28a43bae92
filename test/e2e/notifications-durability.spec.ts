import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { freePort } from '../support/faults.js';
import { ApiClient } from '../support/api-client.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { startPicket, type RunningProcess } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

// A key from a random source: a made-up one (one repeated digit) is refused at start (docs/decisions/0018-abuse-limits-and-quotas.md).
const KEY = `pkt_${randomBytes(32).toString('hex')}`;

/**
 * Durability: the coordinator process is SIGKILLed after a state change has committed (with
 * its incident and outbox row) and before delivery. After a restart the notification is
 * delivered — once.
 */
describe('a notification survives a coordinator killed before delivery', () => {
  let db: TestDatabase;
  const target = new SwitchableTarget();
  const hooks = new FakeReceiver((_req, res) => reply(res, 204));
  let coordinator: RunningProcess | undefined;
  let port: number;
  let api: ApiClient;

  const start = async (env: Record<string, string>) => {
    port = await freePort();
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
      120_000, // the first start may build dist/
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${coordinator!.output()}`);
    });
  };

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    await target.start();
    await hooks.start({ https: false });
  }, 30_000);

  afterAll(async () => {
    await coordinator?.kill('SIGKILL');
    await target.stop();
    await hooks.stop();
    await db?.drop();
  });

  it('SIGKILL after the commit, restart, exactly one delivery', async () => {
    // Run 1: checks on, dispatch held, so the outbox row is committed but never sent.
    await start({ CHECKS_ENABLED: 'true', DISPATCH_ENABLED: 'false' });
    const contact = await api.post('/api/contacts', {
      name: 'hook',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/hook` },
    });
    const monitor = await api.post('/api/monitors', {
      name: 'durable',
      settings: { https: { url: target.url } },
      regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'],
      check_interval: 10,
      timeout: 5,
      fail_threshold: 2,
      contacts: [contact.body.contact.id],
    });
    const id = monitor.body.data.id as string;
    const status = async () => (await api.get(`/api/monitors/${id}`)).body.data.last_status as string;
    await waitFor('up', async () => ((await status()) === 'up' ? true : undefined));
    await target.stop();
    await waitFor('down', async () => ((await status()) === 'down' ? true : undefined));
    expect((await api.get('/api/incidents')).body.data.incidents).toHaveLength(1);
    expect(hooks.requests).toHaveLength(0);
    expect(await coordinator!.kill('SIGKILL')).toBe('SIGKILL');

    // Run 2: no checks (nothing new happens), dispatch on: the committed row goes out once.
    await start({ CHECKS_ENABLED: 'false', DISPATCH_ENABLED: 'true' });
    await waitFor('the delivery', async () => (hooks.requests.length > 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 3000)); // several dispatcher polls: still one
    expect(hooks.requests).toHaveLength(1);
    expect(hooks.requests[0]!.json).toMatchObject({ event: 'monitor.down', monitor_id: id, status: 'down' });
    // Graceful stop: Nest runs its shutdown hooks, then re-raises SIGTERM.
    expect([0, 'SIGTERM']).toContain(await coordinator!.kill('SIGTERM'));
  }, 180_000);
});
