import type { LoggerService } from '@nestjs/common';
import { REGION_IDS, type ProbeRequest } from '#contracts';
import { ProbeRuntime } from '#probes';
import type { Clock, NatsLink } from '#runtime';
import type { CoordinatorConfig } from '../config.js';
import type { AgentsRegistry } from '../agents/agents.registry.js';
import { AGENT_PERSIST_MS } from '../agents/presence.js';
import type { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { InProcessTransport } from './in-process.transport.js';
import { NatsTransport } from './nats.transport.js';
import { BatchingNatsTransport } from './nats-batch.transport.js';
import type { ProbeTransport, TransportFailure } from './probe-transport.js';
import { systemTimers } from '../scheduling/timers.js';

/** How long running checks may finish when the coordinator stops (embedded mode). */
const EMBEDDED_DRAIN_MS = 10_000;

export const EMBEDDED_AGENT_ID = 'embedded';

export interface TransportDeps {
  config: CoordinatorConfig;
  clock: Clock;
  metrics: CoordinatorMetrics;
  agents: AgentsRegistry;
  logger: LoggerService;
  /** The coordinator's NATS link (NATS_LINK), null without NATS_URL; possibly not connected yet. */
  nats: NatsLink | null;
}

/**
 * The transport for this process: none when CHECKS_ENABLED=false; NATS to regional agents
 * when NATS_URL is set; otherwise the embedded agent: the agent's ProbeRuntime (sockets,
 * probers, executor, heartbeat) serving every region in this process.
 */
export async function createProbeTransport(deps: TransportDeps): Promise<ProbeTransport | null> {
  const { config, clock, metrics, agents, logger, nats } = deps;
  metrics.trackAgents(() => agents.countByRegion());
  if (config.CHECKS_ENABLED === 'false') {
    logger.warn('CHECKS_ENABLED=false: no checks are scheduled', 'Probing');
    return null;
  }
  if (nats) {
    // Agents' heartbeats arrive through the microservice (agents/heartbeat.controller.ts).
    logger.log(
      `checks go to regional agents over NATS (subjects ${config.NATS_SUBJECT_PREFIX}.probe.<region>)`,
      'Probing',
    );
    const onFailure = (failure: TransportFailure, request: ProbeRequest) =>
      metrics.recordTransportFailure(failure, request.region);
    const single = new NatsTransport(nats, config.NATS_SUBJECT_PREFIX, clock, onFailure);
    if (config.PROBE_BATCH_WINDOW_MS === 0) return single;
    // Checks due within the window travel together (docs/decisions/0034-batched-probe-traffic.md).
    return new BatchingNatsTransport(
      nats,
      config.NATS_SUBJECT_PREFIX,
      clock,
      systemTimers,
      single,
      {
        windowMs: config.PROBE_BATCH_WINDOW_MS,
        onBatch: (checks) => metrics.recordBatch(checks),
        onFallback: () => metrics.recordBatchFallback(),
      },
      onFailure,
    );
  }
  // The agent's own runtime, in this process: the same sockets, probers, executor and heartbeat.
  const runtime = await ProbeRuntime.open({
    agentId: EMBEDDED_AGENT_ID,
    clock,
    // Public regions only: a private region's checks never run here (InProcessTransport).
    regions: REGION_IDS,
    maxInFlight: config.EMBEDDED_MAX_IN_FLIGHT,
    egress: config.egress(),
    onBug: (error, request) => {
      const detail = error instanceof Error ? error.stack : String(error);
      logger.error(`prober bug on ${request.check_id}: ${detail}`, 'Probing');
    },
    onResult: (result, request) => metrics.recordProbe(result, request.type),
  });
  if (runtime.icmpProblem) logger.warn(`ICMP checks will be UNKNOWN: ${runtime.icmpProblem}`, 'Probing');
  metrics.trackInFlight(() => runtime.executor.inFlight);
  // The embedded agent "heart-beats" like a remote one, so `agents list` shows it as online.
  const heartbeat = () => agents.registerEmbedded({ ...runtime.heartbeat(), regions: [...REGION_IDS] });
  heartbeat();
  const beating = setInterval(heartbeat, AGENT_PERSIST_MS);
  beating.unref();
  logger.log('embedded mode: this process checks every region itself (set NATS_URL for regional agents)', 'Probing');
  return new InProcessTransport(runtime, clock, EMBEDDED_DRAIN_MS, () => clearInterval(beating));
}
