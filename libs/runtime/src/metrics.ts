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
  dispatchErrors: {
    name: 'picket_dispatch_errors_total',
    help: 'Checks that could not be dispatched or answered, by reason.',
    labelNames: ['reason'] as const,
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
  agentsSeen: {
    name: 'picket_agents_seen',
    help: 'Agents that sent a heartbeat recently, by region.',
    labelNames: ['region'] as const,
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
} as const;

/** A registry with the default process metrics (CPU, memory, event loop, handles). */
export function createRegistry(prefixLabels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(prefixLabels);
  collectDefaultMetrics({ register: registry });
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
