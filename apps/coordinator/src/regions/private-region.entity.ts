import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity.js';
import { epochSeconds } from '../database/columns.js';
import { AgentTokenEntity, PrivateRegionAgentEntity } from './enrollment.entity.js';

/**
 * An account's private region (docs/decisions/0030-private-regions.md): checked only by the
 * agents enrolled for it. `region_id` is what monitors list in `regions`, unique per account.
 */
@Entity({ name: 'private_regions' })
@Index('uq_private_regions_account_region', ['accountId', 'regionId'], { unique: true })
export class PrivateRegionEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_private_regions' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_private_regions_account' })
  account?: AccountEntity;

  @Column({ name: 'region_id', type: 'varchar', length: 32 })
  regionId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;
}

export const REGIONS_ENTITIES = [PrivateRegionEntity, AgentTokenEntity, PrivateRegionAgentEntity];
