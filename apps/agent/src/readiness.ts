import { summarize, type NatsLinkState, type ReadinessAnswer } from '#runtime';

/** How the agent's NATS link is doing, as readiness reads it. */
export interface LinkView {
  readonly connected: boolean;
  readonly state: NatsLinkState;
  readonly lastError: string | null;
}

/**
 * The answer of the agent's `GET /readyz`, pure: ready (200) only while NATS is connected (probe
 * work can reach the agent and its replies can leave) and the agent is not shutting down.
 */
export function agentReadiness(nats: LinkView, shuttingDown: boolean): ReadinessAnswer {
  return summarize([
    {
      name: 'nats',
      required: true,
      problem: nats.connected ? null : nats.lastError ? `${nats.state}: ${nats.lastError}` : nats.state,
    },
    { name: 'shutdown', required: true, problem: shuttingDown ? 'shutting down' : null },
  ]);
}
