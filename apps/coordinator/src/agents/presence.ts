/**
 * When an agent counts as present: the one threshold behind the region metrics, the blind-region
 * watch, `agents list` and the checker address list.
 */

/** An agent is present while its last heartbeat is younger than this (agents beat every AGENT_HEARTBEAT_SECONDS, 5 s by default). */
export const AGENT_PRESENT_MS = 30_000;

/** An agent's database row is rewritten at most this often, unless what it reports changes. */
export const AGENT_PERSIST_MS = 10_000;

/**
 * Whether an agent last heard from at `heardAt` (ms) is present at `now`. Read from its database
 * row (`source: 'row'`), the time may lag the agent's newest heartbeat by up to AGENT_PERSIST_MS,
 * so the row gets that much more before the agent counts as gone.
 */
export function isPresent(heardAt: number, now: number, source: 'heartbeat' | 'row'): boolean {
  return now - heardAt <= AGENT_PRESENT_MS + (source === 'row' ? AGENT_PERSIST_MS : 0);
}
