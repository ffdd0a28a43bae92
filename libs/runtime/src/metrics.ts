import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every Prometheus metric Picket exports, named once. Each process builds the ones it uses
 * into its own registry; `/metrics` serves that registry.
 */
export const METRICS = {
  probeDuration: {
    name: 'picket_probe_duration_seconds',
    help: 'Duration of checks run by this process, by region, monitor type and result (up, down, unknown).',
    labelNames: ['region', 'type', 'result'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  },
  probesInFlight: {
    name: 'picket_probes_in_flight',
    help: 'Checks running in this process right now.',
  },
  natsConnected: {
    name: 'picket_nats_connected',
    help: '1 while this process is connected to NATS, 0 while it is connecting or reconnecting (only where NATS_URL is set).',
  },
  checkResults: {
    name: 'picket_check_results_total',
    help: 'Check results received by the coordinator, by region, monitor type and status.',
    labelNames: ['region', 'type', 'status'] as const,
  },
  unknownResults: {
    name: 'picket_unknown_results_total',
    help: 'UNKNOWN check results by region and reason (no_responders, timeout, transport, agent).',
    labelNames: ['region', 'reason'] as const,
  },
  lateResults: {
    name: 'picket_results_late_total',
    help: 'UP and DOWN results not evaluated because a newer check of the same monitor was already applied (a slow region; still stored), by region and status.',
    labelNames: ['region', 'status'] as const,
  },
  dispatchErrors: {
    name: 'picket_dispatch_errors_total',
    help: 'Checks that could not be dispatched or answered, by reason.',
    labelNames: ['reason'] as const,
  },
  probeBatchChecks: {
    name: 'picket_probe_batch_checks',
    help: 'Checks per batch message sent to agents (NATS mode, PROBE_BATCH_WINDOW_MS > 0).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 100],
  },
  probeBatchFallbacks: {
    name: 'picket_probe_batch_fallbacks_total',
    help: "Batches no agent took (agents of an older version or credentials without batches): their checks went one by one, and so do the region's for 30 s.",
    labelNames: [] as const,
  },
  schedulerLateness: {
    name: 'picket_scheduler_lateness_seconds',
    help: 'How late checks were dispatched compared with their schedule.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
  },
  monitorsByStatus: {
    name: 'picket_monitors',
    help: 'Monitors scheduled by this coordinator, by last_status.',
    labelNames: ['status'] as const,
  },
  regionAgents: {
    name: 'picket_region_agents',
    help: 'Live agents per region (heartbeat within the last 30 s; the embedded agent counts for every region). 0 for a region monitors use means their checks there are UNKNOWN.',
    labelNames: ['region'] as const,
  },
  regionMonitors: {
    name: 'picket_region_monitors',
    help: 'Monitors scheduled by this coordinator that are checked from each region. Above 0 where picket_region_agents is 0 means those checks are UNKNOWN.',
    labelNames: ['region'] as const,
  },
  monitorsStale: {
    name: 'picket_monitors_stale',
    help: 'Monitors scheduled by this coordinator with no UP or DOWN result for more than 3 check intervals (shown as last_status "unknown").',
  },
  databaseUp: {
    name: 'picket_database_up',
    help: '1 when the database answered the last probe (at most a second old when scraped), 0 otherwise.',
  },
  transitionsPending: {
    name: 'picket_transitions_pending',
    help: 'Status changes decided but not yet written (held in memory while the database is unreachable).',
  },
  outageDropped: {
    name: 'picket_outage_dropped_total',
    help: 'Check results and status changes dropped because the outage buffer was full (kind = results | transitions).',
    labelNames: ['kind'] as const,
  },
  deliveries: {
    name: 'picket_notification_deliveries_total',
    help: 'Notification delivery attempts by channel and outcome (ok, retry, disable, bug, config).',
    labelNames: ['channel', 'outcome'] as const,
  },
  outboxPending: {
    name: 'picket_outbox_pending',
    help: 'Notifications waiting in the outbox (due or scheduled for a retry).',
  },
  outboxOldest: {
    name: 'picket_outbox_oldest_seconds',
    help: 'Age of the oldest notification still waiting in the outbox.',
  },
  contactsDeactivated: {
    name: 'picket_contacts_deactivated_total',
    help: 'Contacts deactivated after consecutive failed deliveries.',
  },
  resultsPending: {
    name: 'picket_results_pending',
    help: 'Check results received and not yet stored (the ResultsWriter buffer; grows while the database is slow or down).',
  },
  partitionsHeld: {
    name: 'picket_partitions_held',
    help: 'Partitions of the monitors this coordinator replica schedules now (of 64 in all replicas together).',
  },
  statusChanges: {
    name: 'picket_status_changes_total',
    help: 'Monitor status transitions, by new status.',
    labelNames: ['to'] as const,
  },
  // Per-monitor series: only with METRICS_PER_MONITOR=true, only for the active monitors this
  // replica checks (docs/decisions/0021-per-monitor-metrics-and-node-24.md).
  monitorCheckSuccess: {
    name: 'picket_monitor_check_success',
    help: '1 when the latest UP or DOWN result of the monitor from the region was UP, 0 when DOWN; absent after an UNKNOWN or BLOCKED result (METRICS_PER_MONITOR).',
    labelNames: ['monitor_id', 'type', 'region'] as const,
  },
  monitorCheckDuration: {
    name: 'picket_monitor_check_duration_seconds',
    help: 'Duration of the latest UP or DOWN check of the monitor from the region; absent after an UNKNOWN or BLOCKED result (METRICS_PER_MONITOR).',
    labelNames: ['monitor_id', 'type', 'region'] as const,
  },
  monitorCertExpiry: {
    name: 'picket_monitor_cert_expiry_timestamp_seconds',
    help: 'notAfter (Unix seconds) of the leaf certificate the latest check of the monitor saw, when it checks certificate expiration (METRICS_PER_MONITOR).',
    labelNames: ['monitor_id', 'type'] as const,
  },
  monitorStatus: {
    name: 'picket_monitor_status',
    help: "The monitor's status as the API shows it: 0 down, 1 up, 2 pending, 3 unknown (METRICS_PER_MONITOR).",
    labelNames: ['monitor_id', 'type'] as const,
  },
} as const;

/**
 * prom-client's default metrics that `promtool check metrics` rejects: gauges named like
 * counters. Each is the sum of the `type`-labelled gauge of the same name without `_total`
 * (`nodejs_active_handles`, …), which stays, so nothing is lost.
 */
export const DROPPED_DEFAULT_METRICS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
] as const;

/**
 * A registry with the default process metrics (CPU, memory, event loop, handles), less the
 * ones `promtool check metrics` rejects (DROPPED_DEFAULT_METRICS).
 */
export function createRegistry(prefixLabels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(prefixLabels);
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULT_METRICS) registry.removeSingleMetric(name);
  return registry;
}

export function probeDurationHistogram(registry: Registry) {
  const def = METRICS.probeDuration;
  return new Histogram({
    name: def.name,
    help: def.help,
    labelNames: [...def.labelNames],
    buckets: [...def.buckets],
    registers: [registry],
  });
}

export function probesInFlightGauge(registry: Registry, collect: () => number) {
  return new Gauge({
    ...METRICS.probesInFlight,
    registers: [registry],
    collect() {
      this.set(collect());
    },
  });
}

/** 1 while `connected()` says so: the NATS link of an agent or a coordinator. */
export function natsConnectedGauge(registry: Registry, connected: () => boolean) {
  return new Gauge({
    ...METRICS.natsConnected,
    registers: [registry],
    collect() {
      this.set(connected() ? 1 : 0);
    },
  });
}

export function latencyHistogram(registry: Registry, def: { name: string; help: string; buckets: readonly number[] }) {
  return new Histogram({ name: def.name, help: def.help, buckets: [...def.buckets], registers: [registry] });
}

export function counter<L extends string>(
  registry: Registry,
  def: { name: string; help: string; labelNames: readonly L[] },
) {
  return new Counter<L>({ name: def.name, help: def.help, labelNames: [...def.labelNames], registers: [registry] });
}

export { Registry };
