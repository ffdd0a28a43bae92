import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { AgentsStore } from '../../apps/coordinator/src/agents/agents.store.js';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { MonitorEntity } from '../../apps/coordinator/src/monitors/monitor.entity.js';
import { MonitorsRepository } from '../../apps/coordinator/src/monitors/monitors.repository.js';
import { MonitorRoster } from '../../apps/coordinator/src/scheduling/monitor-roster.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

/**
 * Embedded mode end to end: one coordinator process checks a real local target from three
 * regions, with no NATS. The target goes down and comes back; the API, /checks, /stats
 * and /metrics all tell the story.
 */
describe('probing in embedded mode', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  const target = new SwitchableTarget();
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
    await target.start();
    c = await startCoordinator(db.url, { env: { CHECKS_ENABLED: 'true' } });
    api = (await c.newAccount('probing')).client;
    const created = await api.post('/api/monitors', {
      name: 'local target',
      settings: { https: { url: target.url } },
      regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'],
      check_interval: 10,
      timeout: 5,
      fail_threshold: 2,
    });
    expect(created.status).toBe(201);
    monitorId = created.body.data.id;
  });

  afterAll(async () => {
    await c?.close();
    await target.stop();
    await db?.drop();
  });

  it('checks the new monitor at once and marks it up', async () => {
    await statusBecomes('up');
    const [first] = await checks();
    expect(first).toMatchObject({ status: 'up', http_status: 200, error: null, phase: null });
    expect(first.timings.total_ms).toBeGreaterThanOrEqual(0);
    expect(c.app.get(MonitorRoster).size).toBe(1);
  });

  it('confirms an outage from a second region and marks the monitor down', async () => {
    const before = (await monitor()).last_status_change;
    await target.stop();
    await statusBecomes('down');
    const m = await monitor();
    expect(m.last_status_change).toBeGreaterThanOrEqual(before);
    const failures = (await checks()).filter((check) => check.status === 'down');
    expect(failures.length).toBeGreaterThanOrEqual(2);
    // fail_threshold 2 across regions: the two DOWN results that decided it came from two regions.
    expect(new Set(failures.slice(0, 2).map((check) => check.region)).size).toBe(2);
    expect(failures[0]).toMatchObject({ phase: 'connect', http_status: null });
  });

  it('marks it up again on the first UP after the target returns', async () => {
    await target.restart();
    await statusBecomes('up');
    expect((await checks())[0]).toMatchObject({ status: 'up' });
  });

  it('shows the outage in /stats and /metrics', async () => {
    await c.app.get(ResultsWriter).flush();
    const stats = (await api.get(`/api/monitors/${monitorId}/stats?period=24h`)).body.data;
    expect(stats.overall.failures).toBeGreaterThanOrEqual(2);
    expect(stats.overall.uptime_percent).toBeLessThan(100);
    expect(stats.overall.uptime_percent).toBeGreaterThan(0);
    const metrics = await (await fetch(`${c.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/picket_status_changes_total\{to="down"\} 1\b/);
    expect(metrics).toMatch(/picket_status_changes_total\{to="up"\} 2\b/);
    expect(metrics).toMatch(/picket_check_results_total\{region="[a-z0-9-]+",type="https",status="down"\} [1-9]/);
    expect(metrics).toMatch(/picket_monitors\{status="up"\} 1\b/);
    expect(metrics).toMatch(/picket_partitions_held 64\b/); // the lone replica schedules every partition
    expect(metrics).toMatch(/picket_results_pending 0\b/); // flushed above
    // The embedded agent is recorded like a remote one, for every region.
    const agents = await c.app.get(AgentsStore).list();
    expect(agents.map((a) => [a.agentId, a.regions.length])).toEqual([['embedded', 15]]);
    expect(metrics).toMatch(/picket_scheduler_lateness_seconds_count [1-9]/);
  });

  it('keeps checking a paused monitor, and stops checking a deleted one at once', async () => {
    expect((await api.post(`/api/monitors/${monitorId}/pause`)).status).toBe(200);
    const seen = target.requests;
    await waitFor('a check of the paused monitor', async () => (target.requests > seen ? true : undefined));
    expect((await api.delete(`/api/monitors/${monitorId}`)).status).toBe(204);
    expect(c.app.get(MonitorRoster).size).toBe(0);
  });

  it('resync brings in monitors created, changed and deleted behind its back (another replica, missed notices)', async () => {
    const roster = c.app.get(MonitorRoster);
    const repository = c.app.get(MonitorsRepository);
    const manager = c.app.get(Database).manager;
    const created = await api.post('/api/monitors', {
      name: 'known',
      settings: { https: { url: target.url } },
      regions: ['us-east-1'],
      check_interval: 300,
    });
    const known = created.body.data.id as string;
    expect(roster.size).toBe(1);
    const row = await manager.findOneByOrFail(MonitorEntity, { id: known });
    const ids = ['6f0000000000000000000001', '6f0000000000000000000002', '6f0000000000000000000003'];
    await manager.insert(
      MonitorEntity,
      ids.map((id) => ({ ...row, id, name: `behind ${id.slice(-1)}` })),
    );
    // Changed elsewhere: its new settings must replace the ones this replica holds.
    await manager.update(MonitorEntity, { id: known }, { checkInterval: 600, updatedAt: row.updatedAt + 1 });
    await roster.resync();
    expect(roster.size).toBe(4);
    await manager.delete(MonitorEntity, { id: ids[1] });
    await roster.resync();
    expect(roster.size).toBe(3);
    expect(roster.get(ids[1]!)).toBeUndefined();
    expect(roster.get(known)?.checkInterval).toBe(600);

    // Reading them all goes page by page, in id order, each monitor once.
    const pages: string[][] = [];
    for await (const page of repository.pagesOfAll(2)) pages.push(page.map((m) => m.id));
    expect(pages.map((p) => p.length)).toEqual([2, 1]);
    expect(pages.flat()).toEqual([...new Set([known, ids[0]!, ids[2]!])].sort());
  });
});
