import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply, type RecordedRequest } from '../support/fake-receiver.js';
import { waitFor } from '../support/wait.js';

/**
 * Heartbeat monitors end to end (docs/decisions/0027-heartbeat-monitors.md): a real coordinator
 * (checks on, embedded mode, no agent needed) with a manual clock; the watched job is this test,
 * pinging the monitor's ping_url; the contact is a webhook receiver on 127.0.0.1.
 */
describe('heartbeat monitors', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let apiKey: string;
  let contactId: string;
  let monitorId: string;
  let pingUrl: string;
  const clock = new ManualClock(Date.now());
  const hooks = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));

  const start = async () => {
    c = await startCoordinator(db.url, { clock, env: { CHECKS_ENABLED: 'true' } });
  };
  const monitor = async (id = monitorId) => (await api.get(`/api/monitors/${id}`)).body.data;
  const statusBecomes = (status: string, id = monitorId) =>
    waitFor(`last_status ${status}`, async () => ((await monitor(id)).last_status === status ? true : undefined));
  const checks = async (id = monitorId) => {
    await c.app.get(ResultsWriter).flush();
    return (await api.get(`/api/monitors/${id}/checks?per_page=100`)).body.data.checks as any[];
  };
  const ping = (url: string, method = 'GET') => fetch(url, { method });
  const webhooks = (event: string): RecordedRequest[] =>
    hooks.requests.filter((r) => (r.json as { event?: string; monitor_id?: string }).event === event);

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    await hooks.start({ https: false });
    await start();
    const account = await c.newAccount('heartbeats');
    api = account.client;
    apiKey = account.apiKey;
    const contact = await api.post('/api/contacts', {
      name: 'ops',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/hook` },
    });
    expect(contact.status).toBe(201);
    contactId = contact.body.contact.id;
  });

  afterAll(async () => {
    await c?.close();
    await hooks.stop();
    await db?.drop();
  });

  it('creates a heartbeat monitor with an unguessable ping_url, no regions and the defaults of the rest', async () => {
    const created = await api.post('/api/monitors', {
      name: 'nightly backup',
      settings: { heartbeat: { period: 3600, grace: 300 } },
      contacts: [contactId],
    });
    expect(created.status).toBe(201);
    const data = created.body.data;
    expect(data).toMatchObject({ regions: [], check_interval: 300, timeout: 30, last_status: 'pending' });
    expect(data.settings).toEqual({
      heartbeat: { period: 3600, grace: 300, ping_url: expect.stringMatching(/\/ping\/[A-Za-z0-9_-]{32}$/) },
    });
    monitorId = data.id;
    pingUrl = data.settings.heartbeat.ping_url;
    expect(pingUrl.startsWith(`${c.baseUrl}/ping/`)).toBe(true);
    // Shown the same on every read; sent back unchanged with a PUT, it is ignored.
    expect((await monitor()).settings.heartbeat.ping_url).toBe(pingUrl);
    const echoed = await api.put(`/api/monitors/${monitorId}`, { settings: data.settings, regions: [] });
    expect(echoed.status).toBe(200);
    expect(echoed.body.data.settings.heartbeat).toEqual({ period: 3600, grace: 300, ping_url: pingUrl });
    // Another heartbeat gets another token.
    const other = await api.post('/api/monitors', {
      name: 'other job',
      settings: { heartbeat: { period: 60, grace: 60 } },
      regions: [],
      active: false,
    });
    expect(other.status).toBe(201);
    expect(other.body.data.settings.heartbeat.ping_url).not.toBe(pingUrl);
  });

  it('refuses regions for a heartbeat, a probed type without regions, and settings out of bounds (422)', async () => {
    const problems = async (body: Record<string, unknown>) => {
      const res = await api.post('/api/monitors', { name: 'x', ...body });
      expect(res.status).toBe(422);
      return res.body.error.details;
    };
    expect(await problems({ settings: { heartbeat: { period: 3600, grace: 300 } }, regions: ['eu-west-1'] })).toEqual([
      { field: 'regions', message: 'must be omitted or empty for a heartbeat monitor' },
    ]);
    expect(await problems({ settings: { tcp: { url: 'tcp://127.0.0.1:9' } } })).toEqual([
      { field: 'regions', message: 'is required' },
    ]);
    expect(await problems({ settings: { tcp: { url: 'tcp://127.0.0.1:9' } }, regions: [] })).toEqual([
      { field: 'regions', message: 'must contain at least one item' },
    ]);
    expect(await problems({ settings: { heartbeat: { period: 59, grace: 86_401 } } })).toEqual([
      { field: 'settings.heartbeat.period', message: 'must be between 60 and 2592000' },
      { field: 'settings.heartbeat.grace', message: 'must be between 60 and 86400' },
    ]);
    // Turning a probed monitor into a heartbeat needs its regions emptied in the same PUT.
    const tcp = await api.post('/api/monitors', {
      name: 'port',
      settings: { tcp: { url: 'tcp://127.0.0.1:9' } },
      regions: ['eu-west-1'],
      active: false,
    });
    expect(tcp.status).toBe(201);
    const kept = await api.put(`/api/monitors/${tcp.body.data.id}`, {
      settings: { heartbeat: { period: 60, grace: 60 } },
    });
    expect(kept.status).toBe(422);
    expect(kept.body.error.details).toEqual([
      { field: 'regions', message: 'must be omitted or empty for a heartbeat monitor' },
    ]);
  });

  it('lists heartbeat monitors with monitor_type=heartbeat', async () => {
    const listed = await api.get('/api/monitors?monitor_type=heartbeat&sort=created_at&order=asc');
    expect(listed.status).toBe(200);
    const names = listed.body.data.monitors.map((m: { name: string }) => m.name);
    expect(names).toEqual(['nightly backup', 'other job']);
    const tcp = await api.get('/api/monitors?monitor_type=tcp');
    expect(tcp.body.data.monitors.map((m: { name: string }) => m.name)).toEqual(['port']);
  });

  it('GET, POST and HEAD pings answer OK, are recorded as UP results and turn the monitor up', async () => {
    const got = await ping(pingUrl);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await got.text()).toBe('OK');
    await statusBecomes('up');
    clock.advance(1000);
    const posted = await ping(pingUrl, 'POST');
    expect([posted.status, await posted.text()]).toEqual([200, 'OK']);
    clock.advance(1000);
    const head = await ping(pingUrl, 'HEAD');
    expect(head.status).toBe(200);
    const recorded = await checks();
    expect(recorded).toHaveLength(3);
    for (const check of recorded) {
      expect(check).toMatchObject({ region: 'heartbeat', status: 'up', error: null, phase: null });
    }
    // Never unknown for want of agents, and never sent to an agent.
    expect((await monitor()).last_status).toBe('up');
  });

  it('turns down with an incident and a webhook when no ping comes within period + grace', async () => {
    clock.advance((3600 + 300) * 1000);
    await statusBecomes('down');
    const [latest] = await checks();
    expect(latest).toMatchObject({ region: 'heartbeat', status: 'down', phase: 'timeout' });
    expect(latest.error).toMatch(/^no ping for 1 h 5 min/);
    const incidents = (await api.get('/api/incidents')).body.data.incidents as any[];
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ monitor_id: monitorId, is_resolved: false });
    expect(incidents[0].reason).toMatch(/no ping for/);
    const [down] = await waitFor('the monitor.down webhook', async () => {
      const sent = webhooks('monitor.down');
      return sent.length > 0 ? sent : undefined;
    });
    expect(down!.json).toMatchObject({
      event: 'monitor.down',
      monitor_id: monitorId,
      monitor_name: 'nightly backup',
      monitor_settings: { heartbeat: { period: 3600, grace: 300 } },
    });
    // The ping URL (the token) is not sent to notification channels.
    expect(JSON.stringify(down!.json)).not.toContain(pingUrl.split('/ping/')[1]!);
  });

  it('is up again on the next ping, and down at once on /fail', async () => {
    clock.advance(5000);
    expect((await ping(pingUrl)).status).toBe(200);
    await statusBecomes('up');
    await waitFor('the monitor.up webhook', async () => (webhooks('monitor.up').length > 0 ? true : undefined));
    clock.advance(5000);
    const failed = await ping(`${pingUrl}/fail`, 'POST');
    expect([failed.status, await failed.text()]).toEqual([200, 'OK']);
    // Evaluated before the answer: down at once, whatever fail_threshold says.
    expect((await monitor()).last_status).toBe('down');
    const [latest] = await checks();
    expect(latest).toMatchObject({ status: 'down', phase: 'assertion', error: 'failure reported by ping (/fail)' });
    clock.advance(5000);
    expect((await ping(pingUrl)).status).toBe(200);
    await statusBecomes('up');
    clock.advance(5000);
    expect((await ping(`${pingUrl}/fail`)).status).toBe(200);
    expect((await monitor()).last_status).toBe('down');
    clock.advance(5000);
    expect((await ping(pingUrl)).status).toBe(200);
    await statusBecomes('up');
  });

  it('answers 404 for an unknown, a malformed or a deleted token, the same way', async () => {
    const unknown = await fetch(`${c.baseUrl}/ping/${'A'.repeat(32)}`);
    const malformed = await fetch(`${c.baseUrl}/ping/x`);
    const unknownFail = await fetch(`${c.baseUrl}/ping/${'A'.repeat(32)}/fail`, { method: 'POST' });
    const gone = await api.post('/api/monitors', { name: 'gone', settings: { heartbeat: { period: 60, grace: 60 } } });
    const goneUrl = gone.body.data.settings.heartbeat.ping_url as string;
    expect((await ping(goneUrl)).status).toBe(200);
    expect((await api.delete(`/api/monitors/${gone.body.data.id}`)).status).toBe(204);
    const deleted = await ping(goneUrl);
    const bodies = [];
    for (const res of [unknown, malformed, unknownFail, deleted]) {
      expect(res.status).toBe(404);
      bodies.push(await res.json());
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0]).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND' } });
  });

  it('limits each token to 60 pings a minute (429 with Retry-After), without touching other tokens', async () => {
    const created = await api.post('/api/monitors', {
      name: 'chatty',
      settings: { heartbeat: { period: 60, grace: 60 } },
      active: false,
    });
    const url = created.body.data.settings.heartbeat.ping_url as string;
    clock.advance(120_000);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await ping(url)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    const refused = await ping(url);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await ping(pingUrl)).status).toBe(200);
    clock.advance(1000);
    expect((await ping(url)).status).toBe(200);
  });

  it('a paused heartbeat records pings and misses but alerts nobody', async () => {
    const created = await api.post('/api/monitors', {
      name: 'paused job',
      settings: { heartbeat: { period: 60, grace: 60 } },
      contacts: [contactId],
      active: false,
    });
    const id = created.body.data.id as string;
    expect((await ping(created.body.data.settings.heartbeat.ping_url)).status).toBe(200);
    await statusBecomes('up', id);
    clock.advance(121_000);
    await statusBecomes('down', id);
    expect((await checks(id))[0]).toMatchObject({ status: 'down', phase: 'timeout' });
    expect(hooks.requests.some((r) => (r.json as { monitor_id?: string }).monitor_id === id)).toBe(false);
  });

  it('finds a deadline that passed while the coordinator was stopped when it starts again', async () => {
    clock.advance(5000);
    expect((await ping(pingUrl)).status).toBe(200);
    await statusBecomes('up');
    await c.app.get(ResultsWriter).flush();
    await c.close();
    clock.advance((3600 + 300 + 60) * 1000);
    await start();
    api = c.client(apiKey);
    await statusBecomes('down');
    const [latest] = await checks();
    expect(latest).toMatchObject({ status: 'down', phase: 'timeout' });
    expect(latest.error).toMatch(/^no ping for 1 h 6 min/);
    // The ping URL survives the restart.
    expect((await monitor()).settings.heartbeat.ping_url).toBe(pingUrl.replace(/^http:\/\/[^/]+/, c.baseUrl));
  });
});
