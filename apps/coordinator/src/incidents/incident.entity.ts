import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { CheckStatus, RegionId } from '#contracts';
import { AccountEntity } from '../auth/account.entity.js';
import { epochSeconds, jsonText } from '../database/columns.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';

/** The evidence of one region when the incident opened (docs/decisions/0007-incidents.md). */
export interface RegionEvidence {
  status: CheckStatus;
  response_time_ms: number | null;
  error: string | null;
  checked_at: number;
  checker_ip: string | null;
}

/** One outage of an active monitor: opened on `down`, resolved on `up`. */
@Entity({ name: 'incidents' })
@Index('idx_incidents_account_started', ['accountId', 'startedAt'])
@Index('idx_incidents_monitor_resolved', ['monitorId', 'resolvedAt'])
export class IncidentEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_incidents' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_incidents_account' })
  account?: AccountEntity;

  @Column({ name: 'monitor_id', type: 'varchar', length: 24 })
  monitorId!: string;

  @ManyToOne(() => MonitorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'monitor_id', foreignKeyConstraintName: 'fk_incidents_monitor' })
  monitor?: MonitorEntity;

  /** The monitor's name when the incident opened. */
  @Column({ name: 'monitor_name', type: 'text' })
  monitorName!: string;

  @Column({ name: 'started_at', type: 'bigint', transformer: epochSeconds })
  startedAt!: number;

  @Column({ name: 'resolved_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  resolvedAt!: number | null;

  @Column({ type: 'text' })
  reason!: string;

  @Column({ name: 'user_comment', type: 'text', default: '' })
  userComment!: string;

  @Column({ name: 'check_results', type: 'text', transformer: jsonText })
  checkResults!: Partial<Record<RegionId, RegionEvidence>>;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochSeconds })
  updatedAt!: number;
}

/** The incidents feature's tables, for the data source (entities.ts). */
export const INCIDENTS_ENTITIES = [IncidentEntity];
