import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../auth/account.entity.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { bigintNumber, epochSeconds, jsonText } from '../database/columns.js';
import { IncidentEntity } from '../incidents/incident.entity.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import type { NotificationEvent, NotificationEventType } from './notification-event.js';
import type { DeliveryClass } from './notifier.js';

export type NotificationState = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** The event as stored: everything but the row id and what other deliveries learned. */
export type StoredEvent = Omit<NotificationEvent, 'id' | 'openRef'>;

/**
 * The outbox: one row per (event, contact), written in the same transaction as the status
 * change and incident it announces. Only the dispatcher sends, from here.
 */
@Entity({ name: 'notifications' })
@Index('idx_notifications_due', ['state', 'nextAttemptAt'])
@Index('idx_notifications_contact_incident', ['contactId', 'incidentId'])
// Each planned message of an outage once (docs/decisions/0029-notification-rules.md).
@Index('uq_notifications_planned', ['incidentId', 'contactId', 'event', 'rule'], { unique: true })
export class NotificationEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_notifications' })
  id!: string;

  @Column({ name: 'account_id', type: 'varchar', length: 24 })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'fk_notifications_account' })
  account?: AccountEntity;

  @Column({ name: 'contact_id', type: 'varchar', length: 24 })
  contactId!: string;

  @ManyToOne(() => ContactEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'contact_id', foreignKeyConstraintName: 'fk_notifications_contact' })
  contact?: ContactEntity;

  @Column({ name: 'monitor_id', type: 'varchar', length: 24 })
  monitorId!: string;

  @ManyToOne(() => MonitorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'monitor_id', foreignKeyConstraintName: 'fk_notifications_monitor' })
  monitor?: MonitorEntity;

  @Column({ name: 'incident_id', type: 'varchar', length: 24, nullable: true })
  incidentId!: string | null;

  @ManyToOne(() => IncidentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'incident_id', foreignKeyConstraintName: 'fk_notifications_incident' })
  incident?: IncidentEntity;

  @Column({ type: 'varchar', length: 32 })
  event!: NotificationEventType;

  /**
   * Which planned message of the outage this row is: `main` (the monitor's contacts, and every
   * row that is not part of an outage plan), `esc1`..`esc5` (an escalation step), `rem1`, `rem2`,
   * … (the reminders of one contact). `created_at` is the planned time.
   */
  @Column({ type: 'varchar', length: 16, default: 'main' })
  rule!: string;

  @Column({ type: 'text', transformer: jsonText })
  payload!: StoredEvent;

  @Column({ type: 'varchar', length: 16 })
  state!: NotificationState;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** ms since the epoch. */
  @Column({ name: 'next_attempt_at', type: 'bigint', transformer: bigintNumber })
  nextAttemptAt!: number;

  /** A dispatcher's claim (ms); another dispatcher takes the row only after it passes. */
  @Column({ name: 'locked_until', type: 'bigint', default: 0, transformer: bigintNumber })
  lockedUntil!: number;

  /** ms since the epoch: when the row was written, or for a planned message its planned time. */
  @Column({ name: 'created_at', type: 'bigint', transformer: bigintNumber })
  createdAt!: number;

  @Column({ name: 'last_attempt_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  lastAttemptAt!: number | null;

  @Column({ name: 'last_class', type: 'varchar', length: 16, nullable: true })
  lastClass!: DeliveryClass | null;

  @Column({ name: 'last_status', type: 'integer', nullable: true })
  lastStatus!: number | null;

  @Column({ name: 'last_detail', type: 'text', nullable: true })
  lastDetail!: string | null;

  @Column({ name: 'delivered_at', type: 'bigint', nullable: true, transformer: bigintNumber })
  deliveredAt!: number | null;

  /** What the destination gave back to remember (ticket id, Message-ID) for the closing event. */
  @Column({ type: 'text', nullable: true })
  ref!: string | null;
}

/**
 * The delivery log: one row per attempt (time, class, status, short detail; never bodies).
 * `contact_id` repeats the notification's, so a contact's attempts page newest first through
 * one index (`GET /api/contacts/{id}/deliveries`).
 */
@Entity({ name: 'notification_attempts' })
@Index('idx_notification_attempts_notification', ['notificationId'])
@Index('idx_notification_attempts_contact', ['contactId', 'attemptedAt', 'id'])
export class NotificationAttemptEntity {
  @PrimaryColumn({ type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_notification_attempts' })
  id!: string;

  @Column({ name: 'notification_id', type: 'varchar', length: 24 })
  notificationId!: string;

  @ManyToOne(() => NotificationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'notification_id', foreignKeyConstraintName: 'fk_notification_attempts_notification' })
  notification?: NotificationEntity;

  /** The notification's contact (no foreign key of its own: the attempt goes with its notification). */
  @Column({ name: 'contact_id', type: 'varchar', length: 24 })
  contactId!: string;

  /** ms since the epoch. */
  @Column({ name: 'attempted_at', type: 'bigint', transformer: bigintNumber })
  attemptedAt!: number;

  @Column({ type: 'varchar', length: 16 })
  outcome!: DeliveryClass;

  @Column({ type: 'integer', nullable: true })
  status!: number | null;

  @Column({ type: 'text' })
  detail!: string;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;
}

/** Certificate warnings already sent: once per certificate (notAfter) per threshold. */
@Entity({ name: 'certificate_alerts' })
export class CertificateAlertEntity {
  @PrimaryColumn({ name: 'monitor_id', type: 'varchar', length: 24, primaryKeyConstraintName: 'pk_certificate_alerts' })
  monitorId!: string;

  @PrimaryColumn({
    name: 'not_after',
    type: 'bigint',
    transformer: epochSeconds,
    primaryKeyConstraintName: 'pk_certificate_alerts',
  })
  notAfter!: number;

  @PrimaryColumn({ name: 'threshold_days', type: 'integer', primaryKeyConstraintName: 'pk_certificate_alerts' })
  thresholdDays!: number;

  @ManyToOne(() => MonitorEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'monitor_id', foreignKeyConstraintName: 'fk_certificate_alerts_monitor' })
  monitor?: MonitorEntity;

  @Column({ name: 'sent_at', type: 'bigint', transformer: epochSeconds })
  sentAt!: number;
}

/** Small deployment-wide values (the VAPID key pair). */
@Entity({ name: 'server_settings' })
export class ServerSettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'pk_server_settings' })
  key!: string;

  @Column({ type: 'text' })
  value!: string;
}

/** The notify feature's tables, for the data source (entities.ts). */
export const NOTIFY_ENTITIES = [
  NotificationEntity,
  NotificationAttemptEntity,
  CertificateAlertEntity,
  ServerSettingEntity,
];
