import { REGION_IDS, type RegionId } from '#contracts';
import type { AgentEntity } from './agent.entity.js';
import { isPresent } from './presence.js';

export interface AgentsListing {
  agents: {
    agent_id: string;
    regions: RegionId[];
    version: string;
    ipv4: string[];
    ipv6: string[];
    icmp: boolean;
    max_in_flight: number;
    in_flight: number;
    first_seen_at: number;
    last_seen_at: number;
    status: 'online' | 'stale';
  }[];
  regions: { id: RegionId; agents: number; online: number }[];
}

/** What `agents list` prints: every agent known, and per region how many serve it (Unix seconds). */
export function agentsListing(rows: readonly AgentEntity[], now: number): AgentsListing {
  const agents = rows.map((a): AgentsListing['agents'][number] => ({
    agent_id: a.agentId,
    regions: a.regions,
    version: a.version,
    ipv4: a.ipv4,
    ipv6: a.ipv6,
    icmp: a.icmp,
    max_in_flight: a.maxInFlight,
    in_flight: a.inFlight,
    first_seen_at: Math.floor(a.firstSeenAt / 1000),
    last_seen_at: Math.floor(a.lastSeenAt / 1000),
    status: isPresent(a.lastSeenAt, now, 'row') ? 'online' : 'stale',
  }));
  const regions = REGION_IDS.map((id) => {
    const serving = agents.filter((a) => a.regions.includes(id));
    return { id, agents: serving.length, online: serving.filter((a) => a.status === 'online').length };
  });
  return { agents, regions };
}
