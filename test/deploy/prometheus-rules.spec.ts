import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { METRICS } from '#runtime';
import { REPO_ROOT } from '../support/processes.js';

/**
 * The alert rules shipped in deploy/prometheus: they name only metrics Picket exports, each is
 * documented in docs/operations.md, and promtool (when installed) accepts them and passes their
 * unit tests (picket-rules.test.yaml: the blind-state alerts fire on the series that mean it).
 */
const RULES = join(REPO_ROOT, 'deploy/prometheus/picket-rules.yaml');
const RULE_TESTS = join(REPO_ROOT, 'deploy/prometheus/picket-rules.test.yaml');
const OPERATIONS = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const groups = (parse(readFileSync(RULES, 'utf8')) as { groups: { name: string; rules: Rule[] }[] }).groups;
const rules = groups.flatMap((g) => g.rules);

/** Picket's metric names, and the series names Prometheus derives from histograms. */
const exported = new Set(
  Object.values(METRICS).flatMap((m) =>
    'buckets' in m ? [m.name, `${m.name}_bucket`, `${m.name}_count`, `${m.name}_sum`] : [m.name],
  ),
);

function promtool(): string | null {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? 'promtool' : null;
}
const tool = promtool();
if (!tool && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the Prometheus rule tests need promtool on this machine (Debian package prometheus)');
}
if (!tool) {
  process.stderr.write(
    '[picket tests] SKIPPING `promtool check rules` and `promtool test rules`: no promtool on this machine ' +
      '(install Debian package prometheus to run them).\n',
  );
}

describe('Prometheus alert rules (deploy/prometheus)', () => {
  it('has alerts, each with a severity, a summary and a unique name', () => {
    expect(rules.length).toBeGreaterThanOrEqual(10);
    for (const rule of rules) {
      expect(rule.labels?.severity).toMatch(/^(critical|warning)$/);
      expect(rule.annotations?.summary).toBeTruthy();
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('names only metrics Picket exports (a renamed metric breaks this test, not the alert in production)', () => {
    const named = rules.flatMap((r) => r.expr.match(/\bpicket_[a-z_]+\b/g) ?? []);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('covers the blind states: database, NATS, regions without agents, stale monitors, outage drops', () => {
    const exprs = rules.map((r) => r.expr).join('\n');
    for (const metric of [
      METRICS.databaseUp,
      METRICS.natsConnected,
      METRICS.regionAgents,
      METRICS.regionMonitors,
      METRICS.monitorsStale,
      METRICS.outageDropped,
      METRICS.transitionsPending,
    ]) {
      expect(exprs).toContain(metric.name);
    }
  });

  it('documents every alert in docs/operations.md', () => {
    expect(rules.map((r) => r.alert).filter((name) => !OPERATIONS.includes(`\`${name}\``))).toEqual([]);
  });

  (tool ? it : it.skip)('passes `promtool check rules` and the rules unit tests', () => {
    const check = spawnSync(tool!, ['check', 'rules', RULES], { encoding: 'utf8' });
    expect({ status: check.status, output: check.stdout + check.stderr }).toMatchObject({ status: 0 });
    expect(check.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    const test = spawnSync(tool!, ['test', 'rules', RULE_TESTS], { encoding: 'utf8' });
    expect({ status: test.status, output: test.stdout + test.stderr }).toMatchObject({ status: 0 });
  });
});
