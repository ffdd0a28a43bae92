import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { waitFor } from '../support/wait.js';

/**
 * A slow region's result that arrives after a newer check of the monitor was applied is stored
 * but not evaluated, and counted in picket_results_late_total (what the adversity benchmark
 * reads). Two regions 5 s apart; the target answers every other request after 7 s, so each
 * slow check's answer lands after the next region's fast one.
 */
describe('late results', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let target: Server;
  let requests = 0;

  beforeAll(async () => {
    target = createServer((_req, res) => {
      if (requests++ % 2 === 0) setTimeout(() => res.end('slow'), 7000);
      else res.end('fast');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, { env: { CHECKS_ENABLED: 'true' } });
    api = (await c.newAccount('late')).client;
  });

  afterAll(async () => {
    await c?.close();
    target.closeAllConnections();
    target.close();
    await db?.drop();
  });

  it('are counted by region and status, and change nothing', async () => {
    const created = await api.post('/api/monitors', {
      name: 'slow every other time',
      settings: { https: { url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/` } },
      regions: ['us-east-1', 'eu-west-1'],
      check_interval: 10,
      timeout: 9,
      fail_threshold: 2,
    });
    expect(created.status).toBe(201);
    const late = await waitFor(
      'a late result to be counted',
      async () => {
        const text = await (await fetch(`${c.baseUrl}/metrics`)).text();
        return /^picket_results_late_total\{region="(us-east-1|eu-west-1)",status="up"\} [1-9]/m.exec(text)?.[0];
      },
      45_000,
    );
    expect(late).toBeDefined();
    const monitor = await api.get(`/api/monitors/${created.body.data.id as string}`);
    expect(monitor.body.data.last_status).toBe('up');
  }, 60_000);
});
