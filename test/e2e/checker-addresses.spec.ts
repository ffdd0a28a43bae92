import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { REGION_IDS } from '#contracts';
import { AgentsStore } from '../../apps/coordinator/src/agents/agents.store.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';

/**
 * GET /web_api/checker_ip_addresses (docs/decisions/0009-checker-addresses.md): public, every
 * region, agents' and configured addresses.
 */
describe.each(testDatabases())('checker addresses on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, {
      env: { CHECKER_ADDRESSES: 'eu-west-1=203.0.113.5,2001:db8::5;sa-east-1=192.0.2.77' },
    });
    const store = c.app.get(AgentsStore);
    const heartbeat = (agent_id: string, regions: string[], ipv4: string[], ipv6: string[]) => ({
      agent_id,
      version: '0.1.0',
      regions: regions as never,
      ipv4,
      ipv6,
      in_flight: 0,
      max_in_flight: 100,
      icmp: true,
      sent_at: Date.now(),
    });
    await store.record(heartbeat('eu-1', ['eu-west-1'], ['198.51.100.9'], ['2001:db8::9']), Date.now());
    await store.record(heartbeat('us-1', ['us-east-1', 'us-east-2'], ['198.51.100.20'], []), Date.now());
    // The same agent heard again (another replica, a later heartbeat): still one row.
    await store.record(heartbeat('us-1', ['us-east-1', 'us-east-2'], ['198.51.100.20'], []), Date.now());
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  it('answers without an API key with all fifteen regions and their addresses', async () => {
    const res = await fetch(`${c.baseUrl}/web_api/checker_ip_addresses`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; data: { regions: Record<string, unknown>[] } };
    expect(body.status).toBe('ok');
    expect(body.data.regions.map((r) => r.id)).toEqual([...REGION_IDS]);
    const byId = Object.fromEntries(body.data.regions.map((r) => [r.id as string, r]));
    expect(byId['eu-west-1']).toEqual({
      id: 'eu-west-1',
      name: 'Ireland',
      continent: 'Europe',
      ipv4: ['198.51.100.9', '203.0.113.5'],
      ipv6: ['2001:db8::5', '2001:db8::9'],
    });
    expect(byId['us-east-2']).toMatchObject({ ipv4: ['198.51.100.20'], ipv6: [] });
    expect(byId['sa-east-1']).toMatchObject({ ipv4: ['192.0.2.77'], ipv6: [] });
    expect(byId['af-south-1']).toMatchObject({ ipv4: [], ipv6: [] });
    expect(await c.app.get(AgentsStore).list()).toHaveLength(2);
  });

  it('gives one address per line with ?format=txt', async () => {
    const res = await fetch(`${c.baseUrl}/web_api/checker_ip_addresses?format=txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await res.text()).split('\n').sort()).toEqual(
      ['', '192.0.2.77', '198.51.100.20', '198.51.100.9', '2001:db8::5', '2001:db8::9', '203.0.113.5'].sort(),
    );
  });

  it('refuses an unknown format or parameter with 422', async () => {
    for (const query of ['format=xml', 'region=eu-west-1']) {
      const res = await fetch(`${c.baseUrl}/web_api/checker_ip_addresses?${query}`);
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
    }
  });
});
