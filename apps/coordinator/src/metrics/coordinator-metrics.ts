import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import {
  isRegionId,
  REGION_IDS,
  type MonitorRegionId,
  type MonitorType,
  type ProbeResult,
  type RegionId,
  type ResultRegion,
} from '#contracts';
import {
  counter,
  latencyHistogram,
  METRICS,
  probeDurationHistogram,
  probesInFlightGauge,
  type Registry,
} from '#runtime';
import { METRICS_REGISTRY } from '../core.module.js';
import type { TransportFailure } from '../probing/probe-transport.js';
import type { MonitorSeriesStore } from './monitor-series.js';

/**
 * The `region` label: a public region or the heartbeat pseudo-region as it is; every private
 * region as `private` (their ids are the accounts' own, unbounded; 0030-private-regions.md).
 */
function regionLabel(region: ResultRegion): string {
  return isRegionId(region) || region === 'heartbeat' ? region : 'private';
}

/** The coordinator's Prometheus metrics (names from libs/runtime/src/metrics.ts). */
@Injectable()
export class CoordinatorMetrics {
  private readonly probeDuration;
  private readonly checkResults;
  private readonly unknownResults;
  private readonly dispatchErrors;
  private readonly statusChanges;
  private readonly lateness;
  private readonly outageDropped;
  private readonly lateResults;
  private readonly batchChecks;
  private readonly batchFallbacks;
  /** The per-monitor series, when METRICS_PER_MONITOR=true (MonitorSeries attaches them). */
  private monitorSeries: MonitorSeriesStore | null = null;

  constructor(@Inject(METRICS_REGISTRY) readonly registry: Registry) {
    this.probeDuration = probeDurationHistogram(registry);
    this.checkResults = counter(registry, METRICS.checkResults);
    this.unknownResults = counter(registry, METRICS.unknownResults);
    this.dispatchErrors = counter(registry, METRICS.dispatchErrors);
    this.statusChanges = counter(registry, METRICS.statusChanges);
    this.lateness = latencyHistogram(registry, METRICS.schedulerLateness);
    this.outageDropped = counter(registry, METRICS.outageDropped);
    this.lateResults = counter(registry, METRICS.lateResults);
    this.batchChecks = latencyHistogram(registry, METRICS.probeBatchChecks);
    this.batchFallbacks = counter(registry, METRICS.probeBatchFallbacks);
  }

  /** Checks run by this process itself (embedded mode). */
  recordProbe(result: ProbeResult, type: MonitorType): void {
    this.probeDuration.observe(
      { region: regionLabel(result.region), type, result: result.status },
      result.timings.total_ms / 1000,
    );
  }

  recordResult(result: ProbeResult, type: MonitorType): void {
    this.checkResults.inc({ region: regionLabel(result.region), type, status: result.status });
    if (result.status === 'unknown' && result.agent_id !== 'coordinator') {
      this.unknownResults.inc({ region: regionLabel(result.region), reason: 'agent' });
    }
  }

  attachMonitorSeries(store: MonitorSeriesStore): void {
    this.monitorSeries = store;
  }

  /** A result of a monitor this replica owns: its per-monitor series, when enabled (a no-op otherwise). */
  recordMonitorResult(result: ProbeResult): void {
    this.monitorSeries?.record(result);
  }

  recordTransportFailure(failure: TransportFailure, region: MonitorRegionId): void {
    this.unknownResults.inc({ region: regionLabel(region), reason: failure });
    this.dispatchErrors.inc({ reason: failure });
  }

  /** A batch of `checks` sent to a region's agents (NATS mode). */
  recordBatch(checks: number): void {
    this.batchChecks.observe(checks);
  }

  /** A batch no agent took: its checks went one by one. */
  recordBatchFallback(): void {
    this.batchFallbacks.inc();
  }

  recordDispatchError(reason: string): void {
    this.dispatchErrors.inc({ reason });
  }

  recordLateness(lateMs: number): void {
    this.lateness.observe(lateMs / 1000);
  }

  recordStatusChange(to: string): void {
    this.statusChanges.inc({ to });
  }

  trackInFlight(read: () => number): void {
    probesInFlightGauge(this.registry, read);
  }

  /**
   * `picket_monitors{status}` and `picket_monitors_stale` (the `unknown` ones) from one read per
   * scrape: the registry collects gauges in registration order, so the second reports what the
   * first just counted instead of walking every monitor again.
   */
  trackMonitors(read: () => Record<string, number>): void {
    let counts: Record<string, number> = {};
    new Gauge({
      name: METRICS.monitorsByStatus.name,
      help: METRICS.monitorsByStatus.help,
      labelNames: [...METRICS.monitorsByStatus.labelNames],
      registers: [this.registry],
      collect() {
        counts = read();
        for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
      },
    });
    this.plainGauge(METRICS.monitorsStale, () => counts.unknown ?? 0);
  }

  /** A decided result that arrived after a newer check of its monitor had been applied. */
  recordLate(region: ResultRegion, status: 'up' | 'down'): void {
    this.lateResults.inc({ region: regionLabel(region), status });
  }

  /** Results or status changes dropped because the outage buffer was full. */
  recordOutageDrop(kind: 'results' | 'transitions', count: number): void {
    this.outageDropped.inc({ kind }, count);
  }

  trackTransitionsPending(read: () => number): void {
    this.plainGauge(METRICS.transitionsPending, read);
  }

  trackPartitions(read: () => number): void {
    this.plainGauge(METRICS.partitionsHeld, read);
  }

  trackResultsPending(read: () => number): void {
    this.plainGauge(METRICS.resultsPending, read);
  }

  /** A gauge without labels, read at each scrape. */
  private plainGauge(metric: { name: string; help: string }, read: () => number): void {
    new Gauge({
      name: metric.name,
      help: metric.help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  trackAgents(read: () => Readonly<Partial<Record<RegionId, number>>>): void {
    this.regionGauge(METRICS.regionAgents, read);
  }

  trackRegionMonitors(read: () => Readonly<Partial<Record<RegionId, number>>>): void {
    this.regionGauge(METRICS.regionMonitors, read);
  }

  /** A gauge with one series per region (all fifteen, 0 where the reading has none), read at each scrape. */
  private regionGauge(
    metric: { name: string; help: string; labelNames: readonly ['region'] },
    read: () => Readonly<Partial<Record<RegionId, number>>>,
  ): void {
    new Gauge({
      name: metric.name,
      help: metric.help,
      labelNames: [...metric.labelNames],
      registers: [this.registry],
      collect() {
        const counts = read();
        for (const region of REGION_IDS) this.set({ region }, counts[region] ?? 0);
      },
    });
  }
}
