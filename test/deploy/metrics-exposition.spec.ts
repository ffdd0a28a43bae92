import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { METRICS } from '#runtime';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { testNatsUrl } from '../support/nats.js';
import { REPO_ROOT } from '../support/processes.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

/**
 * What Prometheus and Grafana get from Picket, checked against the real thing: both apps'
 * /metrics (a coordinator checking a monitor with METRICS_PER_MONITOR=true, and an agent) pass
 * `promtool check metrics`, and every metric the shipped alert rules (deploy/prometheus) and
 * dashboard (deploy/grafana) use is in that exposition, so renaming a metric breaks this test
 * rather than a dashboard in production.
 */
const RULES = join(REPO_ROOT, 'deploy/prometheus/picket-rules.yaml');
const DASHBOARD = join(REPO_ROOT, 'deploy/grafana/picket-dashboard.json');

const promtoolFound = spawnSync('promtool', ['--version']).status === 0;
if (!promtoolFound && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the exposition tests need promtool on this machine (Debian package prometheus)');
}
if (!promtoolFound) {
  process.stderr.write(
    '[picket tests] SKIPPING `promtool check metrics` of both apps: no promtool on this machine ' +
      '(install Debian package prometheus to run it).\n',
  );
}

/** `promtool check metrics` on `text`: its exit status and everything it printed. */
function promtoolCheck(text: string): { status: number | null; problems: string } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: run.status, problems: (run.stdout + run.stderr).trim() };
}

/** The series names an exposition declares (# TYPE), with the ones Prometheus derives from histograms. */
function seriesNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

/** Metric names in a PromQL expression: Picket's, Node's and the process collector's. */
function metricNamesIn(expr: string): string[] {
  return expr.match(/\b(?:picket|process|nodejs)_[a-z0-9_]+\b/g) ?? [];
}

interface Target {
  expr: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  title: string;
  uid: string;
  schemaVersion: number;
  time: { from: string; to: string };
  templating: { list: { name: string; type: string; query: unknown }[] };
  panels: Panel[];
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dashboardExprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
const ruleExprs = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: { expr: string }[] }[] }).groups.flatMap(
  (g) => g.rules.map((r) => r.expr),
);

describe('Grafana dashboard (deploy/grafana/picket-dashboard.json)', () => {
  it('has the dashboard model’s shape: title, uid, schema version, time range, panels on a 24-column grid', () => {
    expect(dashboard.title).toBeTruthy();
    expect(dashboard.uid).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(Number.isInteger(dashboard.schemaVersion) && dashboard.schemaVersion >= 30).toBe(true);
    expect(dashboard.time).toEqual({ from: expect.any(String), to: expect.any(String) });
    expect(panels.length).toBeGreaterThan(10);
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const p of panels) {
      expect(typeof p.title).toBe('string');
      expect(['row', 'stat', 'timeseries', 'table', 'state-timeline', 'gauge', 'bargauge']).toContain(p.type);
      const { x, y, w, h } = p.gridPos;
      expect([x, y, w, h].every(Number.isInteger) && x >= 0 && w > 0 && h > 0 && x + w <= 24).toBe(true);
    }
  });

  it('takes its Prometheus data source from a template variable, in every panel and query', () => {
    const variable = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(variable).toMatchObject({ name: 'datasource', query: 'prometheus' });
    for (const p of panels.filter((panel) => panel.type !== 'row')) {
      expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.targets?.length).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.datasource).toEqual(p.datasource);
    }
  });

  it('shows the self-monitoring series and every per-monitor series', () => {
    const used = new Set(dashboardExprs.flatMap(metricNamesIn));
    for (const metric of [
      METRICS.monitorStatus,
      METRICS.monitorCheckSuccess,
      METRICS.monitorCheckDuration,
      METRICS.monitorCertExpiry,
      METRICS.checkResults,
      METRICS.unknownResults,
      METRICS.monitorsByStatus,
      METRICS.regionAgents,
      METRICS.partitionsHeld,
      METRICS.databaseUp,
      METRICS.natsConnected,
    ]) {
      expect(`${metric.name}: ${used.has(metric.name)}`).toBe(`${metric.name}: true`);
    }
  });
});

describe('the apps’ real /metrics', () => {
  let db: TestDatabase;
  let coordinator: RunningCoordinator;
  let agent: NestFastifyApplication;
  let api: ApiClient;
  const target = new SwitchableTarget();
  let monitorId: string;
  const scrape = async (base: string) => (await fetch(`${base}/metrics`)).text();
  let coordinatorText: string;
  let agentText: string;

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    await target.start();
    coordinator = await startCoordinator(db.url, { env: { CHECKS_ENABLED: 'true', METRICS_PER_MONITOR: 'true' } });
    api = (await coordinator.newAccount('metrics')).client;
    const created = await api.post('/api/monitors', {
      name: 'local target',
      settings: { https: { url: target.url } },
      regions: ['us-east-1', 'eu-west-1'],
      check_interval: 10,
      timeout: 5,
    });
    expect(created.status).toBe(201);
    monitorId = created.body.data.id;
    // Without a NATS server the agent keeps trying to connect, and serves /metrics meanwhile.
    // Imported only now: jest's ES module loader fails when both apps load Nest at once.
    const { createAgentApp } = await import('../../apps/agent/src/app.js');
    const { loadAgentConfig } = await import('../../apps/agent/src/config.js');
    agent = await createAgentApp(
      loadAgentConfig({
        NATS_URL: testNatsUrl() ?? 'nats://127.0.0.1:1',
        NATS_SUBJECT_PREFIX: `exposition_${process.pid}`,
        AGENT_ID: 'exposition-agent',
        AGENT_REGIONS: 'eu-west-1',
      }),
      { logger: false },
    );
    await agent.listen(0, '127.0.0.1');
    const address = agent.getHttpServer().address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    agentText = await scrape(`http://127.0.0.1:${address.port}`);
    // The series the test reads: the monitor up (status) after a check from us-east-1 (the first
    // check of a monitor may come from any of its regions).
    coordinatorText = await waitFor(
      'a check of the monitor from us-east-1 in /metrics',
      async () => {
        const text = await scrape(coordinator.baseUrl);
        const fromUsEast = /^picket_monitor_check_success\{[^}]*region="us-east-1"\} 1$/m.test(text);
        return fromUsEast && /^picket_monitor_status\{[^}]+\} 1$/m.test(text) ? text : undefined;
      },
      40_000,
    );
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    await coordinator?.close();
    await target.stop();
    await db?.drop();
  });

  it('the coordinator shows the monitor’s series, labelled by id, type and region only', () => {
    const labels = `monitor_id="${monitorId}",type="https"`;
    expect(coordinatorText).toMatch(new RegExp(`^picket_monitor_status\\{${labels}\\} 1$`, 'm'));
    expect(coordinatorText).toMatch(
      new RegExp(`^picket_monitor_check_success\\{${labels},region="us-east-1"\\} 1$`, 'm'),
    );
    expect(coordinatorText).toMatch(
      new RegExp(`^picket_monitor_check_duration_seconds\\{${labels},region="us-east-1"\\} [0-9.e-]+$`, 'm'),
    );
    expect(coordinatorText).not.toContain('local target');
    expect(coordinatorText).not.toContain(target.url);
  });

  (promtoolFound ? it : it.skip)('`promtool check metrics` finds no problem in either app’s exposition', () => {
    expect(promtoolCheck(coordinatorText)).toEqual({ status: 0, problems: '' });
    expect(promtoolCheck(agentText)).toEqual({ status: 0, problems: '' });
  });

  (promtoolFound ? it : it.skip)('the promtool check is real: it reports a gauge named like a counter', () => {
    const broken = `${agentText}# HELP picket_broken_total x\n# TYPE picket_broken_total gauge\npicket_broken_total 1\n`;
    expect(promtoolCheck(broken).problems).toContain('picket_broken_total');
  });

  it('every metric the alert rules and the dashboard use is in the exposition', () => {
    const exported = new Set([...seriesNames(coordinatorText), ...seriesNames(agentText)]);
    const used = new Set([...ruleExprs, ...dashboardExprs].flatMap(metricNamesIn));
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
    // Prometheus' own `up` is the only other series they use.
    const others = [...ruleExprs, ...dashboardExprs].flatMap((e) => e.match(/\bup\{/g) ?? []);
    expect(others.length).toBeGreaterThan(0);
  });

  it('a paused monitor, then a deleted one, loses its series at once', async () => {
    expect((await api.post(`/api/monitors/${monitorId}/pause`, {})).status).toBe(200);
    expect(await scrape(coordinator.baseUrl)).not.toContain(monitorId);
    expect((await api.post(`/api/monitors/${monitorId}/resume`, {})).status).toBe(200);
    expect(await scrape(coordinator.baseUrl)).toMatch(
      new RegExp(`^picket_monitor_status\\{monitor_id="${monitorId}"`, 'm'),
    );
    expect((await api.delete(`/api/monitors/${monitorId}`)).status).toBe(204);
    expect(await scrape(coordinator.baseUrl)).not.toContain(monitorId);
  });
});
