import type { LoggerService } from '@nestjs/common';
import { AgentHeartbeatDto, REGION_IDS, subjectsFor } from '#contracts';
import { createProberTable, IcmpPinger, ProbeExecutor } from '#probes';
import { egressAddresses, PICKET_VERSION, type Clock, type NatsLink } from '#runtime';
import { checkInput } from '#validation';
import type { CoordinatorConfig } from '../config.js';
import type { AgentsRegistry } from '../agents/agents.registry.js';
import { AGENT_PERSIST_MS } from '../agents/presence.js';
import type { CoordinatorMetrics } from './coordinator-metrics.js';
import { InProcessTransport } from './in-process.transport.js';
import { NatsTransport } from './nats.transport.js';
import type { ProbeTransport } from './probe-transport.js';

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
 * when NATS_URL is set; otherwise the embedded agent (the same executor and probers as an
 * agent, serving every region in this process).
 */
export async function createProbeTransport(deps: TransportDeps): Promise<ProbeTransport | null> {
  const { config, clock, metrics, agents, logger, nats } = deps;
  metrics.trackAgents(() => agents.countByRegion());
  if (config.CHECKS_ENABLED === 'false') {
    logger.warn('CHECKS_ENABLED=false: no checks are scheduled', 'Probing');
    return null;
  }
  if (nats) {
    const subjects = subjectsFor(config.NATS_SUBJECT_PREFIX);
    // Made once the link connects; the client renews it after every reconnection.
    nats.onConnected((nc) => {
      nc.subscribe(subjects.heartbeat, {
        callback: (error, msg) => {
          if (error) return;
          try {
            const { value } = checkInput(AgentHeartbeatDto, JSON.parse(msg.string()));
            if (value) agents.record({ ...value });
          } catch {
            // A malformed heartbeat is ignored; the agent's next one counts.
          }
        },
      });
    });
    logger.log(
      `checks go to regional agents over NATS (subjects ${config.NATS_SUBJECT_PREFIX}.probe.<region>)`,
      'Probing',
    );
    return new NatsTransport(nats, config.NATS_SUBJECT_PREFIX, clock, (failure, request) =>
      metrics.recordTransportFailure(failure, request.region),
    );
  }
  const pinger = await IcmpPinger.open();
  if (!pinger.available) logger.warn(`ICMP checks will be UNKNOWN: ${pinger.unavailableReason}`, 'Probing');
  const executor = new ProbeExecutor({
    agentId: EMBEDDED_AGENT_ID,
    clock,
    table: createProberTable({ pinger, egress: config.egress() }),
    maxInFlight: config.EMBEDDED_MAX_IN_FLIGHT,
    onBug: (error, request) => {
      const detail = error instanceof Error ? error.stack : String(error);
      logger.error(`prober bug on ${request.check_id}: ${detail}`, 'Probing');
    },
    onResult: (result, request) => metrics.recordProbe(result, request.type),
  });
  metrics.trackInFlight(() => executor.inFlight);
  const addresses = egressAddresses([]);
  const heartbeat = () => {
    agents.registerEmbedded({
      agent_id: EMBEDDED_AGENT_ID,
      version: PICKET_VERSION,
      regions: [...REGION_IDS],
      ...addresses,
      in_flight: executor.inFlight,
      max_in_flight: config.EMBEDDED_MAX_IN_FLIGHT,
      icmp: pinger.available,
      sent_at: clock.now(),
    });
  };
  heartbeat();
  // The embedded agent "heart-beats" like a remote one, so `agents list` shows it as online.
  const beating = setInterval(heartbeat, AGENT_PERSIST_MS);
  beating.unref();
  logger.log('embedded mode: this process checks every region itself (set NATS_URL for regional agents)', 'Probing');
  return new InProcessTransport(executor, EMBEDDED_DRAIN_MS, () => {
    clearInterval(beating);
    pinger.close();
  });
}
