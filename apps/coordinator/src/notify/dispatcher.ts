import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { In, LessThanOrEqual, Not } from 'typeorm';
import { CLOCK, newObjectId, scopedAbort, within, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import type { Channel, ChannelDetails } from '../contacts/channels.js';
import { Database } from '../database/database.js';
import type { DeliveryEnd } from '../contacts/contact-health.js';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { NOTIFY_TIMEOUT_MS } from './http-sender.js';
import { NotificationAttemptEntity, NotificationEntity } from './notification.entity.js';
import type { NotificationEvent } from './notification-event.js';
import type { DeliveryOutcome, Notifier, NotifierTable } from './notifier.js';
import { NotifyMetrics } from './notify-metrics.js';
import { OutboxService } from './outbox.service.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import { rulesWithDefaults } from '../monitors/notification-rules.js';
import { isDownEvent } from './text.js';
import { nextAttemptAt } from './retry-policy.js';

export const NOTIFIERS = Symbol('NOTIFIERS');

type RowUpdate = Partial<Omit<NotificationEntity, 'account' | 'contact' | 'monitor' | 'incident' | 'payload'>>;

/** A claimed row belongs to one dispatcher this long (longer than any attempt). */
export const CLAIM_MS = 60_000;
const BATCH = 20;
const POLL_MS = 1_000;

/**
 * The only sender and the only retry loop. It claims due outbox rows (FOR UPDATE SKIP LOCKED
 * on PostgreSQL, so several coordinators never send the same row at once), delivers each
 * through its channel's notifier, logs the attempt, and schedules a retry, finishes the row,
 * or gives up — updating the contact's `error` from the first failed attempt on (a retryable
 * one while retries continue), its failure count, and deactivating it after five failed
 * deliveries in a row. A crash between sending and recording repeats the delivery with the
 * same ids (at least once; receivers deduplicate). The claim: docs/decisions/0012-raw-sql-where-kept.md.
 */
@Injectable()
export class Dispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Notifications');
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly shutdown = new AbortController();
  /**
   * Rows this dispatcher claimed and has not recorded (id → the locked_until its claim set):
   * when a round breaks on a database error after the claim, the next round takes them up
   * again at once instead of leaving them to wait out CLAIM_MS. Only while the claim is still
   * the one this dispatcher made (compare-and-set on locked_until).
   */
  private readonly held = new Map<string, number>();
  /** Held rows a running round is delivering now: never taken up again while it does. */
  private readonly inFlight = new Set<string>();
  /** The jitter source of retry delays (tests fix it). */
  random: () => number = Math.random;

  constructor(
    private readonly db: Database,
    @Inject(NOTIFIERS) private readonly notifiers: NotifierTable,
    private readonly config: CoordinatorConfig,
    private readonly metrics: NotifyMetrics,
    private readonly contacts: ContactsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly outbox: OutboxService,
  ) {
    metrics.trackOutbox(() => this.depth());
  }

  onApplicationBootstrap(): void {
    if (this.config.DISPATCH_ENABLED === 'false') {
      this.logger.warn('DISPATCH_ENABLED=false: notifications wait in the outbox');
      this.stopped = true;
      return;
    }
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const running = this.running;
    if (running) {
      await within(running, NOTIFY_TIMEOUT_MS, undefined);
      this.shutdown.abort(new Error('coordinator stopping'));
    }
    const closing = Object.values(this.notifiers).map((n: Notifier<Channel>) => n.close?.() ?? Promise.resolve());
    await Promise.all(closing);
  }

  /** New rows were committed: look at once instead of at the next poll. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** Delivers everything due now; resolves when the outbox has nothing due (tests call it). */
  async runOnce(): Promise<void> {
    for (;;) {
      const rows = await this.claim(this.clock.now());
      if (rows.length === 0) return;
      await Promise.all(rows.map((row) => this.deliver(row).finally(() => this.inFlight.delete(row.id))));
    }
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .catch((error: unknown) => this.logger.warn(`dispatch round failed: ${String(error)}`))
        .finally(() => {
          this.running = null;
          const next = this.again ? 0 : POLL_MS;
          this.again = false;
          this.schedule(next);
        });
    }, delay);
    this.timer.unref();
  }

  /** Takes up to BATCH due rows for this dispatcher: unclaimed ones, and its own unrecorded ones (see held). */
  private async claim(now: number): Promise<NotificationEntity[]> {
    const held = [...this.held].filter(([id]) => !this.inFlight.has(id)).slice(0, BATCH);
    const until = now + CLAIM_MS;
    const taken: string[] = [];
    try {
      return await this.claimIn(now, until, held, taken);
    } catch (error) {
      // Their claim's fate is unknown: not in flight, held, so the next round checks.
      for (const id of taken) this.inFlight.delete(id);
      throw error;
    }
  }

  private claimIn(
    now: number,
    until: number,
    held: [string, number][],
    taken: string[],
  ): Promise<NotificationEntity[]> {
    return this.db.transaction(async (m) => {
      const mine = held.map((_, i) => `(n.id = :held${i} AND n.locked_until = :until${i})`);
      const qb = m
        .createQueryBuilder(NotificationEntity, 'n')
        .select('n.id', 'id')
        .where('n.state = :state', { state: 'pending' })
        .andWhere('n.next_attempt_at <= :now', { now })
        .andWhere(`(${['n.locked_until <= :now', ...mine].join(' OR ')})`)
        .orderBy('n.next_attempt_at', 'ASC')
        .limit(BATCH);
      held.forEach(([id, lockedUntil], i) => qb.setParameters({ [`held${i}`]: id, [`until${i}`]: lockedUntil }));
      if (this.db.dialect === 'postgres') qb.setLock('pessimistic_write').setOnLocked('skip_locked');
      const ids = (await qb.getRawMany<{ id: string }>()).map((r) => r.id);
      // A held row not taken now was claimed by another dispatcher after this claim expired, or
      // (rarely) did not fit in the batch: it then waits out its claim, as every row did before.
      for (const [id] of held) this.held.delete(id);
      if (ids.length === 0) return [];
      // Noted before the commit (and in flight at once, so that a concurrent round cannot take
      // them up): if the commit's fate is unknown, the next round checks.
      for (const id of ids) {
        this.held.set(id, until);
        this.inFlight.add(id);
        taken.push(id);
      }
      await m.update(NotificationEntity, { id: In(ids) }, { lockedUntil: until });
      return m.findBy(NotificationEntity, { id: In(ids) });
    });
  }

  private async deliver(row: NotificationEntity): Promise<void> {
    // Through the repository: the contact's secrets opened (a wrong key throws, nothing is sent).
    const contact = await this.contacts.findById(row.contactId);
    if (!contact || !contact.active) return this.cancel(row, null);
    if (isDownEvent(row.event) && row.incidentId !== null) {
      // A paused monitor notifies nobody: what its outage still had planned is dropped.
      const monitor = await this.db.manager.findOneBy(MonitorEntity, { id: row.monitorId });
      if (!monitor?.active) return this.cancel(row, 'the monitor was paused before this message was sent');
      // The contact's next reminder is planned before this one is sent (so a crash after the send
      // cannot lose the chain); a replay of this row plans the same one (docs/decisions/0029-notification-rules.md).
      // (The poll finds it when it is due.)
      if (rulesWithDefaults(monitor.notificationRules).repeat_interval_seconds > 0)
        await this.outbox.chainReminder(row);
    }
    const event: NotificationEvent = { ...row.payload, id: row.id, openRef: await this.openRef(row) };
    const started = this.clock.now();
    const outcome = await this.attempt(contact.channel, contact.details, event);
    this.metrics.recordDelivery(contact.channel, outcome.class);
    if (outcome.class === 'bug') {
      this.logger.error(`${contact.channel} rejected the notification Picket built (${outcome.detail}); row ${row.id}`);
    }
    await this.record(row, contact.id, outcome, started);
  }

  private async cancel(row: NotificationEntity, why: string | null): Promise<void> {
    await this.db.transaction((m) =>
      m
        .update(
          NotificationEntity,
          { id: row.id },
          { state: 'cancelled', lockedUntil: 0, ...(why ? { lastDetail: why } : {}) },
        )
        .then(() => undefined),
    );
    this.held.delete(row.id);
  }

  /** One attempt, bounded by the per-attempt limit; a throwing notifier is a bug of ours, retried. */
  async attempt(
    channel: Channel,
    details: Record<string, unknown>,
    event: NotificationEvent,
  ): Promise<DeliveryOutcome> {
    const scope = scopedAbort(this.shutdown.signal);
    const timer = setTimeout(
      () => scope.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
      NOTIFY_TIMEOUT_MS + 1000,
    );
    const notifier = this.notifiers[channel] as Notifier<Channel>;
    try {
      return await notifier.deliver(details as unknown as ChannelDetails[Channel], event, {
        signal: scope.signal,
        now: () => this.clock.now(),
      });
    } catch (error) {
      this.logger.error(`${channel} notifier threw: ${error instanceof Error ? error.stack : String(error)}`);
      return { class: 'retry', status: null, detail: 'internal error while sending' };
    } finally {
      clearTimeout(timer);
      scope.release();
    }
  }

  /** What the opening delivery of the same outage to the same contact stored (for closing calls and reminders). */
  private async openRef(row: NotificationEntity): Promise<string | null> {
    if ((row.event !== 'monitor.up' && row.event !== 'monitor.down.reminder') || row.incidentId === null) return null;
    const opening = await this.db.manager.findOneBy(NotificationEntity, {
      contactId: row.contactId,
      incidentId: row.incidentId,
      event: 'monitor.down',
    });
    return opening?.ref ?? null;
  }

  private async record(row: NotificationEntity, contactId: string, outcome: DeliveryOutcome, started: number) {
    const now = this.clock.now();
    const attempts = row.attempts + 1;
    let end: DeliveryEnd | null = null;
    const update: RowUpdate = {
      attempts,
      lastAttemptAt: now,
      lastClass: outcome.class,
      lastStatus: outcome.status,
      lastDetail: outcome.detail,
      lockedUntil: 0,
    };
    if (outcome.class === 'ok') {
      Object.assign(update, { state: 'delivered', deliveredAt: now, ref: outcome.ref ?? null });
      end = { kind: 'delivered' };
    } else if (outcome.class === 'retry' || outcome.class === 'config') {
      const next = nextAttemptAt({
        attempts,
        createdAt: row.createdAt,
        now,
        retryAfterMs: outcome.retryAfterMs,
        random: this.random(),
      });
      if (next === null) {
        update.state = 'failed';
        end =
          outcome.class === 'config'
            ? { kind: 'config', detail: outcome.detail, at: now }
            : {
                kind: 'failed',
                class: 'retry',
                detail: `gave up after ${attempts} attempts: ${outcome.detail}`,
                at: now,
              };
      } else {
        update.nextAttemptAt = next;
        end =
          outcome.class === 'config'
            ? { kind: 'config', detail: outcome.detail, at: now }
            : { kind: 'retrying', detail: `attempt ${attempts} failed, retrying: ${outcome.detail}`, at: now };
      }
    } else {
      update.state = 'failed';
      end = { kind: 'failed', class: outcome.class, detail: outcome.detail, at: now };
    }
    let deactivated = false;
    await this.db.transaction(async (m) => {
      await m.insert(NotificationAttemptEntity, {
        id: newObjectId(now),
        notificationId: row.id,
        contactId,
        attemptedAt: started,
        outcome: outcome.class,
        status: outcome.status,
        detail: outcome.detail,
        durationMs: Math.max(0, now - started),
      });
      // Never over a cancellation (an up transition cancels only unclaimed rows; this is the backstop).
      await m.update(NotificationEntity, { id: row.id, state: Not('cancelled') }, update);
      if (end) deactivated = await this.contacts.recordDelivery(m, contactId, end);
    });
    this.held.delete(row.id);
    if (deactivated) {
      this.metrics.recordDeactivation();
      this.logger.warn(`contact ${contactId} deactivated after consecutive failed deliveries`);
    }
  }

  private async depth(): Promise<{ pending: number; oldestAgeSeconds: number }> {
    // Planned messages (a delay, an escalation step, a reminder) count once they are due.
    const pending = await this.db.manager.count(NotificationEntity, {
      where: { state: 'pending', createdAt: LessThanOrEqual(this.clock.now()) },
    });
    const oldest = await this.db.manager.findOne(NotificationEntity, {
      where: { state: 'pending', createdAt: LessThanOrEqual(this.clock.now()) },
      order: { createdAt: 'ASC' },
    });
    return { pending, oldestAgeSeconds: oldest ? Math.max(0, (this.clock.now() - oldest.createdAt) / 1000) : 0 };
  }
}
