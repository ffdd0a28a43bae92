import { Column, Entity, PrimaryColumn } from 'typeorm';
import { epochSeconds } from '../database/columns.js';

export type SubscriptionStatus = 'active' | 'inactive';
export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['active', 'inactive'];

@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_accounts' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'subscription_status', type: 'varchar', length: 16 })
  subscriptionStatus!: SubscriptionStatus;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;
}
