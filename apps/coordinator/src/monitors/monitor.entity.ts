import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { MonitorType, MonitorRegionId } from '#contracts';
import { AccountEntity } from '../auth/account.entity.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { epochSeconds, jsonText } from '../database/columns.js';
import type { MonitorSettings } from '#contracts';
import type { NotificationRules } from './notification-rules.js';

/** The stored status, the evaluator's; the API may show `unknown` over it (see monitor-status.ts). */
export type LastStatus = 'pending' | 'up' | 'down';

@Entity({ name: 'monitors' })
// The id ends both indexes: lists order by (created_at | updated_at, id), and a page of
// monitors created in the same second is then read in index order instead of sorted.
@Index('idx_monitors_account_created', ['accountId', 'createdAt', 'id'])
@Index('idx_monitors_account_updated', ['accountId', 'updatedAt', 'id'])
// The ping route finds a heartbeat monitor by its token (docs/decisions/0027-heartbeat-monitors.md).
@Index('uq_monitors_heartbeat_token', ['heartbeatToken'], { unique: true })
export class MonitorEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_monitors' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_monitors_account' })
  account?: AccountEntity;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'boolean' })
  active!: boolean;

  @Column({ name: 'check_interval', type: 'integer' })
  checkInterval!: number;

  @Column({ type: 'integer' })
  timeout!: number;

  @Column({ name: 'fail_threshold', type: 'integer' })
  failThreshold!: number;

  /** The monitor's regions, in the order given (the rotation order). */
  @Column({ type: 'text', transformer: jsonText })
  regions!: MonitorRegionId[];

  @Column({ name: 'monitor_type', type: 'varchar', length: 16 })
  monitorType!: MonitorType;

  /** The inner settings object of `monitorType` (for https: url and the optional fields). */
  @Column({ type: 'text', transformer: jsonText })
  settings!: MonitorSettings;

  /**
   * A heartbeat monitor's ping token (null for probed types): stored as given, because the API
   * shows the ping URL on every read; unguessable, not secret from the monitor's account
   * (docs/decisions/0027-heartbeat-monitors.md). Kept while the monitor stays a heartbeat.
   */
  @Column({ name: 'heartbeat_token', type: 'varchar', length: 64, nullable: true })
  heartbeatToken!: string | null;

  @Column({ name: 'last_status', type: 'varchar', length: 16 })
  lastStatus!: LastStatus;

  @Column({ name: 'last_status_change', type: 'bigint', transformer: epochSeconds })
  lastStatusChange!: number;

  /**
   * Unix seconds of the newest UP or DOWN result (null before the first): written only with the
   * results batch (CheckResultsRepository.writeBatch), never through the API; it drives the
   * `unknown` overlay of monitor-status.ts (docs/decisions/0001-truth-when-blind.md).
   */
  @Column({ name: 'last_checked_at', type: 'bigint', nullable: true, transformer: epochSeconds })
  lastCheckedAt!: number | null;

  /**
   * Delay, reminders and escalation (docs/decisions/0029-notification-rules.md); null (rows
   * older than the rules) reads as the defaults. Escalation contacts are ids of the account's
   * contacts; deleting a contact takes it out of every step (ContactsRepository.delete).
   */
  @Column({ name: 'notification_rules', type: 'text', nullable: true, transformer: jsonText })
  notificationRules!: NotificationRules | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: epochSeconds })
  createdAt!: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: epochSeconds })
  updatedAt!: number;
}

/** A monitor's contacts, in the order given; a deleted contact leaves every monitor. */
@Entity({ name: 'monitor_contacts' })
@Index('idx_monitor_contacts_contact', ['contactId'])
export class MonitorContactEntity {
  @PrimaryColumn({ name: 'monitor_id', type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_monitor_contacts' })
  monitorId!: string;

  @PrimaryColumn({ name: 'contact_id', type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_monitor_contacts' })
  contactId!: string;

  @Column({ type: 'integer' })
  position!: number;

  @ManyToOne(() => MonitorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'monitor_id', foreignKeyConstraintName: 'fk_monitor_contacts_monitor' })
  monitor?: MonitorEntity;

  @ManyToOne(() => ContactEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'contact_id', foreignKeyConstraintName: 'fk_monitor_contacts_contact' })
  contact?: ContactEntity;
}
