import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity.js';
import { epochSeconds } from '../database/columns.js';

/**
 * A one-time enrollment token of a private region (docs/decisions/0030-private-regions.md): only
 * its SHA-256 is stored. Used once (`used_at`, with the public key of the agent that used it, so
 * that agent's retry gets its answer again); deleted with its region or account.
 */
@Entity({ name: 'agent_enrollment_tokens' })
export class AgentTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_agent_enrollment_tokens' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_agent_enrollment_tokens_account' })
  account?: AccountEntity;

  @Column({ name: 'region_id', type: 'varchar', length: 32 })
  regionId!: string;

  @Index('uq_agent_enrollment_tokens_hash', { unique: true })
  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'expires_at', type: 'bigint', transformer: epochSeconds })
  expiresAt!: number;

  @Column({ name: 'used_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  usedAt!: number | null;

  @Column({ name: 'used_by_key', type: 'varchar', length: 56, nullable: true })
  usedByKey!: string | null;
}

/**
 * An agent enrolled in a private region: the NATS user public key its credentials were issued
 * for. No foreign key: a revoked agent's row is the record the account JWT's revocations are
 * rebuilt from, also after its region is deleted.
 */
@Entity({ name: 'private_region_agents' })
@Index('ix_private_region_agents_region', ['accountId', 'regionId'])
export class PrivateRegionAgentEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_private_region_agents' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @Column({ name: 'region_id', type: 'varchar', length: 32 })
  regionId!: string;

  /** The agent's AGENT_ID when it enrolled (its heartbeats name it). */
  @Column({ type: 'text' })
  name!: string;

  @Index('uq_private_region_agents_key', { unique: true })
  @Column({ name: 'public_key', type: 'varchar', length: 56 })
  publicKey!: string;

  @Column({ name: 'token_id', type: 'varchar', length: 24 })
  tokenId!: string;

  @Column({ name: 'enrolled_at', type: 'bigint', transformer: epochSeconds })
  enrolledAt!: number;

  @Column({ name: 'revoked_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  revokedAt!: number | null;
}
