import { Inject, Injectable } from '@nestjs/common';
import { IsNull, type EntityManager } from 'typeorm';
import type { MonitorType, RegionId } from '#contracts';
import { CLOCK, newObjectId, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { Database } from '../database/database.js';
import { IncidentEntity, type RegionEvidence } from '../incidents/incident.entity.js';
import { MonitorContactEntity, MonitorEntity } from '../monitors/monitor.entity.js';
import { NotificationEntity, type StoredEvent } from './notification.entity.js';
import type { NotificationEvent, NotificationEventType, SeverityLevel } from './notification-event.js';
import { CertificateAlertEntity } from './notification.entity.js';

export interface TransitionInput {
  monitorId: string;
  status: 'up' | 'down';
  /** Unix seconds. */
  changedAt: number;
  /** The deciding result's error when down (becomes the incident's reason). */
  reason: string | null;
  /** The latest result per region: the incident's evidence and the message's region list. */
  evidence: Partial<Record<RegionId, RegionEvidence>>;
  /**
   * Checked inside the transaction, after the monitor's row is locked: whether the writer still
   * holds the monitor's partition lease. When it does not, nothing is written.
   */
  fence?: (m: EntityManager) => Promise<boolean>;
}

/** A status change refused because the replica no longer leases the monitor's partition. */
export class LeaseLostError extends Error {
  constructor(monitorId: string) {
    super(`this coordinator no longer holds the partition of monitor ${monitorId}`);
    this.name = 'LeaseLostError';
  }
}

/** Thresholds of certificate warnings, in days before notAfter (docs/decisions/0005-checks-and-status.md). */
export const CERTIFICATE_WARNING_DAYS = [14, 1] as const;

type Listener = () => void;

/**
 * The writing side of notifications. A status change, the incident it opens or resolves, and
 * one outbox row per contact to tell commit in ONE transaction; the dispatcher sends later,
 * so a crash between the two loses nothing.
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

  /**
   * Records a monitor's new status. `down` of an active monitor opens an incident (unless one
   * is open) and queues `monitor.down` for its active contacts; `up` resolves the open
   * incident and, for an active monitor, queues `monitor.up` for active contacts that want it.
   * Paused monitors get their status recorded and incidents resolved, but notify nobody.
   */
  async recordTransition(input: TransitionInput): Promise<void> {
    const written = await this.db.transaction(async (m) => {
      // The row lock serialises status changes of one monitor across replicas (PostgreSQL;
      // SQLite transactions are serialised already).
      const monitor = await m.findOne(MonitorEntity, {
        where: { id: input.monitorId },
        ...(this.db.dialect === 'postgres' ? { lock: { mode: 'pessimistic_write' as const } } : {}),
      });
      if (!monitor) return 0;
      if (input.fence && !(await input.fence(m))) throw new LeaseLostError(input.monitorId);
      await m.update(
        MonitorEntity,
        { id: monitor.id },
        { lastStatus: input.status, lastStatusChange: input.changedAt },
      );
      const open = await m.findOneBy(IncidentEntity, { monitorId: monitor.id, resolvedAt: IsNull() });
      if (input.status === 'down') {
        if (!monitor.active || open) return 0;
        const incident = Object.assign(new IncidentEntity(), {
          id: newObjectId(this.clock.now()),
          accountId: monitor.accountId,
          monitorId: monitor.id,
          monitorName: monitor.name,
          startedAt: input.changedAt,
          resolvedAt: null,
          reason: input.reason ?? 'Down',
          userComment: '',
          checkResults: input.evidence,
          createdAt: input.changedAt,
          updatedAt: input.changedAt,
        });
        await m.insert(IncidentEntity, incident);
        const contacts = await this.contactsOf(m, monitor.id);
        return this.queue(m, monitor, contacts, 'monitor.down', {
          status: 'down',
          error: incident.reason,
          incident,
          startedAt: incident.startedAt,
          durationSeconds: null,
          severity: 'critical',
          timestamp: input.changedAt,
          evidence: input.evidence,
        });
      }
      if (!open) return 0;
      await m.update(IncidentEntity, { id: open.id }, { resolvedAt: input.changedAt, updatedAt: input.changedAt });
      if (!monitor.active) return 0;
      const contacts = (await this.contactsOf(m, monitor.id)).filter((c) => !c.downAlertsOnly);
      return this.queue(m, monitor, contacts, 'monitor.up', {
        status: 'up',
        error: null,
        incident: open,
        startedAt: open.startedAt,
        durationSeconds: Math.max(0, input.changedAt - open.startedAt),
        severity: 'critical',
        timestamp: input.changedAt,
        evidence: input.evidence,
      });
    });
    if (written > 0) for (const listener of this.listeners) listener();
  }

  /**
   * Records that a monitor's certificate expires at `notAfter` (Unix s); queues one
   * `certificate.expiring` per newly crossed threshold set (14 days, 1 day), once per
   * certificate and threshold. Returns the thresholds newly recorded.
   */
  async recordCertificate(monitorId: string, notAfter: number): Promise<number[]> {
    const now = Math.floor(this.clock.now() / 1000);
    const due = CERTIFICATE_WARNING_DAYS.filter((days) => notAfter > now && notAfter - now <= days * 86_400);
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
      const contacts = await this.contactsOf(m, monitor.id);
      return this.queue(m, monitor, contacts, 'certificate.expiring', {
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
    if (written > 0) for (const listener of this.listeners) listener();
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

  private async queue(
    m: EntityManager,
    monitor: MonitorEntity,
    contacts: ContactEntity[],
    event: NotificationEventType,
    facts: {
      status: 'up' | 'down';
      error: string | null;
      incident: IncidentEntity | null;
      startedAt: number | null;
      durationSeconds: number | null;
      severity: SeverityLevel;
      timestamp: number;
      evidence: Partial<Record<RegionId, RegionEvidence>>;
      certificateExpiresAt?: number;
    },
  ): Promise<number> {
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

  private storedEvent(
    monitor: MonitorEntity,
    event: NotificationEventType,
    facts: Parameters<OutboxService['queue']>[4],
  ): StoredEvent {
    const target = monitor.settings.url;
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
        host: hostOf(target),
      },
      status: facts.status,
      error: facts.error,
      incidentId: facts.incident?.id ?? null,
      dedupKey,
      startedAt: facts.startedAt,
      durationSeconds: facts.durationSeconds,
      regions: Object.entries(facts.evidence).map(([region, e]) => ({
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
