import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity.js';
import { epochSeconds, jsonText } from '../database/columns.js';

/**
 * A maintenance window (docs/decisions/0026-maintenance-windows.md): one-off (`ends_at` set) or
 * recurring (`rrule`, `duration` and `timezone` set, `starts_at` its first occurrence).
 */
@Entity({ name: 'maintenance_windows' })
@Index('idx_maintenance_windows_account_created', ['accountId', 'createdAt'])
export class MaintenanceWindowEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_maintenance_windows' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_maintenance_windows_account' })
  account?: AccountEntity;

  @Column({ type: 'text' })
  name!: string;

  /** Monitor ids of the account; [] means every monitor of the account. */
  @Column({ type: 'text', transformer: jsonText })
  monitors!: string[];

  @Column({ name: 'starts_at', type: 'bigint', transformer: epochSeconds })
  startsAt!: number;

  /** One-off windows only. */
  @Column({ name: 'ends_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  endsAt!: number | null;

  /** Recurring windows only: the RRULE value, without `RRULE:`. */
  @Column({ type: 'text', nullable: true })
  rrule!: string | null;

  /** Recurring windows only: seconds each occurrence lasts. */
  @Column({ type: 'integer', nullable: true })
  duration!: number | null;

  /** IANA zone the rule's occurrences are computed in. */
  @Column({ type: 'varchar', length: 64 })
  timezone!: string;

  @Column({ type: 'boolean' })
  active!: boolean;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochSeconds })
  updatedAt!: number;
}

/** The maintenance feature's table, for the data source (entities.ts). */
export const MAINTENANCE_ENTITIES = [MaintenanceWindowEntity];
