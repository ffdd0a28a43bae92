import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { AgentsStore } from '../../apps/coordinator/src/agents/agents.store.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { AgentsRegistry } from '../../apps/coordinator/src/agents/agents.registry.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { describeWithNats, testNatsUrl } from '../support/nats.js';
import { startTestAgent, type RunningProcess } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

/**
 * NATS mode over the real NATS server: a coordinator and two agent processes serving
 * different regions. A monitor over both regions is checked from both; killing one agent
 * makes its region UNKNOWN and never marks the monitor down; a real outage still is.
 */
describeWithNats('probing over NATS with two agent processes', () => {
  const prefix = `test_${randomBytes(4).toString('hex')}`;
  const kinds = testDatabases();
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  const target = new SwitchableTarget();
  const agents: Record<string, RunningProcess> = {};
  let monitorId: string;

  const checks = async () => {
    await c.app.get(ResultsWriter).flush();
    return (await api.get(`/api/monitors/${monitorId}/checks?per_page=100`)).body.data.checks as any[];
  };
  const lastStatus = async () => (await api.get(`/api/monitors/${monitorId}`)).body.data.last_status as string;

  beforeAll(async () => {
    // The PostgreSQL variant when available: embedded mode already runs on SQLite.
    db = await kinds[kinds.length - 1]!.create();
    await target.start();
    const nats = { url: testNatsUrl()!, prefix };
    agents.a = startTestAgent(nats, 'agent-eu', 'eu-west-1');
    agents.b = startTestAgent(nats, 'agent-us', 'us-east-1');
    c = await startCoordinator(db.url, {
      env: { CHECKS_ENABLED: 'true', NATS_URL: testNatsUrl()!, NATS_SUBJECT_PREFIX: prefix },
    });
    api = (await c.newAccount('nats')).client;
    await waitFor(
      'both agents to send heartbeats',
      async () => {
        const counts = c.app.get(AgentsRegistry).countByRegion();
        return counts['eu-west-1'] === 1 && counts['us-east-1'] === 1 ? true : undefined;
      },
      120_000, // the first agent start may build dist/
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nagent a:\n${agents.a!.output()}\nagent b:\n${agents.b!.output()}`);
    });
    const created = await api.post('/api/monitors', {
      name: 'over nats',
      settings: { https: { url: target.url } },
      regions: ['eu-west-1', 'us-east-1'],
      check_interval: 10,
      timeout: 5,
      fail_threshold: 2,
    });
    monitorId = created.body.data.id;
  }, 180_000);

  afterAll(async () => {
    await Promise.all(Object.values(agents).map((a) => a.kill('SIGKILL')));
    await c?.close();
    await target.stop();
    await db?.drop();
  });

  it('checks the monitor from both regions (each region has its own agent)', async () => {
    const both = await waitFor('results from both regions', async () => {
      const found = (await checks()).filter((check) => check.status === 'up');
      return new Set(found.map((check) => check.region)).size === 2 ? found : undefined;
    });
    expect(await lastStatus()).toBe('up');
    const byRegion = Object.fromEntries(both.map((check) => [check.region, check]));
    expect(byRegion['eu-west-1']).toMatchObject({ status: 'up', http_status: 200 });
    expect(byRegion['us-east-1']).toMatchObject({ status: 'up', http_status: 200 });
    // Their heartbeats are recorded for `agents list` and the checker address list.
    const stored = await c.app.get(AgentsStore).list();
    expect(stored.map((a) => [a.agentId, a.regions])).toEqual([
      ['agent-eu', ['eu-west-1']],
      ['agent-us', ['us-east-1']],
    ]);
    const published = (await (await fetch(`${c.baseUrl}/web_api/checker_ip_addresses`)).json()) as {
      data: { regions: { id: string; ipv4: string[] }[] };
    };
    const eu = published.data.regions.find((r) => r.id === 'eu-west-1');
    expect(eu?.ipv4).toEqual(stored[0]?.ipv4);
  });

  it('a killed agent makes its region UNKNOWN, never DOWN, and the monitor stays up', async () => {
    expect(await agents.b!.kill('SIGKILL')).toBe('SIGKILL');
    const unknown = await waitFor('an UNKNOWN result from us-east-1', async () =>
      (await checks()).find((check) => check.region === 'us-east-1' && check.status === 'unknown'),
    );
    expect(unknown.error).toBe('no agent serves region us-east-1');
    // Another slot of the dead region passes: still UNKNOWN, still up, never a DOWN.
    await waitFor('another UNKNOWN result', async () => {
      const n = (await checks()).filter((check) => check.region === 'us-east-1' && check.status === 'unknown').length;
      return n >= 2 ? true : undefined;
    });
    expect((await checks()).some((check) => check.status === 'down')).toBe(false);
    expect(await lastStatus()).toBe('up');
    const metrics = await (await fetch(`${c.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/picket_unknown_results_total\{region="us-east-1",reason="no_responders"\} [1-9]/);
    expect(metrics).not.toMatch(/picket_status_changes_total\{to="down"\}/);
  });

  it('a real outage is still detected from the surviving region, and recovery too', async () => {
    await target.stop();
    await waitFor('last_status down', async () => ((await lastStatus()) === 'down' ? true : undefined));
    const downs = (await checks()).filter((check) => check.status === 'down');
    expect(downs.every((check) => check.region === 'eu-west-1')).toBe(true);
    await target.restart();
    await waitFor('last_status up', async () => ((await lastStatus()) === 'up' ? true : undefined));
    await c.app.get(ResultsWriter).flush();
    const stats = (await api.get(`/api/monitors/${monitorId}/stats?period=24h`)).body.data;
    const eu = stats.regions.find((r: { region: string }) => r.region === 'eu-west-1');
    const us = stats.regions.find((r: { region: string }) => r.region === 'us-east-1');
    expect(eu.failures).toBeGreaterThanOrEqual(2);
    expect(eu.uptime_percent).toBeLessThan(100);
    expect(us.failures).toBe(0);
    expect(us.unknowns).toBeGreaterThanOrEqual(2);
    const metrics = await (await fetch(`${c.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/picket_status_changes_total\{to="down"\} 1\b/);
    expect(metrics).toMatch(/picket_region_agents\{region="eu-west-1"\} 1\b/);
    // The killed agent drops out of the registry once its heartbeats are 30 s old.
    await waitFor(
      'the killed agent to be forgotten',
      async () => {
        const text = await (await fetch(`${c.baseUrl}/metrics`)).text();
        return /picket_region_agents\{region="us-east-1"\} 0\b/.test(text) ? true : undefined;
      },
      60_000,
    );
  });
});
