import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity.js';

/** One row per account: the GCRA theoretical arrival time of its rate-limit bucket. */
@Entity({ name: 'rate_limits' })
export class RateLimitEntity {
  @PrimaryColumn({ name: 'account_id', type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_rate_limits' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_rate_limits_account' })
  account?: AccountEntity;

  /** Unix ms (fractional: a point is 3600 s / budget). */
  @Column({ type: 'double precision' })
  tat!: number;
}

/** The rate-limit feature's table, for the data source (entities.ts). */
export const RATE_LIMIT_ENTITIES = [RateLimitEntity];
