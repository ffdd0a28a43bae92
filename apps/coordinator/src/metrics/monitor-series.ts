import { Inject, Injectable } from '@nestjs/common';
import { Gauge, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import {
  HEARTBEAT_REGION,
  isDecided,
  isProbedType,
  type MonitorSettings,
  type MonitorType,
  type ProbeResult,
  type ResultRegion,
} from '#contracts';
import { CLOCK, METRICS, type Clock, type Registry } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { METRICS_REGISTRY } from '../core.module.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import { effectiveStatus, type EffectiveStatus } from '../monitors/monitor-status.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { CoordinatorMetrics } from './coordinator-metrics.js';

/**
 * `picket_monitor_status` values: up and down as blackbox_exporter's probe_success reads (1, 0),
 * the two states that decide nothing above them (docs/decisions/0021-per-monitor-metrics-and-node-24.md).
 */
export const MONITOR_STATUS_VALUES: Readonly<Record<EffectiveStatus, number>> = {
  down: 0,
  up: 1,
  pending: 2,
  unknown: 3,
};

/** What the per-monitor series need of a monitor: the roster's own entity (its status is updated in place). */
export type SeriesMonitor = Pick<
  MonitorEntity,
  | 'id'
  | 'active'
  | 'monitorType'
  | 'regions'
  | 'settings'
  | 'lastStatus'
  | 'lastCheckedAt'
  | 'createdAt'
  | 'checkInterval'
>;

interface Entry {
  monitor: SeriesMonitor;
  type: MonitorType;
  /** The monitor's regions; for a heartbeat, HEARTBEAT_REGION (docs/decisions/0027-heartbeat-monitors.md). */
  regions: readonly ResultRegion[];
  /** Per region (the index in `regions`): 1 up, 0 down, NaN when the latest result decided nothing (or none yet). */
  success: Float64Array;
  /** Per region: seconds of the latest UP or DOWN check, NaN as above. */
  duration: Float64Array;
  /** notAfter of the latest certificate seen (Unix s), NaN when none or the monitor does not check it. */
  certNotAfter: number;
  checksCertificate: boolean;
}

/** A sample as prom-client formats it. */
type Sample<L extends string> = MetricValue<L>;

/** Where a monitor's results come from: its regions, or for a heartbeat the one pseudo-region. */
function regionsOf(monitor: SeriesMonitor): ResultRegion[] {
  return isProbedType(monitor.monitorType) ? [...monitor.regions] : [HEARTBEAT_REGION];
}

function checksCertificate(settings: MonitorSettings): boolean {
  return 'check_certificate_expiration' in settings && settings.check_certificate_expiration === true;
}

function sameRegions(a: readonly ResultRegion[], b: readonly ResultRegion[]): boolean {
  return a.length === b.length && a.every((region, i) => region === b[i]);
}

/**
 * The per-monitor series' values (METRICS_PER_MONITOR=true): the latest result per monitor and
 * region, kept in typed arrays so that recording a result allocates nothing; label objects are
 * built only when Prometheus scrapes. Holds exactly the active monitors the roster tracks: a
 * monitor deleted, paused or moved to another replica's partition loses its series at once, and
 * a region it no longer uses loses that region's.
 */
export class MonitorSeriesStore {
  private readonly entries = new Map<string, Entry>();

  /** Monitors with series. */
  get size(): number {
    return this.entries.size;
  }

  /** The roster tracks `monitor` (new or changed). A paused monitor has no series. */
  track(monitor: SeriesMonitor): void {
    if (!monitor.active) {
      this.entries.delete(monitor.id);
      return;
    }
    const old = this.entries.get(monitor.id);
    const certs = checksCertificate(monitor.settings);
    const regions = regionsOf(monitor);
    if (old && old.type === monitor.monitorType && sameRegions(old.regions, regions)) {
      old.monitor = monitor;
      old.checksCertificate = certs;
      if (!certs) old.certNotAfter = NaN;
      return;
    }
    const entry: Entry = {
      monitor,
      type: monitor.monitorType,
      regions,
      success: new Float64Array(regions.length).fill(NaN),
      duration: new Float64Array(regions.length).fill(NaN),
      certNotAfter: NaN,
      checksCertificate: certs,
    };
    if (old && old.type === monitor.monitorType) {
      // Same target kind, other regions: the regions kept keep their latest result.
      regions.forEach((region, i) => {
        const before = old.regions.indexOf(region);
        if (before < 0) return;
        entry.success[i] = old.success[before]!;
        entry.duration[i] = old.duration[before]!;
      });
      if (certs) entry.certNotAfter = old.certNotAfter;
    }
    this.entries.set(monitor.id, entry);
  }

  /** The roster no longer tracks the monitor here (deleted, or its partition moved). */
  untrack(monitorId: string): void {
    this.entries.delete(monitorId);
  }

  /** A result of a monitor this replica owns. The hot path: a map lookup and a few array writes. */
  record(result: ProbeResult): void {
    const entry = this.entries.get(result.monitor_id);
    if (entry === undefined) return;
    const i = entry.regions.indexOf(result.region);
    if (i < 0) return; // a check sent before the monitor left this region
    if (isDecided(result.status)) {
      entry.success[i] = result.status === 'up' ? 1 : 0;
      entry.duration[i] = (result.response_time_ms ?? result.timings.total_ms) / 1000;
    } else {
      // UNKNOWN and BLOCKED say nothing about the target: no sample, as uptime leaves them out.
      entry.success[i] = NaN;
      entry.duration[i] = NaN;
    }
    if (result.cert_not_after !== null && entry.checksCertificate) entry.certNotAfter = result.cert_not_after;
  }

  successSamples(): Sample<'monitor_id' | 'type' | 'region'>[] {
    return this.regionSamples((entry) => entry.success);
  }

  durationSamples(): Sample<'monitor_id' | 'type' | 'region'>[] {
    return this.regionSamples((entry) => entry.duration);
  }

  certificateSamples(): Sample<'monitor_id' | 'type'>[] {
    const samples: Sample<'monitor_id' | 'type'>[] = [];
    for (const [id, entry] of this.entries) {
      if (!Number.isNaN(entry.certNotAfter)) {
        samples.push({ labels: { monitor_id: id, type: entry.type }, value: entry.certNotAfter });
      }
    }
    return samples;
  }

  /** Each monitor's status as the API shows it at `nowSeconds` (MONITOR_STATUS_VALUES). */
  statusSamples(nowSeconds: number): Sample<'monitor_id' | 'type'>[] {
    const samples: Sample<'monitor_id' | 'type'>[] = [];
    for (const [id, entry] of this.entries) {
      const value = MONITOR_STATUS_VALUES[effectiveStatus(entry.monitor, nowSeconds)];
      samples.push({ labels: { monitor_id: id, type: entry.type }, value });
    }
    return samples;
  }

  private regionSamples(values: (entry: Entry) => Float64Array): Sample<'monitor_id' | 'type' | 'region'>[] {
    const samples: Sample<'monitor_id' | 'type' | 'region'>[] = [];
    for (const [id, entry] of this.entries) {
      const row = values(entry);
      for (let i = 0; i < entry.regions.length; i++) {
        const value = row[i]!;
        if (!Number.isNaN(value)) {
          samples.push({ labels: { monitor_id: id, type: entry.type, region: entry.regions[i]! }, value });
        }
      }
    }
    return samples;
  }
}

/**
 * A gauge whose samples are computed at scrape time from a snapshot function, bypassing
 * prom-client's per-label bookkeeping (which would hash a label object at every check).
 */
class SnapshotGauge<L extends string> extends Gauge<L> {
  constructor(
    registry: Registry,
    metric: { name: string; help: string; labelNames: readonly L[] },
    private readonly samples: () => Sample<L>[],
  ) {
    super({ name: metric.name, help: metric.help, labelNames: [...metric.labelNames], registers: [registry] });
  }

  override async get(): Promise<MetricObjectWithValues<MetricValue<L>>> {
    // The gauge itself holds no series (nothing is ever set on it): only its name, help and type.
    return { ...(await super.get()), values: this.samples() };
  }
}

/**
 * Wires the per-monitor series when METRICS_PER_MONITOR=true: follows the roster (what this
 * replica checks), receives results from the ingest stage through CoordinatorMetrics, and adds
 * the four gauges to /metrics. Off (the default), it does nothing at all.
 */
@Injectable()
export class MonitorSeries {
  readonly store: MonitorSeriesStore | null;

  constructor(
    config: CoordinatorConfig,
    @Inject(METRICS_REGISTRY) registry: Registry,
    roster: MonitorRoster,
    metrics: CoordinatorMetrics,
    @Inject(CLOCK) clock: Clock,
  ) {
    if (config.METRICS_PER_MONITOR !== 'true') {
      this.store = null;
      return;
    }
    const store = new MonitorSeriesStore();
    this.store = store;
    roster.onChange((change) => {
      if (change.kind === 'untracked') store.untrack(change.monitorId);
      else store.track(change.monitor);
    });
    new SnapshotGauge(registry, METRICS.monitorStatus, () => store.statusSamples(Math.floor(clock.now() / 1000)));
    new SnapshotGauge(registry, METRICS.monitorCheckSuccess, () => store.successSamples());
    new SnapshotGauge(registry, METRICS.monitorCheckDuration, () => store.durationSamples());
    new SnapshotGauge(registry, METRICS.monitorCertExpiry, () => store.certificateSamples());
    metrics.attachMonitorSeries(store);
  }
}
