import { PROBE_QUEUE_GROUP, subjectsFor } from '#contracts';
import type { NatsLink } from '#runtime';
import { NatsLinkServer, type NatsRoute } from '#runtime/nats-server';
import type { AgentConfig } from './config.js';

/** The pattern probe requests of every region this agent serves are routed to (ProbeController). */
export const PROBE_PATTERN = 'probe';

/** The agent's microservice server (NatsLinkServer), connected to the app by createAgentApp. */
export const PROBE_SERVER = Symbol('PROBE_SERVER');

/**
 * One subscription per region the agent serves, in the region's queue group (exactly one agent
 * of a region takes each check), all routed to ProbeController. A private region's agent takes
 * its region's subject only (docs/decisions/0030-private-regions.md).
 */
export function probeRoutes(config: AgentConfig): NatsRoute[] {
  const subjects = subjectsFor(config.NATS_SUBJECT_PREFIX);
  const own = config.privateRegion;
  if (own) {
    return [
      { subject: subjects.privateProbe(own.accountId, own.region), pattern: PROBE_PATTERN, queue: PROBE_QUEUE_GROUP },
    ];
  }
  return config.AGENT_REGIONS.map((region) => ({
    subject: subjects.probe(region),
    pattern: PROBE_PATTERN,
    queue: PROBE_QUEUE_GROUP,
  }));
}

export function createProbeServer(link: NatsLink, config: AgentConfig): NatsLinkServer {
  return new NatsLinkServer(link, probeRoutes(config));
}
