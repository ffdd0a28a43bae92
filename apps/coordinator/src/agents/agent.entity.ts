import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { RegionId } from '#contracts';
import { bigintNumber, jsonText } from '../database/columns.js';

/** An agent as its latest heartbeat described it (the embedded agent included), for `agents list` and checker addresses. */
@Entity({ name: 'agents' })
export class AgentEntity {
  @PrimaryColumn({ name: 'agent_id', type: 'varchar', length: 64, primaryKeyConstraintName: 'pk_agents' })
  agentId!: string;

  @Column({ type: 'text', transformer: jsonText })
  regions!: RegionId[];

  @Column({ type: 'varchar', length: 64 })
  version!: string;

  @Column({ type: 'text', transformer: jsonText })
  ipv4!: string[];

  @Column({ type: 'text', transformer: jsonText })
  ipv6!: string[];

  @Column({ name: 'max_in_flight', type: 'integer' })
  maxInFlight!: number;

  @Column({ name: 'in_flight', type: 'integer' })
  inFlight!: number;

  @Column({ type: 'boolean' })
  icmp!: boolean;

  /** Unix ms, by the receiving coordinator's clock. */
  @Column({ name: 'first_seen_at', type: 'bigint', transformer: bigintNumber })
  firstSeenAt!: number;

  /** Unix ms, by the receiving coordinator's clock. */
  @Column({ name: 'last_seen_at', type: 'bigint', transformer: bigintNumber })
  lastSeenAt!: number;
}

/** The agents feature's tables, for the data source (entities.ts). */
export const AGENTS_ENTITIES = [AgentEntity];
