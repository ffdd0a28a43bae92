import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { REGION_IDS } from '#contracts';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { CheckResultEntity } from '../../apps/coordinator/src/history/check-result.entity.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { PrivateAgents } from '../../apps/coordinator/src/regions/private-agents.js';
import { AgentsRegistry } from '../../apps/coordinator/src/agents/agents.registry.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { describeWithNats, testNatsUrl } from '../support/nats.js';
import { startPicket, startTestAgent, type RunningProcess } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

/**
 * Private regions (docs/decisions/0030-private-regions.md): the regions API per account, on both
 * databases; then, over the real NATS server, a monitor in a public and a private region checked
 * and confirmed from both, and UNKNOWN (never DOWN) from the private one once its agent is gone.
 */
const monitorBody = (regions: string[], url = 'http://127.0.0.1:9/') => ({
  name: 'private',
  settings: { https: { url } },
  regions,
});

describe.each(testDatabases())('regions API on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let a: ApiClient;
  let b: ApiClient;
  let aId: string;

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url);
    const first = await c.newAccount('a');
    a = first.client;
    aId = first.accountId;
    b = (await c.newAccount('b')).client;
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  it('lists the 15 public regions, then the account’s own', async () => {
    const before = await a.get('/api/regions');
    expect(before.status).toBe(200);
    expect(before.body.data.regions.map((r: { id: string }) => r.id)).toEqual([...REGION_IDS]);
    expect(before.body.data.regions[0]).toEqual({
      id: 'us-east-1',
      name: 'N. Virginia',
      continent: 'North America',
      type: 'public',
    });
    const created = await a.post('/api/regions', { id: 'office', name: 'Berlin office' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: 'office',
      name: 'Berlin office',
      type: 'private',
      agents_online: 0,
      created_at: expect.any(Number),
    });
    const after = (await a.get('/api/regions')).body.data.regions;
    expect(after).toHaveLength(16);
    expect(after[15]).toEqual(created.body.data);
    expect((await a.get('/api/regions/office')).body.data).toEqual(created.body.data);
  });

  it.each([
    [{ id: 'eu-west-1', name: 'x' }, 'id', /public region/],
    [{ id: 'Office', name: 'x' }, 'id', /lowercase/],
    [{ id: 'of', name: 'x' }, 'id', /3 to 32/],
    [{ id: '1office', name: 'x' }, 'id', /starting with a letter/],
    [{ id: 'office-two' }, 'name', /required/],
    [{ id: 'office-two', name: ' ' }, 'name', /./],
    [{ id: 'office-two', name: 'x', colour: 'red' }, 'colour', /./],
  ])('refuses %j: 422 naming %s', async (body, field, message) => {
    const res = await a.post('/api/regions', body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const detail = (res.body.error.details as { field: string; message: string }[]).find((d) => d.field === field);
    expect(detail?.message).toMatch(message);
  });

  it('an id is unique within the account, not across accounts', async () => {
    const again = await a.post('/api/regions', { id: 'office', name: 'again' });
    expect(again.status).toBe(422);
    expect(again.body.error.details).toEqual([{ field: 'id', message: 'is already a region of this account' }]);
    const other = await b.post('/api/regions', { id: 'lab', name: 'B lab' });
    expect(other.status).toBe(201);
  });

  it('another account can neither see, use nor delete it (404 / 422)', async () => {
    const listed = (await b.get('/api/regions')).body.data.regions.map((r: { id: string }) => r.id);
    expect(listed).not.toContain('office');
    expect(listed).toContain('lab');
    const seen = await b.get('/api/regions/office');
    expect(seen.status).toBe(404);
    expect(seen.body.error.code).toBe('REGION_NOT_FOUND');
    // Byte for byte the 404 of a region that exists nowhere.
    expect((await b.get('/api/regions/nowhere')).text).toBe(seen.text);
    const deleted = await b.delete('/api/regions/office');
    expect(deleted.status).toBe(404);
    expect(deleted.text).toBe(seen.text);
    const used = await b.post('/api/monitors', monitorBody(['eu-west-1', 'office']));
    expect(used.status).toBe(422);
    expect(used.body.error.details).toEqual([
      { field: 'regions', message: expect.stringMatching(/^office is not a known region/) },
    ]);
    // And an update cannot slip it in either.
    const own = await b.post('/api/monitors', monitorBody(['eu-west-1', 'lab']));
    expect(own.status).toBe(201);
    const put = await b.put(`/api/monitors/${own.body.data.id}`, { regions: ['lab', 'office'] });
    expect(put.status).toBe(422);
    expect(put.body.error.details[0]).toMatchObject({ field: 'regions', message: expect.stringMatching(/^office /) });
    // A public id is never a private region to get or delete.
    expect((await a.get('/api/regions/eu-west-1')).status).toBe(404);
    expect((await a.delete('/api/regions/eu-west-1')).status).toBe(404);
  });

  it('monitors list their account’s private ids; a used region cannot be deleted (409)', async () => {
    const monitor = await a.post('/api/monitors', monitorBody(['eu-west-1', 'office']));
    expect(monitor.status).toBe(201);
    expect(monitor.body.data.regions).toEqual(['eu-west-1', 'office']);
    const refused = await a.delete('/api/regions/office');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('REGION_IN_USE');
    expect(refused.body.error.message).toContain(monitor.body.data.id);
    // The history filter takes the private id.
    expect((await a.get(`/api/monitors/${monitor.body.data.id}/checks?region=office`)).status).toBe(200);
    // Another account's private id, or one nobody has, is an unknown region there.
    for (const region of ['lab', 'mars-1']) {
      const unknown = await a.get(`/api/monitors/${monitor.body.data.id}/checks?region=${region}`);
      expect(unknown.status).toBe(422);
      expect(unknown.body.error.details).toEqual([{ field: 'region', message: expect.any(String) }]);
    }
    expect((await a.delete(`/api/monitors/${monitor.body.data.id}`)).status).toBe(204);
    expect((await a.delete('/api/regions/office')).status).toBe(204);
    expect((await a.get('/api/regions/office')).status).toBe(404);
    // Gone: no longer a region a monitor may name.
    expect((await a.post('/api/monitors', monitorBody(['office']))).status).toBe(422);
  });

  it('needs regions:read to read and regions:write to write', async () => {
    const reader = (await c.newKey(aId, ['regions:read'])).client;
    const other = (await c.newKey(aId, ['monitors:read', 'monitors:write'])).client;
    expect((await reader.get('/api/regions')).status).toBe(200);
    expect((await reader.post('/api/regions', { id: 'shed', name: 'x' })).status).toBe(403);
    expect((await other.get('/api/regions')).status).toBe(403);
    expect((await other.delete('/api/regions/shed')).status).toBe(403);
  });

  it('private regions never appear in the checker addresses', async () => {
    const json = (await (await fetch(`${c.baseUrl}/web_api/checker_ip_addresses`)).json()) as {
      data: { regions: { id: string }[] };
    };
    expect(json.data.regions.map((r) => r.id)).toEqual([...REGION_IDS]);
  });
});

describeWithNats('a private region over NATS', () => {
  const prefix = `test_${randomBytes(4).toString('hex')}`;
  let db: TestDatabase;
  let c: RunningCoordinator;
  let a: ApiClient;
  let aId: string;
  let bId: string;
  const target = new SwitchableTarget();
  const agents: Record<string, RunningProcess> = {};
  let monitorId: string;

  const checks = async () => {
    await c.app.get(ResultsWriter).flush();
    return (await a.get(`/api/monitors/${monitorId}/checks?per_page=100`)).body.data.checks as any[];
  };
  const lastStatus = async () => (await a.get(`/api/monitors/${monitorId}`)).body.data.last_status as string;
  const privateAgent = (id: string, accountId: string, region: string) =>
    startPicket('agent', {
      NATS_URL: testNatsUrl()!,
      NATS_SUBJECT_PREFIX: prefix,
      AGENT_ID: id,
      AGENT_PRIVATE_REGION: `${accountId}/${region}`,
      AGENT_PUBLIC_IPS: '203.0.113.77',
      AGENT_HTTP_PORT: '0',
      AGENT_HEARTBEAT_SECONDS: '1',
      AGENT_DRAIN_SECONDS: '2',
    });

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    await target.start();
    c = await startCoordinator(db.url, {
      env: { CHECKS_ENABLED: 'true', NATS_URL: testNatsUrl()!, NATS_SUBJECT_PREFIX: prefix },
    });
    const first = await c.newAccount('a');
    a = first.client;
    aId = first.accountId;
    const second = await c.newAccount('b');
    bId = second.accountId;
    expect((await a.post('/api/regions', { id: 'office', name: 'Office' })).status).toBe(201);
    // Account B has a region of the same id, with an agent of its own: it must never get A's checks.
    expect((await second.client.post('/api/regions', { id: 'office', name: 'B office' })).status).toBe(201);
    agents.eu = startTestAgent({ url: testNatsUrl()!, prefix }, 'agent-eu', 'eu-west-1');
    agents.office = privateAgent('agent-office-a', aId, 'office');
    agents.other = privateAgent('agent-office-b', bId, 'office');
    await waitFor(
      'the three agents to send heartbeats',
      async () => {
        const privates = c.app.get(PrivateAgents);
        const eu = c.app.get(AgentsRegistry).countByRegion()['eu-west-1'];
        return eu === 1 && privates.online(aId, 'office') === 1 && privates.online(bId, 'office') === 1
          ? true
          : undefined;
      },
      120_000, // the first agent start may build dist/
    ).catch((error: unknown) => {
      const outputs = Object.entries(agents).map(([name, agent]) => `${name}:\n${agent.output()}`);
      throw new Error(`${String(error)}\n${outputs.join('\n')}`);
    });
    const created = await a.post('/api/monitors', {
      ...monitorBody(['eu-west-1', 'office'], target.url),
      check_interval: 10,
      timeout: 5,
      fail_threshold: 2,
    });
    monitorId = created.body.data.id;
  }, 180_000);

  afterAll(async () => {
    await Promise.all(Object.values(agents).map((agent) => agent.kill('SIGKILL')));
    await c?.close();
    await target.stop();
    await db?.drop();
  });

  it('is checked from both regions, the private one by its own account’s agent only', async () => {
    const both = await waitFor('UP results from both regions', async () => {
      const found = (await checks()).filter((check) => check.status === 'up');
      return new Set(found.map((check) => check.region)).size === 2 ? found : undefined;
    });
    expect(await lastStatus()).toBe('up');
    const office = both.filter((check) => check.region === 'office');
    expect(office.length).toBeGreaterThan(0);
    // The agent of account B's "office" never ran account A's checks; the public agent neither.
    const stored = await c.app.get(Database).manager.findBy(CheckResultEntity, { monitorId, region: 'office' });
    expect(new Set(stored.filter((r) => r.status === 'up').map((r) => r.agentId))).toEqual(new Set(['agent-office-a']));
    const eu = await c.app.get(Database).manager.findBy(CheckResultEntity, { monitorId, region: 'eu-west-1' });
    expect(new Set(eu.map((r) => r.agentId))).toEqual(new Set(['agent-eu']));
    const regions = (await a.get('/api/regions')).body.data.regions as { id: string; agents_online?: number }[];
    expect(regions.find((r) => r.id === 'office')?.agents_online).toBe(1);
    // The private agent is nowhere in `agents list` nor in the public checker addresses.
    expect(
      c.app
        .get(AgentsRegistry)
        .present()
        .map((s) => s.heartbeat.agent_id),
    ).toEqual(['agent-eu']);
    const txt = await (await fetch(`${c.baseUrl}/web_api/checker_ip_addresses?format=txt`)).text();
    expect(txt).not.toContain('203.0.113.77');
  });

  it('an outage is confirmed across the public and the private region', async () => {
    await target.stop();
    await waitFor('last_status down', async () => ((await lastStatus()) === 'down' ? true : undefined));
    const downs = (await checks()).filter((check) => check.status === 'down');
    expect(new Set(downs.map((check) => check.region))).toEqual(new Set(['eu-west-1', 'office']));
    await target.restart();
    await waitFor('last_status up', async () => ((await lastStatus()) === 'up' ? true : undefined));
  });

  it('with the private agent gone its region is UNKNOWN, never DOWN', async () => {
    const since = Date.now();
    expect(await agents.office!.kill('SIGKILL')).toBe('SIGKILL');
    await target.stop(); // a real outage now: the public region sees it, the blind one must not
    const unknown = await waitFor('an UNKNOWN result from the office', async () =>
      (await checks()).find(
        (check) => check.region === 'office' && check.status === 'unknown' && check.checked_at * 1000 >= since,
      ),
    );
    expect(unknown.error).toBe('no agent serves region office');
    const afterKill = (await checks()).filter((check) => check.region === 'office' && check.checked_at * 1000 >= since);
    expect(afterKill.length).toBeGreaterThan(0);
    expect(afterKill.every((check) => check.status === 'unknown')).toBe(true);
    await target.restart();
  });
});
