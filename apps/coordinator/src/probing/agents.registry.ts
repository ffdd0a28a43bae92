import { Inject, Injectable } from '@nestjs/common';
import { REGION_IDS, type AgentHeartbeat, type RegionId } from '#contracts';
import { CLOCK, type Clock } from '#runtime';

/** An agent counts as present while its last heartbeat is younger than this. */
export const AGENT_STALE_MS = 30_000;

export interface AgentSighting {
  heartbeat: AgentHeartbeat;
  /** When this coordinator received it (its own clock: agents' clocks may be skewed). */
  receivedAt: number;
}

/**
 * Which agents serve which regions, from their heartbeats (NATS mode) or the embedded agent
 * that serves every region (embedded mode). The checker-address list and region-health
 * metrics read it.
 */
@Injectable()
export class AgentsRegistry {
  private readonly agents = new Map<string, AgentSighting>();
  private embedded: AgentHeartbeat | null = null;

  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  record(heartbeat: AgentHeartbeat): void {
    this.agents.set(heartbeat.agent_id, { heartbeat, receivedAt: this.clock.now() });
  }

  /** Embedded mode: this process serves every region for as long as it runs. */
  registerEmbedded(heartbeat: AgentHeartbeat): void {
    this.embedded = heartbeat;
  }

  /** Agents heard from within AGENT_STALE_MS (older entries are forgotten), and the embedded one. */
  present(): AgentSighting[] {
    const now = this.clock.now();
    for (const [id, sighting] of this.agents) if (sighting.receivedAt < now - AGENT_STALE_MS) this.agents.delete(id);
    const sightings = [...this.agents.values()];
    if (this.embedded) sightings.push({ heartbeat: this.embedded, receivedAt: now });
    return sightings;
  }

  countByRegion(): Record<RegionId, number> {
    const counts = Object.fromEntries(REGION_IDS.map((r) => [r, 0])) as Record<RegionId, number>;
    for (const { heartbeat } of this.present()) for (const region of heartbeat.regions) counts[region]++;
    return counts;
  }
}
