import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { CheckStatus, FailurePhase, ProbeTimings, ResultRegion } from '#contracts';
import { bigintNumber, epochSeconds, jsonText } from '../database/columns.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';

/**
 * One stored check result (raw history), kept RESULTS_RETENTION_DAYS. `check_id` is the
 * deterministic `<monitor_id>:<scheduled_at>:<region>` of the probe, and those three columns
 * are the primary key (scheduled_at first, so new results append to it): a late or repeated
 * result of the same check is ignored on insert. On PostgreSQL the table is partitioned by day
 * of `scheduled_at`, which the key contains, as a partitioned table's unique keys must
 * (docs/decisions/0033-partitioned-check-history.md). `id` is the result's public id, not indexed.
 */
@Entity({ name: 'check_results' })
@Index('idx_check_results_monitor_checked', ['monitorId', 'checkedAt'])
@Index('idx_check_results_checked', ['checkedAt'])
export class CheckResultEntity {
  @Column({ type: 'varchar', length: 24 })
  id!: string;

  @PrimaryColumn({ name: 'monitor_id', type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_check_results' })
  monitorId!: string;

  @ManyToOne(() => MonitorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'monitor_id', foreignKeyConstraintName: 'fk_check_results_monitor' })
  monitor?: MonitorEntity;

  @Column({ name: 'check_id', type: 'varchar', length: 80 })
  checkId!: string;

  /** The region checked from, or HEARTBEAT_REGION (docs/decisions/0027-heartbeat-monitors.md). */
  @PrimaryColumn({ type: 'varchar', length: 32, primaryKeyConstraintName: 'pk_check_results' })
  region!: ResultRegion;

  @Column({ type: 'varchar', length: 8 })
  status!: CheckStatus;

  @Column({ type: 'varchar', length: 16, nullable: true })
  phase!: FailurePhase | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'response_time_ms', type: 'integer', nullable: true })
  responseTimeMs!: number | null;

  @Column({ type: 'text', transformer: jsonText })
  timings!: ProbeTimings;

  @Column({ name: 'http_status', type: 'integer', nullable: true })
  httpStatus!: number | null;

  @Column({ name: 'cert_not_after', type: 'bigint', nullable: true, transformer: epochSeconds })
  certNotAfter!: number | null;

  @Column({ name: 'agent_id', type: 'varchar', length: 64 })
  agentId!: string;

  @Column({ name: 'checker_ip', type: 'varchar', length: 64, nullable: true })
  checkerIp!: string | null;

  /** When the check was due, ms since the epoch. */
  @PrimaryColumn({
    name: 'scheduled_at',
    type: 'bigint',
    transformer: bigintNumber,
    primaryKeyConstraintName: 'pk_check_results',
  })
  scheduledAt!: number;

  /** When the coordinator recorded the result, Unix seconds: the time history is ordered and kept by. */
  @Column({ name: 'checked_at', type: 'bigint', transformer: epochSeconds })
  checkedAt!: number;

  /** Taken while a maintenance window covered the monitor: kept, but out of uptime and statistics (0026). */
  @Column({ name: 'in_maintenance', type: 'boolean', default: false })
  inMaintenance!: boolean;
}

/**
 * Per-day figures of one monitor in one region (UTC day number: floor(checked_at / 86400)),
 * kept at least 90 days. Each stored result is added to its roll-up in the transaction that
 * stores it (see CheckResultsRepository.writeBatch).
 */
@Entity({ name: 'check_rollups' })
export class CheckRollupEntity {
  @PrimaryColumn({ name: 'monitor_id', type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_check_rollups' })
  monitorId!: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'pk_check_rollups' })
  day!: number;

  @PrimaryColumn({ type: 'varchar', length: 32, primaryKeyConstraintName: 'pk_check_rollups' })
  region!: ResultRegion;

  @ManyToOne(() => MonitorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'monitor_id', foreignKeyConstraintName: 'fk_check_rollups_monitor' })
  monitor?: MonitorEntity;

  /** Every result of the day: up, down and unknown. */
  @Column({ type: 'integer' })
  checks!: number;

  /** DOWN results. */
  @Column({ type: 'integer' })
  failures!: number;

  /** UNKNOWN and BLOCKED results (never counted as up or down). */
  @Column({ type: 'integer' })
  unknowns!: number;

  /** Sum of the response times of UP results that have one. */
  @Column({ name: 'sum_response_ms', type: 'bigint', transformer: bigintNumber })
  sumResponseMs!: number;

  /** How many UP results have a response time. */
  @Column({ name: 'count_response', type: 'integer' })
  countResponse!: number;

  /** Nearest-rank 95th percentile of those response times; null when there are none. */
  @Column({ name: 'p95_response_ms', type: 'integer', nullable: true })
  p95ResponseMs!: number | null;

  /**
   * The day's UP response times as a histogram (history/histogram.ts, JSON text), so each batch
   * of results can be added without re-reading the day; null for roll-ups stored before it existed.
   */
  @Column({ type: 'text', nullable: true })
  histogram!: string | null;
}

/** The history feature's tables, for the data source (entities.ts). */
export const HISTORY_ENTITIES = [CheckResultEntity, CheckRollupEntity];
