import { Inject, Injectable } from '@nestjs/common';
import { In, IsNull, Not, type EntityManager } from 'typeorm';
import type { HeartbeatSettings, MonitorType, ProbedSettings, RegionId } from '#contracts';
import { describeHeartbeat } from '../heartbeats/heartbeat.js';
import { CLOCK, newObjectId, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { Database } from '../database/database.js';
import { IncidentEntity, type RegionEvidence } from '../incidents/incident.entity.js';
import { MonitorContactEntity, MonitorEntity } from '../monitors/monitor.entity.js';
import { rulesWithDefaults } from '../monitors/notification-rules.js';
import { MAIN_RULE, nextReminder, planOutage, type PlannedMessage } from './outage-plan.js';
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
   * (`monitor.up` skips those with `down_alerts_only`), due now. Returns how many rows were
   * written; the caller calls `written()` once its transaction has committed.
   */
  async enqueue(
    m: EntityManager,
    monitor: MonitorEntity,
    event: NotificationEventType,
    facts: EventFacts,
  ): Promise<number> {
    const active = await this.contactsOf(m, monitor.id);
    const contacts = event === 'monitor.up' ? active.filter((c) => !c.downAlertsOnly) : active;
    const now = this.clock.now();
    const payload = this.storedEvent(monitor, event, facts);
    return this.insertPlanned(
      m,
      monitor,
      payload,
      contacts.map((c) => ({ contactId: c.id, rule: MAIN_RULE, dueAt: now })),
    );
  }

  /**
   * Inside the down transition's transaction: plans every `monitor.down` of the outage `facts`
   * opens, by the monitor's notification rules (outage-plan.ts): its contacts after the delay,
   * each escalation step's contacts at their time. Returns how many rows were planned.
   */
  async planOutage(m: EntityManager, monitor: MonitorEntity, facts: EventFacts): Promise<number> {
    const rules = rulesWithDefaults(monitor.notificationRules);
    const main = (await this.contactsOf(m, monitor.id)).map((c) => c.id);
    const named = rules.escalation.flatMap((step) => step.contacts);
    const active = new Set(
      named.length === 0
        ? []
        : (
            await m.find(ContactEntity, {
              select: { id: true },
              where: { accountId: monitor.accountId, id: In(named), active: true },
            })
          ).map((c) => c.id),
    );
    const planned = planOutage(rules, main, (id) => active.has(id), facts.startedAt ?? facts.timestamp);
    return this.insertPlanned(m, monitor, this.storedEvent(monitor, 'monitor.down', facts), planned);
  }

  /**
   * Inside the up transition's transaction (the monitor's row locked): cancels the outage's
   * messages that were not sent and not yet due at `resolvedAt` (Unix s) — reminders, delayed
   * and escalation `monitor.down`s — unless a dispatcher holds them; then, when `notify`, queues
   * `monitor.up` for every active contact told of the outage (a `monitor.down` not cancelled),
   * except `down_alerts_only` ones. Returns how many rows were queued.
   */
  async planRecovery(
    m: EntityManager,
    monitor: MonitorEntity,
    facts: EventFacts & { incident: IncidentEntity },
    notify: boolean,
  ): Promise<number> {
    const now = this.clock.now();
    const incidentId = facts.incident.id;
    await m
      .createQueryBuilder()
      .update(NotificationEntity)
      .set({ state: 'cancelled', lastDetail: 'the outage ended before this message was due', lockedUntil: 0 })
      .where('incident_id = :incidentId', { incidentId })
      .andWhere('state = :pending', { pending: 'pending' })
      .andWhere('attempts = 0')
      .andWhere('locked_until <= :now', { now })
      .andWhere(`(event = :reminder OR (event = :down AND created_at > :resolvedAt))`, {
        reminder: 'monitor.down.reminder',
        down: 'monitor.down',
        resolvedAt: facts.timestamp * 1000,
      })
      .execute();
    if (!notify) return 0;
    const told = await m.find(NotificationEntity, {
      select: { contactId: true },
      where: { incidentId, event: 'monitor.down', state: Not('cancelled') },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    if (told.length === 0) return 0;
    const contacts = await m.find(ContactEntity, {
      select: { id: true },
      where: { id: In(told.map((t) => t.contactId)), active: true, downAlertsOnly: false },
    });
    const wanted = new Set(contacts.map((c) => c.id));
    const order = [...new Set(told.map((t) => t.contactId))].filter((id) => wanted.has(id));
    return this.insertPlanned(
      m,
      monitor,
      this.storedEvent(monitor, 'monitor.up', facts),
      order.map((contactId) => ({ contactId, rule: MAIN_RULE, dueAt: now })),
    );
  }

  /**
   * Called by the dispatcher when it takes up `row` (a `monitor.down` or reminder of an
   * outage): plans that contact's next reminder, in a transaction of its own with the monitor's
   * row locked (PostgreSQL), so it cannot slip past the up transition that would cancel it —
   * only while the incident is open and the monitor active, and only when the monitor's
   * rules (as they are now) ask for reminders. Idempotent: a replay plans the same row.
   */
  async chainReminder(row: NotificationEntity): Promise<boolean> {
    if (row.incidentId === null || (row.event !== 'monitor.down' && row.event !== 'monitor.down.reminder')) {
      return false;
    }
    const incidentId = row.incidentId;
    const planned = await this.db.transaction(async (m) => {
      const monitor = await m.findOne(MonitorEntity, {
        where: { id: row.monitorId },
        ...(this.db.dialect === 'postgres' ? { lock: { mode: 'pessimistic_write' as const } } : {}),
      });
      if (!monitor?.active) return 0;
      const next = nextReminder(
        row.rule,
        row.createdAt,
        rulesWithDefaults(monitor.notificationRules).repeat_interval_seconds,
        this.clock.now(),
      );
      if (!next) return 0;
      if (!(await m.existsBy(IncidentEntity, { id: incidentId, resolvedAt: IsNull() }))) return 0;
      const payload: StoredEvent = {
        ...row.payload,
        event: 'monitor.down.reminder',
        timestamp: Math.floor(next.dueAt / 1000),
      };
      return this.insertPlanned(m, monitor, payload, [{ contactId: row.contactId, ...next }]);
    });
    return planned > 0;
  }

  /**
   * Writes planned rows, each once: a row the plan already holds (same incident, contact, event
   * and rule: uq_notifications_planned) is left alone, so a replayed write adds nothing.
   */
  private async insertPlanned(
    m: EntityManager,
    monitor: MonitorEntity,
    payload: StoredEvent,
    planned: PlannedMessage[],
  ): Promise<number> {
    if (planned.length === 0) return 0;
    const now = this.clock.now();
    const rows = planned.map(
      ({ contactId, rule, dueAt }): Omit<NotificationEntity, 'account' | 'contact' | 'monitor' | 'incident'> => ({
        id: newObjectId(now),
        accountId: monitor.accountId,
        contactId,
        monitorId: monitor.id,
        incidentId: payload.incidentId,
        event: payload.event,
        rule,
        payload,
        state: 'pending',
        attempts: 0,
        nextAttemptAt: dueAt,
        lockedUntil: 0,
        // The planned time: the retry horizon and the outbox age count from it.
        createdAt: dueAt,
        lastAttemptAt: null,
        lastClass: null,
        lastStatus: null,
        lastDetail: null,
        deliveredAt: null,
        ref: null,
      }),
    );
    await m.createQueryBuilder().insert().into(NotificationEntity).values(rows).orIgnore().execute();
    return rows.length;
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
