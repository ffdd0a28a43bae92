import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { DATA_SOURCE } from '../../apps/coordinator/src/database/database.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { FakePagerDuty } from '../../apps/coordinator/src/notify/channels/paging/pagerduty.fake.js';
import { Dispatcher } from '../../apps/coordinator/src/notify/dispatcher.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { CapturingLogger, startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply, type RecordedRequest } from '../support/fake-receiver.js';
import { SwitchableTarget } from '../support/target.js';
import { testPki } from '../support/tls.js';
import { waitFor } from '../support/wait.js';

/**
 * Notifications end to end in embedded mode: a real local target goes down and comes back;
 * the contacts of the monitor hear about it through a webhook receiver and a fake PagerDuty,
 * exactly once per outage and per eligible contact, and no secret leaks anywhere.
 */
describe('notifications end to end', () => {
  const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
  const ROUTING_KEY = 'R0UT1NGKEY0123456789ABCDEFGHIJKL';
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  const logger = new CapturingLogger();
  const responses: ApiResponse[] = [];
  const target = new SwitchableTarget();
  const hooks = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));
  const pagerDuty = new FakePagerDuty();
  let dir: string;
  let monitorId: string;
  let pausedMonitorId: string;

  const track = async (pending: Promise<ApiResponse>) => {
    const res = await pending;
    responses.push(res);
    return res;
  };
  const received = (path: string, event?: string): RecordedRequest[] =>
    hooks.requests.filter(
      (r) => r.url === path && (event === undefined || (r.json as { event: string }).event === event),
    );
  const lastStatus = async (id: string) =>
    (await track(api.get(`/api/monitors/${id}`))).body.data.last_status as string;
  /** Lets the probing pipeline run `rounds` more checks of the monitor, then delivers what is due. */
  const settle = async (rounds: number) => {
    const writer = c.app.get(ResultsWriter);
    await writer.flush();
    const before = (await api.get(`/api/monitors/${monitorId}/checks?per_page=100`)).body.data.pagination
      .total as number;
    await waitFor(`${rounds} more checks`, async () => {
      await writer.flush();
      const now = (await api.get(`/api/monitors/${monitorId}/checks?per_page=100`)).body.data.pagination
        .total as number;
      return now >= before + rounds ? true : undefined;
    });
    await c.app.get(Dispatcher).runOnce();
  };

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    dir = mkdtempSync(join(tmpdir(), 'picket-notify-'));
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, (await testPki()).ca);
    await target.start();
    await hooks.start({ https: false });
    await pagerDuty.start();
    c = await startCoordinator(db.url, {
      logger,
      env: {
        CHECKS_ENABLED: 'true',
        PAGERDUTY_EVENTS_URL: pagerDuty.url,
        NOTIFY_CA_FILE: caFile,
        LOG_LEVEL: 'debug',
      },
    });
    api = (await c.newAccount('notify')).client;
    const contact = async (body: unknown) => (await track(api.post('/api/contacts', body))).body.contact.id as string;
    const a = await contact({
      name: 'ops webhook',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/a`, secret: SECRET },
    });
    const b = await contact({
      name: 'downs only',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/b` },
      down_alerts_only: true,
    });
    const off = await contact({
      name: 'inactive',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/c` },
      active: false,
    });
    const paging = await contact({ name: 'on call', channel: 'paging', details: { integration_key: ROUTING_KEY } });
    const monitor = (name: string, contacts: string[], active: boolean) =>
      track(
        api.post('/api/monitors', {
          name,
          settings: { https: { url: target.url } },
          regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'],
          check_interval: 10,
          timeout: 5,
          fail_threshold: 2,
          contacts,
          active,
        }),
      );
    monitorId = (await monitor('API (prod)', [a, b, off, paging], true)).body.data.id;
    pausedMonitorId = (await monitor('paused twin', [a, b, paging], false)).body.data.id;
    await waitFor('both monitors up', async () =>
      (await lastStatus(monitorId)) === 'up' && (await lastStatus(pausedMonitorId)) === 'up' ? true : undefined,
    );
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await target.stop();
    await hooks.stop();
    await pagerDuty.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an outage opens one incident and sends exactly one monitor.down per eligible contact', async () => {
    await target.stop();
    await waitFor('the monitor down', async () => ((await lastStatus(monitorId)) === 'down' ? true : undefined));
    await waitFor('the down deliveries', async () =>
      received('/a', 'monitor.down').length === 1 && pagerDuty.opened === 1 ? true : undefined,
    );
    await settle(3); // the outage goes on: more DOWN results must not notify again
    const incidents = (await track(api.get('/api/incidents'))).body.data.incidents as any[];
    expect(incidents).toHaveLength(1);
    const [incident] = incidents;
    expect(incident).toMatchObject({
      monitor_id: monitorId,
      monitor_name: 'API (prod)',
      is_resolved: false,
      resolved_at: null,
    });
    expect(incident.reason).toMatch(/connection refused/);
    expect(Object.keys(incident.check_results).length).toBeGreaterThanOrEqual(2);

    expect(received('/a', 'monitor.down')).toHaveLength(1);
    expect(received('/b', 'monitor.down')).toHaveLength(1);
    expect(received('/c')).toHaveLength(0); // inactive contact
    const down = received('/a', 'monitor.down')[0]!;
    const body = down.json as Record<string, unknown>;
    expect(body).toMatchObject({
      event: 'monitor.down',
      incident_id: incident.id,
      monitor_id: monitorId,
      monitor_name: 'API (prod)',
      status: 'down',
      monitor_settings: { https: { url: target.url, check_certificate_expiration: false } },
    });
    // Signed with the contact's secret (Standard Webhooks), verifiable by the receiver.
    expect(() =>
      new Webhook(SECRET).verify(down.raw.toString('utf8'), down.headers as Record<string, string>),
    ).not.toThrow();
    expect(down.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);

    expect(pagerDuty.opened).toBe(1);
    expect([...pagerDuty.open.keys()]).toEqual([`${monitorId}-${incident.id}`]);
    expect(pagerDuty.problems).toEqual([]);
    // Nothing at all for the paused twin.
    expect(hooks.requests.some((r) => (r.json as { monitor_id?: string }).monitor_id === pausedMonitorId)).toBe(false);
  });

  it('recovery resolves the incident, sends monitor.up except to down_alerts_only, and resolves PagerDuty', async () => {
    await target.restart();
    await waitFor('the monitor up', async () => ((await lastStatus(monitorId)) === 'up' ? true : undefined));
    await waitFor('the up deliveries', async () =>
      received('/a', 'monitor.up').length === 1 && pagerDuty.resolved.length === 1 ? true : undefined,
    );
    await settle(2);
    const [incident] = (await track(api.get('/api/incidents?resolved=true'))).body.data.incidents as any[];
    expect(incident.is_resolved).toBe(true);
    expect(incident.duration).toBe(incident.resolved_at - incident.started_at);
    expect(received('/a', 'monitor.up')).toHaveLength(1);
    expect((received('/a', 'monitor.up')[0]!.json as { incident_id: string }).incident_id).toBe(incident.id);
    expect(received('/b', 'monitor.up')).toHaveLength(0);
    expect(pagerDuty.resolved).toEqual([`${monitorId}-${incident.id}`]);
    expect(pagerDuty.open.size).toBe(0);
    expect(received('/a')).toHaveLength(2);
    const metrics = await (await fetch(`${c.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/picket_notification_deliveries_total\{channel="webhook",outcome="ok"\} 3\b/);
    expect(metrics).toMatch(/picket_notification_deliveries_total\{channel="paging",outcome="ok"\} 2\b/);
    expect(metrics).toMatch(/picket_outbox_pending 0\b/);
    expect(metrics).toMatch(/picket_outbox_oldest_seconds 0\b/);
  });

  it('no secret appears in any API response, log line or stored delivery record', async () => {
    await track(api.get('/api/contacts?per_page=100'));
    const ds = c.app.get<import('typeorm').DataSource>(DATA_SOURCE);
    const stored = [
      ...(await ds.query('SELECT last_detail FROM notifications')),
      ...(await ds.query('SELECT detail FROM notification_attempts')),
      ...(await ds.query('SELECT error FROM contacts')),
      ...(await ds.query('SELECT reason FROM incidents')),
    ].map((row) => JSON.stringify(row));
    const haystacks = [...responses.map((r) => r.text), ...logger.lines, ...stored];
    expect(logger.lines.length).toBeGreaterThan(0);
    for (const secret of [SECRET, SECRET.slice(6), ROUTING_KEY]) {
      expect(haystacks.filter((text) => text.includes(secret))).toEqual([]);
    }
  });
});
