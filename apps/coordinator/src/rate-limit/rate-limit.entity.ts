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

/**
 * One row per (kind, client address) that failed to authenticate lately: the GCRA theoretical
 * arrival time of its failure budget (docs/decisions/0018-abuse-limits-and-quotas.md). A row
 * whose `tat` has passed is a full bucket, the same as no row, and is pruned.
 */
@Entity({ name: 'auth_failures' })
export class AuthFailureEntity {
  /** `<kind>:<address>`, e.g. `api_key:203.0.113.7` or `basic_auth:2001:db8:1:2::/64`. */
  @PrimaryColumn({ type: 'varchar', length: 80, primaryKeyConstraintName: 'pk_auth_failures' })
  bucket!: string;

  /** Unix ms (fractional). */
  @Column({ type: 'double precision' })
  tat!: number;
}

/** The rate-limit feature's tables, for the data source (entities.ts). */
export const RATE_LIMIT_ENTITIES = [RateLimitEntity, AuthFailureEntity];
