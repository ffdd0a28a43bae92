import { PROBE_QUEUE_GROUP, subjectsFor } from '#contracts';
import type { NatsLink } from '#runtime';
import { NatsLinkServer, type NatsRoute } from '#runtime/nats-server';
import type { AgentConfig } from './config.js';

/** The pattern probe requests of every region this agent serves are routed to (ProbeController). */
export const PROBE_PATTERN = 'probe';

/** The pattern batches of probe requests are routed to (ProbeController.batch). */
export const PROBE_BATCH_PATTERN = 'probe-batch';

/** The agent's microservice server (NatsLinkServer), connected to the app by createAgentApp. */
export const PROBE_SERVER = Symbol('PROBE_SERVER');

/**
 * Two subscriptions per region the agent serves, in the region's queue group (exactly one agent
 * of a region takes each check, or each batch of checks), routed to ProbeController: single
 * checks (coordinators of older versions, and any check whose region's batches found no taker)
 * and batches (docs/decisions/0034-batched-probe-traffic.md). A private region's agent takes
 * its region's subject only (docs/decisions/0030-private-regions.md).
 */
export function probeRoutes(config: AgentConfig): NatsRoute[] {
  const subjects = subjectsFor(config.NATS_SUBJECT_PREFIX);
  const own = config.privateRegion;
  if (own) {
    return [
      { subject: subjects.privateProbe(own.accountId, own.region), pattern: PROBE_PATTERN, queue: PROBE_QUEUE_GROUP },
      {
        subject: subjects.privateProbeBatch(own.accountId, own.region),
        pattern: PROBE_BATCH_PATTERN,
        queue: PROBE_QUEUE_GROUP,
      },
    ];
  }
  return config.AGENT_REGIONS.flatMap((region) => [
    { subject: subjects.probe(region), pattern: PROBE_PATTERN, queue: PROBE_QUEUE_GROUP },
    { subject: subjects.probeBatch(region), pattern: PROBE_BATCH_PATTERN, queue: PROBE_QUEUE_GROUP },
  ]);
}

export function createProbeServer(link: NatsLink, config: AgentConfig): NatsLinkServer {
  return new NatsLinkServer(link, probeRoutes(config));
}
