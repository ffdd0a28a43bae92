import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { waitFor } from '../support/wait.js';

/**
 * DNS monitors end to end (docs/decisions/0024-dns-monitors.md): a coordinator in embedded mode
 * checks a name on a DNS server the test runs on 127.0.0.1, from two regions; a missing expected
 * value and a vanished name turn it down with the reason in its checks.
 */
describe('dns monitors', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let dns: TestDnsServer;
  let monitorId: string;

  const monitor = async () => (await api.get(`/api/monitors/${monitorId}`)).body.data;
  const checks = async () => {
    await c.app.get(ResultsWriter).flush();
    return (await api.get(`/api/monitors/${monitorId}/checks?per_page=100`)).body.data.checks as any[];
  };
  const statusBecomes = (status: string) =>
    waitFor(`last_status ${status}`, async () => ((await monitor()).last_status === status ? true : undefined));

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    dns = await startDnsServer({
      records: { 'app.example.test': [{ type: 'MX', priority: 10, exchange: 'mail.example.test' }] },
    });
    c = await startCoordinator(db.url, { env: { CHECKS_ENABLED: 'true' } });
    api = (await c.newAccount('dns')).client;
  });

  afterAll(async () => {
    await c?.close();
    await dns?.close();
    await db?.drop();
  });

  it('creates a dns monitor with its defaults filled in and refuses bad settings with 422', async () => {
    const created = await api.post('/api/monitors', {
      name: 'mail exchanger',
      settings: {
        dns: {
          url: 'dns://app.example.test',
          record_type: 'MX',
          resolver: dns.address,
          expected: ['mail.example.test'],
        },
      },
      regions: ['us-east-1', 'eu-west-1'],
      check_interval: 10,
      timeout: 5,
      fail_threshold: 2,
    });
    expect(created.status).toBe(201);
    expect(created.body.data.settings).toEqual({
      dns: { url: 'dns://app.example.test', record_type: 'MX', resolver: dns.address, expected: ['mail.example.test'] },
    });
    monitorId = created.body.data.id;

    const listed = await api.get('/api/monitors?monitor_type=dns');
    expect(listed.body.data.monitors.map((m: { id: string }) => m.id)).toEqual([monitorId]);

    const bad = await api.post('/api/monitors', {
      name: 'bad',
      settings: { dns: { url: 'dns://192.0.2.1', record_type: 'PTR' } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details).toEqual(
      expect.arrayContaining([{ field: 'settings.dns.url', message: 'must name a host, not an IP address' }]),
    );
  });

  it("checks it from each region through the monitor's resolver and marks it up", async () => {
    await statusBecomes('up');
    const [first] = await checks();
    expect(first).toMatchObject({ status: 'up', error: null, phase: null });
    expect(first.timings.dns_ms).toEqual(expect.any(Number));
    expect(dns.queries).toContain('app.example.test MX');
  });

  it('turns down when an expected value is missing, naming it and what came back', async () => {
    const changed = await api.put(`/api/monitors/${monitorId}`, {
      settings: {
        dns: {
          url: 'dns://app.example.test',
          record_type: 'MX',
          resolver: dns.address,
          expected: ['mx2.example.test'],
        },
      },
    });
    expect(changed.status).toBe(200);
    await statusBecomes('down');
    const failed = (await checks()).find((check) => check.status === 'down');
    expect(failed).toMatchObject({
      phase: 'assertion',
      error: 'expected "mx2.example.test" among the MX answers, got 10 mail.example.test',
    });
  });

  it('is up again when the records match, and down with NXDOMAIN when the name goes away', async () => {
    dns.zone = { records: { 'app.example.test': [{ type: 'MX', priority: 5, exchange: 'mx2.example.test' }] } };
    await statusBecomes('up');
    dns.zone = { records: {} };
    await statusBecomes('down');
    const [latest] = await checks();
    expect(latest).toMatchObject({
      status: 'down',
      phase: 'dns',
      error: 'NXDOMAIN: the name does not exist (app.example.test MX)',
    });
  });
});
