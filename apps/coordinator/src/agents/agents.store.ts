import { Injectable } from '@nestjs/common';
import type { PublicAgentHeartbeat as AgentHeartbeat } from '#contracts';
import { Database } from '../database/database.js';
import { AgentEntity } from './agent.entity.js';

/** Agents in the database: every coordinator replica records the heartbeats it hears. */
@Injectable()
export class AgentsStore {
  constructor(private readonly db: Database) {}

  /** Inserts or refreshes an agent (idempotent: replicas hearing the same heartbeat write the same row). */
  async record(heartbeat: AgentHeartbeat, seenAt: number): Promise<void> {
    const row = {
      agentId: heartbeat.agent_id,
      regions: heartbeat.regions,
      version: heartbeat.version,
      ipv4: heartbeat.ipv4,
      ipv6: heartbeat.ipv6,
      maxInFlight: heartbeat.max_in_flight,
      inFlight: heartbeat.in_flight,
      icmp: heartbeat.icmp,
      lastSeenAt: seenAt,
    };
    const updated = await this.db.manager.update(AgentEntity, { agentId: row.agentId }, row);
    if ((updated.affected ?? 0) > 0) return;
    await this.db.manager
      .createQueryBuilder()
      .insert()
      .into(AgentEntity)
      .values({ ...row, firstSeenAt: seenAt })
      .orIgnore()
      .updateEntity(false)
      .execute();
  }

  list(): Promise<AgentEntity[]> {
    return this.db.manager.find(AgentEntity, { order: { agentId: 'ASC' } });
  }
}
