import { Inject, Injectable, Logger } from '@nestjs/common';
import { REGION_IDS, type PublicAgentHeartbeat as AgentHeartbeat, type RegionId } from '#contracts';
import { CLOCK, type Clock } from '#runtime';
import { AgentsStore } from './agents.store.js';
import { AGENT_PERSIST_MS, isPresent } from './presence.js';

export interface AgentSighting {
  heartbeat: AgentHeartbeat;
  /** When this coordinator received it (its own clock: agents' clocks may be skewed). */
  receivedAt: number;
}

/** What identifies an agent's reported state, apart from its load and timestamps. */
function shapeOf(h: AgentHeartbeat): string {
  return JSON.stringify([h.version, h.regions, h.ipv4, h.ipv6, h.max_in_flight, h.icmp]);
}

/**
 * Which agents serve which regions, from their heartbeats (NATS mode) or the embedded agent
 * that serves every region (embedded mode). Kept in memory for the region-health metrics, and
 * written to the database (at most every AGENT_PERSIST_MS per agent, or at once when it
 * changes) for `agents list` and the checker address list.
 */
@Injectable()
export class AgentsRegistry {
  private readonly logger = new Logger('Agents');
  private readonly agents = new Map<string, AgentSighting>();
  private readonly persisted = new Map<string, { at: number; shape: string }>();
  private embedded: AgentHeartbeat | null = null;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly store: AgentsStore,
  ) {}

  record(heartbeat: AgentHeartbeat): void {
    this.agents.set(heartbeat.agent_id, { heartbeat, receivedAt: this.clock.now() });
    this.persist(heartbeat);
  }

  /** Embedded mode: this process serves every region for as long as it runs (call again to refresh). */
  registerEmbedded(heartbeat: AgentHeartbeat): void {
    this.embedded = heartbeat;
    this.persist(heartbeat);
  }

  /** Agents present (presence.ts; older entries are forgotten), and the embedded one. */
  present(): AgentSighting[] {
    const now = this.clock.now();
    for (const [id, sighting] of this.agents)
      if (!isPresent(sighting.receivedAt, now, 'heartbeat')) this.agents.delete(id);
    const sightings = [...this.agents.values()];
    if (this.embedded) sightings.push({ heartbeat: this.embedded, receivedAt: now });
    return sightings;
  }

  countByRegion(): Record<RegionId, number> {
    const counts = Object.fromEntries(REGION_IDS.map((r) => [r, 0])) as Record<RegionId, number>;
    for (const { heartbeat } of this.present()) for (const region of heartbeat.regions) counts[region]++;
    return counts;
  }

  private persist(heartbeat: AgentHeartbeat): void {
    const now = this.clock.now();
    const shape = shapeOf(heartbeat);
    const last = this.persisted.get(heartbeat.agent_id);
    if (last && last.shape === shape && now - last.at < AGENT_PERSIST_MS) return;
    this.persisted.set(heartbeat.agent_id, { at: now, shape });
    this.store.record(heartbeat, now).catch((error: unknown) => {
      // Retried with the next heartbeat; memory (metrics) is unaffected.
      this.persisted.delete(heartbeat.agent_id);
      this.logger.debug(`agent ${heartbeat.agent_id} not recorded: ${String(error)}`);
    });
  }
}
