import { Inject, Injectable } from '@nestjs/common';
import type { AgentHeartbeat } from '#contracts';
import { CLOCK, type Clock } from '#runtime';
import { isPresent } from '../agents/presence.js';

interface PrivateSighting {
  readonly accountId: string;
  readonly region: string;
  readonly agentId: string;
  readonly receivedAt: number;
}

/**
 * The agents of private regions present now, from their heartbeats (each on its region's own
 * subject, which names the account: docs/decisions/0030-private-regions.md). Memory only: they
 * never reach the agents table, so never `agents list` nor the public checker addresses.
 */
@Injectable()
export class PrivateAgents {
  private readonly sightings = new Map<string, PrivateSighting>();

  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  record(accountId: string, region: string, heartbeat: AgentHeartbeat): void {
    const key = JSON.stringify([accountId, region, heartbeat.agent_id]);
    this.sightings.set(key, { accountId, region, agentId: heartbeat.agent_id, receivedAt: this.clock.now() });
  }

  /** Agents of the account's region present now. */
  online(accountId: string, region: string): number {
    return this.onlineIds(accountId, region).size;
  }

  /** The AGENT_IDs of the account's region's agents present now (forgetting those gone). */
  onlineIds(accountId: string, region: string): Set<string> {
    const now = this.clock.now();
    const ids = new Set<string>();
    for (const [key, sighting] of this.sightings) {
      if (!isPresent(sighting.receivedAt, now, 'heartbeat')) this.sightings.delete(key);
      else if (sighting.accountId === accountId && sighting.region === region) ids.add(sighting.agentId);
    }
    return ids;
  }
}
