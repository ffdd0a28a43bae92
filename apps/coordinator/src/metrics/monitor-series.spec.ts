import { describe, expect, it } from '@jest/globals';
import type { ProbeResult, RegionId } from '#contracts';
import { createRegistry, ManualClock } from '#runtime';
import { probeResult } from '../../../../test/support/check-results.js';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import { partitionOf } from '../cluster/partitions.js';
import { heartbeatResult } from '../heartbeats/heartbeat.js';
import { loadCoordinatorConfig } from '../config.js';
import { CoordinatorMetrics } from './coordinator-metrics.js';
import { MONITOR_STATUS_VALUES, MonitorSeries, MonitorSeriesStore } from './monitor-series.js';

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);
const NOW_S = 1_800_000_000;

/** The store's samples as `name{labels} value` lines, sorted: what /metrics would show. */
function lines(store: MonitorSeriesStore): string[] {
  const out: string[] = [];
  const add = (name: string, samples: { labels: Record<string, unknown>; value: number }[]) => {
    for (const s of samples) {
      const labels = Object.entries(s.labels)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(',');
      out.push(`${name}{${labels}} ${s.value}`);
    }
  };
  add('success', store.successSamples());
  add('duration', store.durationSamples());
  add('cert', store.certificateSamples());
  add('status', store.statusSamples(NOW_S));
  return out.sort();
}

function withCert(result: ProbeResult, notAfter: number): ProbeResult {
  return { ...result, cert_not_after: notAfter };
}

describe('MonitorSeriesStore', () => {
  it('keeps the latest result per region: 1 for UP, 0 for DOWN, the duration in seconds', () => {
    const store = new MonitorSeriesStore();
    store.track(monitorEntity(A, { regions: ['eu-west-1', 'us-east-1'], lastStatus: 'up', lastCheckedAt: NOW_S }));
    store.record(probeResult(A, 'eu-west-1', 'down', 40));
    store.record(probeResult(A, 'eu-west-1', 'up', 120));
    store.record(probeResult(A, 'us-east-1', 'down', 2500));
    expect(lines(store)).toEqual([
      `duration{monitor_id=${A},type=https,region=eu-west-1} 0.12`,
      `duration{monitor_id=${A},type=https,region=us-east-1} 2.5`,
      `status{monitor_id=${A},type=https} 1`,
      `success{monitor_id=${A},type=https,region=eu-west-1} 1`,
      `success{monitor_id=${A},type=https,region=us-east-1} 0`,
    ]);
  });

  it('shows a heartbeat monitor under its one pseudo-region, heartbeat', () => {
    const store = new MonitorSeriesStore();
    const settings = { period: 60, grace: 60 };
    store.track(
      monitorEntity(A, { monitorType: 'heartbeat', settings, regions: [], lastStatus: 'up', lastCheckedAt: 1 }),
    );
    store.record(heartbeatResult(A, { kind: 'ping' }, NOW_S * 1000));
    expect(lines(store)).toEqual([
      `duration{monitor_id=${A},type=heartbeat,region=heartbeat} 0`,
      `status{monitor_id=${A},type=heartbeat} 1`,
      `success{monitor_id=${A},type=heartbeat,region=heartbeat} 1`,
    ]);
    store.record(heartbeatResult(A, { kind: 'missed', silentFor: 120 }, NOW_S * 1000 + 1));
    expect(lines(store)).toContain(`success{monitor_id=${A},type=heartbeat,region=heartbeat} 0`);
  });

  it.each([['unknown'], ['blocked']] as const)(
    'drops the region’s samples after a %s result (it says nothing about the target), until the next decided one',
    (status) => {
      const store = new MonitorSeriesStore();
      store.track(monitorEntity(A, { regions: ['eu-west-1'] }));
      store.record(probeResult(A, 'eu-west-1', 'up', 10));
      store.record(probeResult(A, 'eu-west-1', status, null));
      expect(store.successSamples()).toEqual([]);
      expect(store.durationSamples()).toEqual([]);
      store.record(probeResult(A, 'eu-west-1', 'down', 30));
      expect(store.successSamples()).toEqual([
        { labels: { monitor_id: A, type: 'https', region: 'eu-west-1' }, value: 0 },
      ]);
    },
  );

  it.each([
    ['pending, checked recently', { lastStatus: 'pending', lastCheckedAt: null, createdAt: NOW_S - 10 }, 'pending'],
    ['up', { lastStatus: 'up', lastCheckedAt: NOW_S - 60 }, 'up'],
    ['down', { lastStatus: 'down', lastCheckedAt: NOW_S - 60 }, 'down'],
    ['up but unseen for over 3 intervals', { lastStatus: 'up', lastCheckedAt: NOW_S - 181 }, 'unknown'],
  ] as const)('reports the status as the API shows it: %s', (_name, fields, shown) => {
    const store = new MonitorSeriesStore();
    store.track(monitorEntity(A, { checkInterval: 60, ...fields }));
    expect(store.statusSamples(NOW_S)).toEqual([
      { labels: { monitor_id: A, type: 'https' }, value: MONITOR_STATUS_VALUES[shown] },
    ]);
  });

  it('follows the roster’s entity: a status recorded on it shows at the next scrape', () => {
    const store = new MonitorSeriesStore();
    const monitor = monitorEntity(A, { lastStatus: 'up', lastCheckedAt: NOW_S });
    store.track(monitor);
    monitor.lastStatus = 'down';
    expect(store.statusSamples(NOW_S)[0]?.value).toBe(0);
  });

  it('keeps the certificate expiry only for a monitor that checks it', () => {
    const store = new MonitorSeriesStore();
    const settings = { url: 'https://example.test/', check_certificate_expiration: true };
    store.track(monitorEntity(A, { settings }));
    store.track(monitorEntity(B));
    store.record(withCert(probeResult(A, 'eu-west-1', 'up', 10), 1_900_000_000));
    store.record(withCert(probeResult(B, 'eu-west-1', 'up', 10), 1_900_000_000));
    expect(store.certificateSamples()).toEqual([{ labels: { monitor_id: A, type: 'https' }, value: 1_900_000_000 }]);
    // Turned off: the value goes at once, not at the next check.
    store.track(monitorEntity(A, { settings: { url: 'https://example.test/' } }));
    expect(store.certificateSamples()).toEqual([]);
  });

  it('has no series for a paused monitor, nor for one it was never told about', () => {
    const store = new MonitorSeriesStore();
    store.track(monitorEntity(A));
    store.record(probeResult(A, 'eu-west-1', 'up', 10));
    store.track(monitorEntity(A, { active: false }));
    store.record(probeResult(A, 'eu-west-1', 'up', 10));
    store.record(probeResult(B, 'eu-west-1', 'up', 10));
    expect(lines(store)).toEqual([]);
    expect(store.size).toBe(0);
  });

  it('on a change of regions keeps the regions kept, drops the others, and ignores late results of a dropped one', () => {
    const store = new MonitorSeriesStore();
    store.track(monitorEntity(A, { regions: ['eu-west-1', 'us-east-1'] }));
    store.record(probeResult(A, 'eu-west-1', 'up', 10));
    store.record(probeResult(A, 'us-east-1', 'down', 20));
    store.track(monitorEntity(A, { regions: ['us-east-1', 'sa-east-1'] as RegionId[] }));
    store.record(probeResult(A, 'eu-west-1', 'up', 10)); // sent before the change
    expect(store.successSamples()).toEqual([
      { labels: { monitor_id: A, type: 'https', region: 'us-east-1' }, value: 0 },
    ]);
  });

  it('starts over when the monitor changes type', () => {
    const store = new MonitorSeriesStore();
    store.track(monitorEntity(A));
    store.record(probeResult(A, 'eu-west-1', 'up', 10));
    store.track(monitorEntity(A, { monitorType: 'tcp', settings: { url: 'tcp://example.test:22' } }));
    expect(store.successSamples()).toEqual([]);
    expect(store.statusSamples(NOW_S)[0]?.labels).toEqual({ monitor_id: A, type: 'tcp' });
  });
});

describe('MonitorSeries (METRICS_PER_MONITOR)', () => {
  const wire = (perMonitor: 'true' | 'false', ...monitors: ReturnType<typeof monitorEntity>[]) => {
    const registry = createRegistry();
    const metrics = new CoordinatorMetrics(registry);
    const { roster, partitions, table } = rosterWith();
    const series = new MonitorSeries(
      loadCoordinatorConfig({ METRICS_PER_MONITOR: perMonitor }),
      registry,
      roster,
      metrics,
      new ManualClock(NOW_S * 1000),
    );
    table.put(...monitors);
    for (const monitor of monitors) roster.apply({ kind: 'saved', monitor });
    return { registry, metrics, roster, partitions, series };
  };

  it('is off by default: no per-monitor series and recording is a no-op', async () => {
    expect(loadCoordinatorConfig({}).METRICS_PER_MONITOR).toBe('false');
    const { registry, metrics, series } = wire('false', monitorEntity(A));
    metrics.recordMonitorResult(probeResult(A, 'eu-west-1', 'up', 10));
    expect(series.store).toBeNull();
    expect(await registry.metrics()).not.toMatch(/picket_monitor_/);
  });

  it('refuses a value other than true or false at boot, naming the variable', () => {
    expect(() => loadCoordinatorConfig({ METRICS_PER_MONITOR: 'yes' })).toThrow(/METRICS_PER_MONITOR/);
  });

  it('serves the series of the roster’s monitors and removes them when the monitor leaves this replica', async () => {
    const { registry, metrics, roster } = wire(
      'true',
      monitorEntity(A, { lastStatus: 'up', lastCheckedAt: NOW_S }),
      monitorEntity(B, { createdAt: NOW_S }),
    );
    metrics.recordMonitorResult(probeResult(A, 'eu-west-1', 'up', 250));
    metrics.recordMonitorResult(probeResult(B, 'us-east-1', 'down', 30));
    let text = await registry.metrics();
    expect(text).toContain(`picket_monitor_check_success{monitor_id="${A}",type="https",region="eu-west-1"} 1`);
    expect(text).toContain(
      `picket_monitor_check_duration_seconds{monitor_id="${A}",type="https",region="eu-west-1"} 0.25`,
    );
    expect(text).toContain(`picket_monitor_check_success{monitor_id="${B}",type="https",region="us-east-1"} 0`);
    expect(text).toContain(`picket_monitor_status{monitor_id="${A}",type="https"} 1`);
    expect(text).toContain(`picket_monitor_status{monitor_id="${B}",type="https"} 2`);
    // Deleted through the API:
    roster.apply({ kind: 'deleted', monitorId: B });
    text = await registry.metrics();
    expect(text).not.toContain(B);
    // Its partition leased to another replica:
    roster.release([partitionOf(A)]);
    text = await registry.metrics();
    expect(text).not.toContain(A);
    expect(text).toContain('# TYPE picket_monitor_check_success gauge');
  });

  it('removes a paused monitor’s series', async () => {
    const { registry, metrics, roster } = wire('true', monitorEntity(A));
    metrics.recordMonitorResult(probeResult(A, 'eu-west-1', 'up', 250));
    roster.apply({ kind: 'saved', monitor: monitorEntity(A, { active: false }) });
    expect(await registry.metrics()).not.toContain(A);
  });
});
