import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { HeartbeatSettings, MonitorType, ProbedSettings, RegionId } from '#contracts';
import { describeHeartbeat } from '../heartbeats/heartbeat.js';
import { CLOCK, newObjectId, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { Database } from '../database/database.js';
import { IncidentEntity, type RegionEvidence } from '../incidents/incident.entity.js';
import { MonitorContactEntity, MonitorEntity } from '../monitors/monitor.entity.js';
import { NotificationEntity, type StoredEvent } from './notification.entity.js';
import type { NotificationEvent, NotificationEventType, SeverityLevel } from './notification-event.js';
import { CertificateAlertEntity } from './notification.entity.js';

/** Thresholds of certificate warnings, in days before notAfter (docs/decisions/0005-checks-and-status.md). */
export const CERTIFICATE_WARNING_DAYS = [14, 1] as const;

/** The warning thresholds (days) a certificate valid until `notAfter` has crossed at `now` (Unix s). */
export function crossedWarnings(notAfter: number, now: number): number[] {
  return CERTIFICATE_WARNING_DAYS.filter((days) => notAfter > now && notAfter - now <= days * 86_400);
}

type Listener = () => void;

/** What a queued notification tells, besides its monitor and event type. */
export interface EventFacts {
  status: 'up' | 'down';
  error: string | null;
  incident: IncidentEntity | null;
  startedAt: number | null;
  durationSeconds: number | null;
  severity: SeverityLevel;
  timestamp: number;
  evidence: Partial<Record<RegionId, RegionEvidence>>;
  certificateExpiresAt?: number;
}

/**
 * The writing side of notifications: outbox rows, written inside the transaction of what they
 * tell (a status change: transitions/transition.writer.ts; a certificate warning: here), so a
 * crash between the write and the send loses nothing. The dispatcher sends them later.
 */
@Injectable()
export class OutboxService {
  private readonly listeners: Listener[] = [];

  constructor(
    private readonly db: Database,
    private readonly config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Called after rows were committed (the dispatcher wakes up). */
  onWritten(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Tells the listeners that rows were committed (call after the transaction that wrote them). */
  written(): void {
    for (const listener of this.listeners) listener();
  }

  /**
   * Records that a monitor's certificate expires at `notAfter` (Unix s); queues one
   * `certificate.expiring` per newly crossed threshold set (14 days, 1 day), once per
   * certificate and threshold. Returns the thresholds newly recorded.
   */
  async recordCertificate(monitorId: string, notAfter: number): Promise<number[]> {
    const now = Math.floor(this.clock.now() / 1000);
    const due = crossedWarnings(notAfter, now);
    if (due.length === 0) return [];
    let recorded: number[] = [];
    const written = await this.db.transaction(async (m) => {
      const monitor = await m.findOneBy(MonitorEntity, { id: monitorId });
      if (!monitor) return 0;
      const known = await m.findBy(CertificateAlertEntity, { monitorId, notAfter });
      recorded = due.filter((days) => !known.some((k) => k.thresholdDays === days));
      if (recorded.length === 0) return 0;
      await m.insert(
        CertificateAlertEntity,
        recorded.map((thresholdDays) => ({ monitorId, notAfter, thresholdDays, sentAt: now })),
      );
      if (!monitor.active) return 0;
      return this.enqueue(m, monitor, 'certificate.expiring', {
        status: monitor.lastStatus === 'down' ? 'down' : 'up',
        error: null,
        incident: null,
        startedAt: null,
        durationSeconds: null,
        severity: 'medium',
        timestamp: now,
        evidence: {},
        certificateExpiresAt: notAfter,
      });
    });
    if (written > 0) this.written();
    return recorded;
  }

  /** The monitor's active contacts, in the monitor's order. */
  private async contactsOf(m: EntityManager, monitorId: string): Promise<ContactEntity[]> {
    const links = await m.find(MonitorContactEntity, { where: { monitorId }, order: { position: 'ASC' } });
    if (links.length === 0) return [];
    const contacts = await m.findBy(
      ContactEntity,
      links.map((l) => ({ id: l.contactId, active: true })),
    );
    const byId = new Map(contacts.map((c) => [c.id, c]));
    return links.map((l) => byId.get(l.contactId)).filter((c): c is ContactEntity => c !== undefined);
  }

  /**
   * Inside the caller's transaction `m`: queues `event` of `monitor` for its active contacts
   * (`monitor.up` skips those with `down_alerts_only`). Returns how many rows were written; the
   * caller calls `written()` once its transaction has committed.
   */
  async enqueue(
    m: EntityManager,
    monitor: MonitorEntity,
    event: NotificationEventType,
    facts: EventFacts,
  ): Promise<number> {
    const active = await this.contactsOf(m, monitor.id);
    const contacts = event === 'monitor.up' ? active.filter((c) => !c.downAlertsOnly) : active;
    if (contacts.length === 0) return 0;
    const payload = this.storedEvent(monitor, event, facts);
    const now = this.clock.now();
    await m.insert(
      NotificationEntity,
      contacts.map((contact) => ({
        id: newObjectId(now),
        accountId: monitor.accountId,
        contactId: contact.id,
        monitorId: monitor.id,
        incidentId: facts.incident?.id ?? null,
        event,
        payload,
        state: 'pending' as const,
        attempts: 0,
        nextAttemptAt: now,
        lockedUntil: 0,
        createdAt: now,
        lastAttemptAt: null,
        lastClass: null,
        lastStatus: null,
        lastDetail: null,
        deliveredAt: null,
        ref: null,
      })),
    );
    return contacts.length;
  }

  private storedEvent(monitor: MonitorEntity, event: NotificationEventType, facts: EventFacts): StoredEvent {
    // A heartbeat has no URL: its target line says what it expects (docs/decisions/0027-heartbeat-monitors.md).
    const heartbeat = monitor.monitorType === 'heartbeat' ? (monitor.settings as HeartbeatSettings) : null;
    const target = heartbeat ? describeHeartbeat(heartbeat) : (monitor.settings as ProbedSettings).url;
    const dedupKey = facts.incident
      ? `${monitor.id}-${facts.incident.id}`
      : facts.certificateExpiresAt !== undefined
        ? `${monitor.id}-cert-${facts.certificateExpiresAt}`
        : null;
    return {
      event,
      timestamp: facts.timestamp,
      monitor: {
        id: monitor.id,
        name: monitor.name,
        settings: { [monitor.monitorType satisfies MonitorType]: monitor.settings },
        target,
        host: heartbeat ? 'heartbeat' : hostOf(target),
      },
      status: facts.status,
      error: facts.error,
      incidentId: facts.incident?.id ?? null,
      dedupKey,
      startedAt: facts.startedAt,
      durationSeconds: facts.durationSeconds,
      // A heartbeat is checked from no region: its messages list none ("failing in 1 of 1 regions").
      regions: Object.entries(heartbeat ? {} : facts.evidence).map(([region, e]) => ({
        region: region as RegionId,
        status: e.status,
        error: e.error,
      })),
      certificateExpiresAt: facts.certificateExpiresAt ?? null,
      severity: facts.severity,
      link: this.config.PUBLIC_URL ? `${this.config.PUBLIC_URL.replace(/\/$/, '')}/monitors/${monitor.id}` : null,
    } satisfies Omit<NotificationEvent, 'id' | 'openRef'>;
  }
}

/** The host of a monitor target (`https://h/…`, `tcp://h:p`, `ping://h`). */
export function hostOf(target: string): string {
  const match = /^[a-z]+:\/\/(\[[^\]]+\]|[^/:?#]+)/i.exec(target);
  return match?.[1] ?? target;
}
