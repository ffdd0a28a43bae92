import { summarize, type ReadinessAnswer } from '#runtime';

/**
 * The answer of the agent's `GET /readyz`, pure: ready (200) only while NATS is connected (probe
 * work can reach the agent and its replies can leave) and the agent is not shutting down.
 * `natsProblem` is the link's `problemNow` (null while connected).
 */
export function agentReadiness(natsProblem: string | null, shuttingDown: boolean): ReadinessAnswer {
  return summarize([
    { name: 'nats', required: true, problem: natsProblem },
    { name: 'shutdown', required: true, problem: shuttingDown ? 'shutting down' : null },
  ]);
}
