import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { partitionOf } from '../../apps/coordinator/src/cluster/partitions.js';
import { ApiClient } from '../support/api-client.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { freePort, natsServerBinary, PrivateNats, TcpProxy } from '../support/faults.js';
import { describeWithNats } from '../support/nats.js';
import { startPicket, startTestAgent, type RunningProcess } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

/**
 * The distributed mode under faults, with real processes on loopback: PostgreSQL (through a
 * relay the test can cut), a private NATS server (so it can be restarted), two coordinators
 * and four agents in three regions, local targets and a fake webhook receiver. While targets
 * go down and up, a coordinator is SIGKILLed, an agent is SIGKILLed mid-probe, NATS restarts
 * and PostgreSQL becomes unreachable. Every outage must give exactly one incident and one
 * down and one up notification, and the healthy monitors none at all.
 */
const binary = natsServerBinary();
if (!binary && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the system test needs nats-server on this machine (Debian package nats-server)');
}
const postgresAvailable = process.env.PICKET_TEST_POSTGRES === '1';
if (!postgresAvailable) process.stderr.write('[picket tests] SKIPPING the system test: it needs PostgreSQL.\n');
const suite = binary && postgresAvailable ? describeWithNats : describe.skip;

const KEY = `pkt_${randomBytes(32).toString('hex')}`;
const LEASE_SECONDS = '4';
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-1'];
const MINUTE = 60_000;

suite('the distributed mode under faults', () => {
  const prefix = `sys_${randomBytes(4).toString('hex')}`;
  const nats = new PrivateNats(binary ?? '');
  let db: TestDatabase;
  let proxy: TcpProxy;
  let direct: pg.Client;
  const coordinators: Record<string, { process: RunningProcess; api: ApiClient }> = {};
  const agents: Record<string, RunningProcess> = {};
  const hooks = new FakeReceiver((_req, res) => {
    reply(res, 200, { ok: true });
  });
  const healthy = new SwitchableTarget();
  const outageTargets = [1, 2, 3, 4].map(() => new SwitchableTarget());
  const outages: string[] = [];
  const controls: string[] = [];
  let api: ApiClient;
  let contactId: string;

  async function startCoordinator(id: string): Promise<void> {
    const port = await freePort();
    const url = new URL(db.url);
    url.port = String(proxy.port);
    const process = startPicket('start', {
      DATABASE_URL: url.toString(),
      NATS_URL: nats.url,
      NATS_SUBJECT_PREFIX: prefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      BOOTSTRAP_API_KEY: KEY,
      COORDINATOR_ID: id,
      COORDINATOR_LEASE_SECONDS: LEASE_SECONDS,
      LOG_LEVEL: 'info',
    });
    const client = new ApiClient(`http://127.0.0.1:${port}`, KEY);
    coordinators[id] = { process, api: client };
    await waitFor(
      `coordinator ${id} to serve the API`,
      async () => ((await client.get('/api/account').catch(() => null))?.status === 200 ? true : undefined),
      120_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${process.output()}`);
    });
  }

  function startAgent(id: string, region: string): void {
    agents[id] = startTestAgent({ url: nats.url, prefix }, id, region);
  }

  async function createMonitor(name: string, target: SwitchableTarget): Promise<string> {
    const created = await api.post('/api/monitors', {
      name,
      settings: { https: { url: target.url } },
      regions: REGIONS,
      check_interval: 10,
      timeout: 5,
      fail_threshold: 2,
      contacts: [contactId],
    });
    expect(`${created.status} ${created.text}`).toMatch(/^201 /);
    return created.body.data.id as string;
  }

  async function ownerOf(monitorId: string): Promise<string> {
    const { rows } = await direct.query<{ owner: string }>(
      'SELECT "owner" FROM "partition_leases" WHERE "partition" = $1',
      [partitionOf(monitorId)],
    );
    return rows[0]?.owner ?? '';
  }

  const statusOf = async (id: string) => (await api.get(`/api/monitors/${id}`)).body.data.last_status as string;

  async function expectStatus(id: string, status: 'up' | 'down', timeoutMs = 2 * MINUTE): Promise<void> {
    await waitFor(
      `monitor ${id} ${status}`,
      async () => ((await statusOf(id)) === status ? true : undefined),
      timeoutMs,
    );
  }

  async function allControlsUp(): Promise<void> {
    for (const id of controls) expect(await statusOf(id)).toBe('up');
  }

  beforeAll(async () => {
    db = await testDatabases()
      .find((k) => k.name === 'postgres')!
      .create();
    const pgUrl = new URL(db.url);
    proxy = await new TcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432)).start();
    direct = new pg.Client({ connectionString: db.url });
    await direct.connect();
    await nats.start();
    await hooks.start({ https: false });
    await healthy.start();
    for (const t of outageTargets) await t.start();
    startAgent('us-1', 'us-east-1');
    startAgent('us-2', 'us-east-1');
    startAgent('eu-1', 'eu-west-1');
    startAgent('ap-1', 'ap-southeast-1');
    await startCoordinator('coord-a');
    await startCoordinator('coord-b');
    api = coordinators['coord-b']!.api;
    const contact = await api.post('/api/contacts', {
      name: 'on-call hook',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/hook` },
    });
    contactId = contact.body.contact.id as string;
    // Both replicas hold a share of the partitions before monitors are placed.
    await waitFor('both replicas to hold partitions', async () => {
      const { rows } = await direct.query<{ owner: string }>(
        `SELECT DISTINCT "owner" FROM "partition_leases" WHERE "owner" <> ''`,
      );
      return rows.length === 2 ? true : undefined;
    });
    for (let i = 0; i < 4; i++) controls.push(await createMonitor(`healthy ${i}`, healthy));
    // The first outage must hit a monitor of the replica that will be killed.
    for (let attempt = 0; outages.length === 0; attempt++) {
      if (attempt > 40) throw new Error('no monitor landed on coord-a');
      const id = await createMonitor('outage 1', outageTargets[0]!);
      if ((await ownerOf(id)) === 'coord-a') outages.push(id);
      else expect((await api.delete(`/api/monitors/${id}`)).status).toBe(204);
    }
    for (let i = 1; i < 4; i++) outages.push(await createMonitor(`outage ${i + 1}`, outageTargets[i]!));
    for (const id of [...controls, ...outages]) await expectStatus(id, 'up');
  }, 5 * MINUTE);

  afterAll(async () => {
    await Promise.all(Object.values(coordinators).map((c) => c.process.kill('SIGKILL')));
    await Promise.all(Object.values(agents).map((a) => a.kill('SIGKILL')));
    await nats.stop();
    await direct?.end();
    await proxy?.cut();
    await hooks.stop();
    await healthy.stop();
    for (const t of outageTargets) await t.stop();
    await db?.drop();
  });

  it(
    'detects every outage exactly once through coordinator, agent, NATS and PostgreSQL faults',
    async () => {
      const [m1, m2, m3, m4] = outages as [string, string, string, string];
      const [t1, t2, t3, t4] = outageTargets as [
        SwitchableTarget,
        SwitchableTarget,
        SwitchableTarget,
        SwitchableTarget,
      ];

      // 1. A target goes down and the replica scheduling it is SIGKILLed at once: the survivor
      //    takes the partition over and detects the outage.
      await t1.stop();
      expect(await coordinators['coord-a']!.process.kill('SIGKILL')).toBe('SIGKILL');
      await expectStatus(m1, 'down');
      expect(await ownerOf(m1)).toBe('coord-b');
      await startCoordinator('coord-a');
      await t1.restart();
      await expectStatus(m1, 'up');
      await allControlsUp();

      // 2. An agent is SIGKILLed while checks are in flight; its region's other agent carries on.
      healthy.delayMs = 2000;
      await waitFor('checks in flight', () => Promise.resolve(healthy.inFlight >= 2 ? true : undefined));
      expect(await agents['us-1']!.kill('SIGKILL')).toBe('SIGKILL');
      await t2.stop();
      await expectStatus(m2, 'down');
      await t2.restart();
      await expectStatus(m2, 'up');
      healthy.delayMs = 0;
      await allControlsUp();

      // 3. NATS restarts: checks meanwhile are UNKNOWN (no status changes), then resume. The API
      //    keeps answering, reads and writes (a write's announcement to the other replica waits
      //    for NATS), never with a 5xx other than 503.
      await nats.stop();
      const withoutNats: number[] = [];
      for (let i = 0; i < 6; i++) {
        for (const c of Object.values(coordinators)) {
          withoutNats.push((await c.api.get('/api/monitors')).status);
          withoutNats.push((await c.api.put(`/api/monitors/${controls[0]}`, { name: `healthy 0 (${i})` })).status);
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      await nats.start();
      expect([...new Set(withoutNats)].filter((status) => status !== 200 && status !== 503)).toEqual([]);
      await allControlsUp();
      await t3.stop();
      await expectStatus(m3, 'down');
      await t3.restart();
      await expectStatus(m3, 'up');

      // 4. PostgreSQL becomes unreachable: the API answers 503 and nothing else, then recovers.
      await proxy.cut();
      const during: number[] = [];
      for (let i = 0; i < 12; i++) {
        for (const c of Object.values(coordinators)) during.push((await c.api.get('/api/monitors')).status);
        await new Promise((r) => setTimeout(r, 500));
      }
      await proxy.restore();
      const restoredAt = Date.now();
      await waitFor('the API to answer again', async () =>
        (await api.get('/api/monitors')).status === 200 ? true : undefined,
      );
      const recoverySeconds = (Date.now() - restoredAt) / 1000;
      expect(new Set(during)).toEqual(new Set([503]));
      expect(recoverySeconds).toBeLessThan(30);
      await allControlsUp();
      await t4.stop();
      await expectStatus(m4, 'down');
      await t4.restart();
      await expectStatus(m4, 'up');

      // Exactly one incident and one down + one up notification per outage; none for the rest.
      // A notification is its webhook-id: delivery is at least once, and a retry of the same
      // notification (a reply that came too late on a loaded machine) carries the same id for the
      // receiver to drop (docs/decisions/0011-notification-channels.md). Two ids are two notifications.
      const deliveries = (id: string, event: string) =>
        hooks.requests.filter((r) => {
          const body = r.json as { monitor_id?: string; event?: string } | undefined;
          return body?.monitor_id === id && body.event === event;
        });
      const events = (id: string, event: string) =>
        new Set(deliveries(id, event).map((r) => r.headers['webhook-id'])).size;
      const received = (id: string) => deliveries(id, 'monitor.down').length + deliveries(id, 'monitor.up').length;
      await waitFor('every recovery notification', () =>
        Promise.resolve(outages.every((id) => events(id, 'monitor.up') >= 1) ? true : undefined),
      );
      await new Promise((r) => setTimeout(r, 3000)); // a few dispatcher rounds: still no duplicates
      const rows: { monitor: string; incidents: number; open: number; down: number; up: number }[] = [];
      /** Requests received per row, retries included (shown beside the rows, not asserted). */
      const sent: number[] = [];
      for (const id of [...outages, ...controls]) {
        const incidents = (await api.get(`/api/incidents?monitor_id=${id}&per_page=100`)).body.data.incidents as {
          resolved_at: number | null;
        }[];
        rows.push({
          monitor: `${outages.includes(id) ? 'outage' : 'healthy'} ${id}`,
          incidents: incidents.length,
          open: incidents.filter((i) => i.resolved_at === null).length,
          down: events(id, 'monitor.down'),
          up: events(id, 'monitor.up'),
        });
        sent.push(received(id));
      }
      process.stdout.write(
        `\nsystem test under faults (API answers while NATS was down: ${withoutNats.filter((x) => x === 200).length} ` +
          `of ${withoutNats.length} 200, the rest 503; ` +
          `503s while PostgreSQL was cut: ${during.length}/${during.length}, ` +
          `API back ${recoverySeconds.toFixed(1)} s after it returned)\n` +
          rows
            .map(
              (r, i) =>
                `  ${r.monitor}: incidents ${r.incidents} (open ${r.open}), down ${r.down}, up ${r.up} ` +
                `(requests received: ${sent[i]})`,
            )
            .join('\n') +
          '\n',
      );
      for (const row of rows) {
        const expected = row.monitor.startsWith('outage') ? 1 : 0;
        expect(row).toEqual({ monitor: row.monitor, incidents: expected, open: 0, down: expected, up: expected });
      }
    },
    15 * MINUTE,
  );
});
