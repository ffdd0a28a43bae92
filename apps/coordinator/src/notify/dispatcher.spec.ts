import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { In, type DataSource, type FindOptionsWhere } from 'typeorm';
import { createRegistry, ManualClock, newObjectId } from '#runtime';
import { testDatabases, type TestDatabase } from '../../../../test/support/databases.js';
import { waitFor } from '../../../../test/support/wait.js';
import { AccountEntity } from '../auth/account.entity.js';
import { loadCoordinatorConfig } from '../config.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { ephemeralSecretBox } from '../secrets/secret-box.js';
import { openDataSource, parseDatabaseUrl } from '../database/data-source.js';
import { ENTITIES } from '../entities.js';
import { Database } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { IncidentEntity } from '../incidents/incident.entity.js';
import { MonitorContactEntity, MonitorEntity } from '../monitors/monitor.entity.js';
import { TransitionWriter } from '../transitions/transition.writer.js';
import { CLAIM_MS, Dispatcher } from './dispatcher.js';
import { DEFAULT_NOTIFICATION_RULES, type NotificationRules } from '../monitors/notification-rules.js';
import { NotificationAttemptEntity, NotificationEntity } from './notification.entity.js';
import type { NotificationEvent } from './notification-event.js';
import type { DeliveryOutcome, NotifierTable } from './notifier.js';
import { NotifyMetrics } from './notify-metrics.js';
import { OutboxService } from './outbox.service.js';
import { RETRY_DELAYS_MS } from './retry-policy.js';

/**
 * The outbox and its dispatcher on real databases with an injected clock. The channel
 * notifier is a recording stand-in answering what each test scripts: what is under test
 * here is who gets a row, when attempts happen, and what a contact's failures lead to.
 */
type Script = (event: NotificationEvent, contactId: string) => DeliveryOutcome;

class Harness {
  readonly calls: { event: NotificationEvent; contactId: string; at: number }[] = [];
  script: Script = () => ({ class: 'ok', status: 202, detail: 'HTTP 202' });
  /** Every delivery waits for this before it answers (tests hold deliveries in flight). */
  gate: Promise<void> = Promise.resolve();
  readonly clock = new ManualClock(Date.UTC(2026, 10, 22, 10, 0, 0));
  db!: Database;
  outbox!: OutboxService;
  transitions!: TransitionWriter;
  dispatcher!: Dispatcher;
  accountId = newObjectId(this.clock.now());

  constructor(readonly dataSource: DataSource) {}

  async init(): Promise<this> {
    await migrate(this.dataSource);
    this.db = new Database(this.dataSource);
    const config = loadCoordinatorConfig({ DATABASE_URL: 'sqlite::memory:' });
    this.outbox = new OutboxService(this.db, config, this.clock);
    this.transitions = new TransitionWriter(this.db, this.outbox, this.clock);
    const record = async (details: Record<string, unknown>, event: NotificationEvent) => {
      const contactId = String(details.contact_id);
      this.calls.push({ event, contactId, at: this.clock.now() });
      await this.gate;
      return this.script(event, contactId);
    };
    const notifier = { deliver: record };
    const table = Object.fromEntries(
      [
        'email',
        'webhook',
        'chatone',
        'chattwo',
        'chatthree',
        'paging',
        'incidentmgmt',
        'alerting',
        'ticketing',
        'push',
      ].map((c) => [c, notifier]),
    ) as unknown as NotifierTable;
    this.dispatcher = new Dispatcher(
      this.db,
      table,
      config,
      new NotifyMetrics(createRegistry()),
      new ContactsRepository(this.db, ephemeralSecretBox()),
      this.clock,
      this.outbox,
    );
    this.dispatcher.random = () => 0.5; // no jitter: exact schedule
    await this.dataSource.manager.insert(AccountEntity, {
      id: this.accountId,
      name: 'a',
      subscriptionStatus: 'active',
      createdAt: 1,
    });
    return this;
  }

  async contact(flags: Partial<ContactEntity> = {}): Promise<string> {
    const id = newObjectId(this.clock.now());
    const contact = Object.assign(new ContactEntity(), {
      id,
      accountId: this.accountId,
      name: `c-${id.slice(-4)}`,
      channel: 'webhook',
      // The stand-in notifier reads the contact id from its details.
      details: { url: 'https://hooks.example.com', secret: null, contact_id: id },
      active: true,
      downAlertsOnly: false,
      error: null,
      consecutiveFailures: 0,
      createdAt: 1,
      updatedAt: 1,
      ...flags,
    });
    await this.dataSource.manager.save(contact);
    return id;
  }

  async monitor(contactIds: string[], flags: Partial<MonitorEntity> = {}): Promise<string> {
    const id = newObjectId(this.clock.now());
    await this.dataSource.manager.insert(MonitorEntity, {
      id,
      accountId: this.accountId,
      name: 'API (prod)',
      active: true,
      checkInterval: 60,
      timeout: 10,
      failThreshold: 2,
      regions: ['eu-west-1', 'us-east-1'],
      monitorType: 'https',
      settings: { url: 'https://api.example.com/health', check_certificate_expiration: false },
      lastStatus: 'up',
      lastStatusChange: 1,
      createdAt: 1,
      updatedAt: 1,
      ...flags,
    });
    if (contactIds.length > 0) {
      await this.dataSource.manager.insert(
        MonitorContactEntity,
        contactIds.map((contactId, position) => ({ monitorId: id, contactId, position })),
      );
    }
    return id;
  }

  transition(monitorId: string, status: 'up' | 'down', reason: string | null = 'HTTP 503') {
    return this.transitions.write({
      monitorId,
      status,
      changedAt: Math.floor(this.clock.now() / 1000),
      reason: status === 'down' ? reason : null,
      evidence: {
        'eu-west-1': {
          status,
          response_time_ms: 12,
          error: status === 'down' ? reason : null,
          checked_at: 1,
          checker_ip: null,
        },
      },
    });
  }

  /**
   * The database fails the second transaction from now on (a round's claim is the first, its
   * record the second), as a connection cut between a send and its record would.
   * `again()` fails the second one after that call too; `mend()` ends it.
   */
  breakTheRecord(): { again(): void; mend(): void } {
    const transaction = this.db.transaction.bind(this.db);
    let calls = 0;
    const spy = jest.spyOn(this.db, 'transaction').mockImplementation((work) => {
      calls++;
      return calls === 2 ? Promise.reject(new Error('Connection terminated unexpectedly')) : transaction(work);
    });
    return { again: () => (calls = 0), mend: () => spy.mockRestore() };
  }

  rows(where: FindOptionsWhere<NotificationEntity> = {}) {
    return this.dataSource.manager.find(NotificationEntity, { where, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  contactRow(id: string) {
    return this.dataSource.manager.findOneByOrFail(ContactEntity, { id });
  }
}

describe.each(testDatabases())('outbox and dispatcher on $name', (kind) => {
  const open: DataSource[] = [];
  let db: TestDatabase | undefined;

  async function harness(): Promise<Harness> {
    db ??= await kind.create();
    const ds = await openDataSource(parseDatabaseUrl(db.url)!, ENTITIES);
    open.push(ds);
    return new Harness(ds).init();
  }

  afterEach(async () => {
    for (const ds of open.splice(0)) await ds.destroy();
    await db?.drop();
    db = undefined;
  });

  it('down opens one incident and queues monitor.down for each active contact, in one commit', async () => {
    const h = await harness();
    const a = await h.contact();
    const b = await h.contact({ downAlertsOnly: true });
    const inactive = await h.contact({ active: false });
    const m = await h.monitor([a, b, inactive]);
    await h.transition(m, 'down');
    await h.transition(m, 'down'); // a second down for the same outage changes nothing
    const incidents = await h.dataSource.manager.findBy(IncidentEntity, { monitorId: m });
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ reason: 'HTTP 503', resolvedAt: null, monitorName: 'API (prod)' });
    const rows = await h.rows();
    expect(rows.map((r) => [r.contactId, r.event, r.state])).toEqual([
      [a, 'monitor.down', 'pending'],
      [b, 'monitor.down', 'pending'],
    ]);
    expect(rows[0]!.payload).toMatchObject({
      event: 'monitor.down',
      status: 'down',
      error: 'HTTP 503',
      incidentId: incidents[0]!.id,
      dedupKey: `${m}-${incidents[0]!.id}`,
      severity: 'critical',
      regions: [{ region: 'eu-west-1', status: 'down', error: 'HTTP 503' }],
    });
    expect((await h.dataSource.manager.findOneByOrFail(MonitorEntity, { id: m })).lastStatus).toBe('down');
  });

  it('up resolves the incident and queues monitor.up, skipping down_alerts_only contacts', async () => {
    const h = await harness();
    const a = await h.contact();
    const b = await h.contact({ downAlertsOnly: true });
    const m = await h.monitor([a, b]);
    await h.transition(m, 'down');
    h.clock.advance(720_000);
    await h.transition(m, 'up');
    const [incident] = await h.dataSource.manager.findBy(IncidentEntity, { monitorId: m });
    expect(incident!.resolvedAt! - incident!.startedAt).toBe(720);
    const ups = await h.rows({ event: 'monitor.up' });
    expect(ups.map((r) => r.contactId)).toEqual([a]);
    expect(ups[0]!.payload).toMatchObject({
      status: 'up',
      error: null,
      durationSeconds: 720,
      dedupKey: `${m}-${incident!.id}`,
    });
  });

  it('a paused monitor records its status but opens no incident and notifies nobody', async () => {
    const h = await harness();
    const a = await h.contact();
    const m = await h.monitor([a], { active: false });
    await h.transition(m, 'down');
    expect((await h.dataSource.manager.findOneByOrFail(MonitorEntity, { id: m })).lastStatus).toBe('down');
    expect(await h.dataSource.manager.count(IncidentEntity)).toBe(0);
    expect(await h.rows()).toHaveLength(0);
  });

  it('delivers each row once, logs the attempt, and hands the opening ref to the closing event', async () => {
    const h = await harness();
    const a = await h.contact();
    const m = await h.monitor([a]);
    h.script = (event) => ({
      class: 'ok',
      status: 201,
      detail: 'HTTP 201',
      ref: event.event === 'monitor.down' ? 'T-1' : undefined,
    });
    await h.transition(m, 'down');
    await h.dispatcher.runOnce();
    await h.dispatcher.runOnce();
    h.clock.advance(60_000);
    await h.transition(m, 'up');
    await h.dispatcher.runOnce();
    expect(h.calls.map((c) => [c.event.event, c.event.openRef])).toEqual([
      ['monitor.down', null],
      ['monitor.up', 'T-1'],
    ]);
    const rows = await h.rows();
    expect(rows.map((r) => [r.state, r.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
    ]);
    expect(h.calls[0]!.event.id).toBe(rows[0]!.id);
    const attempts = await h.dataSource.manager.findBy(NotificationAttemptEntity, { notificationId: rows[0]!.id });
    expect(attempts).toEqual([expect.objectContaining({ outcome: 'ok', status: 201, detail: 'HTTP 201' })]);
  });

  it('a round the database broke after the claim is taken up again at the next round, not after the claim expires', async () => {
    const h = await harness();
    const m = await h.monitor([await h.contact()]);
    await h.transition(m, 'down');
    // The database goes away between the send and its record: the claim stays on the row.
    const broken = h.breakTheRecord();
    await expect(h.dispatcher.runOnce()).rejects.toThrow('Connection terminated');
    h.clock.advance(1_000); // the next poll, well within CLAIM_MS
    await h.dispatcher.runOnce();
    expect(h.calls.map((c) => c.event.event)).toEqual(['monitor.down', 'monitor.down']);
    expect((await h.rows()).map((r) => [r.state, r.attempts, r.lockedUntil])).toEqual([['delivered', 1, 0]]);
    // Meanwhile the claim still keeps every other dispatcher off the row.
    await h.transition(m, 'up');
    broken.again();
    await expect(h.dispatcher.runOnce()).rejects.toThrow('Connection terminated');
    const config = loadCoordinatorConfig({ DATABASE_URL: 'sqlite::memory:' });
    const other = new Dispatcher(
      h.db,
      {} as NotifierTable,
      config,
      new NotifyMetrics(createRegistry()),
      new ContactsRepository(h.db, ephemeralSecretBox()),
      h.clock,
      h.outbox,
    );
    h.clock.advance(1_000);
    await other.runOnce();
    await h.dispatcher.runOnce();
    expect(h.calls.map((c) => c.event.event)).toEqual(['monitor.down', 'monitor.down', 'monitor.up', 'monitor.up']);
    expect((await h.rows()).map((r) => [r.event, r.state, r.attempts])).toEqual([
      ['monitor.down', 'delivered', 1],
      ['monitor.up', 'delivered', 1],
    ]);
  });

  it('a second round of the same dispatcher never takes up a row the first is still delivering', async () => {
    const h = await harness();
    const m = await h.monitor([await h.contact()]);
    await h.transition(m, 'down');
    // A broken round leaves the row claimed by this dispatcher and unrecorded (held).
    const broken = h.breakTheRecord();
    await expect(h.dispatcher.runOnce()).rejects.toThrow('Connection terminated');
    broken.mend();
    h.clock.advance(1_000);
    // The next round takes it up and is held inside the delivery; a round started meanwhile
    // (wake() and the poll, or two callers) finds nothing to do.
    let release!: () => void;
    h.gate = new Promise((resolve) => (release = resolve));
    const first = h.dispatcher.runOnce();
    await waitFor('the first round to be delivering', () => Promise.resolve(h.calls.length === 2 || undefined));
    await h.dispatcher.runOnce();
    expect(h.calls).toHaveLength(2);
    release();
    await first;
    expect((await h.rows()).map((r) => [r.state, r.attempts])).toEqual([['delivered', 1]]);
  });

  it('retries transient failures on the schedule (at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h), then gives up', async () => {
    const h = await harness();
    const a = await h.contact();
    const m = await h.monitor([a]);
    h.script = () => ({ class: 'retry', status: 503, detail: 'HTTP 503' });
    await h.transition(m, 'down');
    const start = h.clock.now();
    for (let guard = 0; guard < 20; guard++) {
      await h.dispatcher.runOnce();
      const [row] = await h.rows();
      if (row!.state !== 'pending') break;
      h.clock.set(row!.nextAttemptAt);
    }
    const offsets = h.calls.map((c) => c.at - start);
    let expected = 0;
    const schedule = [0, ...RETRY_DELAYS_MS.map((d) => (expected += d))];
    expect(offsets).toEqual(schedule);
    const [row] = await h.rows();
    expect(row).toMatchObject({ state: 'failed', attempts: 8, lastClass: 'retry', lastStatus: 503 });
    expect(await h.dataSource.manager.count(NotificationAttemptEntity)).toBe(8);
    const contact = await h.contactRow(a);
    expect(contact.consecutiveFailures).toBe(1);
    expect(contact.error).toMatchObject({ code: 'DELIVERY_EXPIRED', consecutive_failures: 1 });
  });

  it('a retryable failure sets the contact error at once (DELIVERY_RETRYING); the later success clears it', async () => {
    const h = await harness();
    const a = await h.contact();
    const m = await h.monitor([a]);
    h.script = () => ({ class: 'retry', status: 503, detail: 'HTTP 503' });
    await h.transition(m, 'down');
    await h.dispatcher.runOnce(); // the first retry is at once: two attempts, the next in 5 s
    let contact = await h.contactRow(a);
    expect(contact).toMatchObject({ active: true, consecutiveFailures: 0 });
    expect(contact.error).toEqual({
      code: 'DELIVERY_RETRYING',
      message: 'attempt 2 failed, retrying: HTTP 503',
      failed_at: Math.floor(h.clock.now() / 1000),
      consecutive_failures: 0,
    });
    h.clock.set((await h.rows())[0]!.nextAttemptAt);
    await h.dispatcher.runOnce();
    expect((await h.contactRow(a)).error).toMatchObject({
      code: 'DELIVERY_RETRYING',
      message: 'attempt 3 failed, retrying: HTTP 503',
    });
    h.script = () => ({ class: 'ok', status: 200, detail: 'HTTP 200' });
    h.clock.set((await h.rows())[0]!.nextAttemptAt);
    await h.dispatcher.runOnce();
    contact = await h.contactRow(a);
    expect(contact).toMatchObject({ active: true, consecutiveFailures: 0, error: null });
    expect((await h.rows())[0]!.state).toBe('delivered');
  });

  it("honours the provider's Retry-After instead of the schedule", async () => {
    const h = await harness();
    const a = await h.contact();
    const m = await h.monitor([a]);
    h.script = () => ({ class: 'retry', status: 429, detail: 'HTTP 429', retryAfterMs: 42_000 });
    await h.transition(m, 'down');
    const before = h.clock.now();
    await h.dispatcher.runOnce();
    const [row] = await h.rows();
    expect(row!.nextAttemptAt).toBe(before + 42_000);
    expect(h.calls).toHaveLength(1);
  });

  it('deactivates a contact after five consecutive failed deliveries; a success in between resets', async () => {
    const h = await harness();
    const a = await h.contact();
    const m = await h.monitor([a]);
    let answers: DeliveryOutcome['class'][] = ['disable', 'disable', 'ok', 'disable', 'disable', 'disable', 'disable'];
    h.script = () => {
      const cls = answers[0] ?? 'disable';
      answers = answers.slice(1);
      return { class: cls, status: cls === 'ok' ? 200 : 410, detail: cls === 'ok' ? 'HTTP 200' : 'HTTP 410' };
    };
    for (let i = 0; i < 7; i++) {
      await h.transition(m, i % 2 === 0 ? 'down' : 'up');
      await h.dispatcher.runOnce();
      h.clock.advance(1000);
    }
    let contact = await h.contactRow(a);
    expect(contact).toMatchObject({ active: true, consecutiveFailures: 4 });
    await h.transition(m, 'up');
    await h.dispatcher.runOnce();
    contact = await h.contactRow(a);
    expect(contact.active).toBe(false);
    expect(contact.error).toEqual({
      code: 'DESTINATION_REJECTED',
      message: 'HTTP 410',
      failed_at: Math.floor(h.clock.now() / 1000),
      consecutive_failures: 5,
    });
    // An inactive contact gets nothing more: later rows are cancelled without a call.
    const calls = h.calls.length;
    await h.dataSource.manager.update(ContactEntity, { id: a }, { active: true });
    await h.transition(m, 'down');
    await h.dataSource.manager.update(ContactEntity, { id: a }, { active: false });
    await h.dispatcher.runOnce();
    expect(h.calls).toHaveLength(calls);
    expect((await h.rows({ state: 'cancelled' })).length).toBe(1);
  });

  it('warns about an expiring certificate once at 14 days and once at 1 day, per certificate', async () => {
    const h = await harness();
    const a = await h.contact();
    const m = await h.monitor([a]);
    const day = 86_400;
    const now = () => Math.floor(h.clock.now() / 1000);
    const notAfter = now() + 20 * day;
    expect(await h.outbox.recordCertificate(m, notAfter)).toEqual([]); // 20 days: nothing yet
    h.clock.advance(7 * day * 1000); // 13 days left
    expect(await h.outbox.recordCertificate(m, notAfter)).toEqual([14]);
    expect(await h.outbox.recordCertificate(m, notAfter)).toEqual([]); // once
    h.clock.advance(12.5 * day * 1000); // half a day left
    expect(await h.outbox.recordCertificate(m, notAfter)).toEqual([1]);
    const renewed = now() + 10 * day; // a new certificate is a new warning
    expect(await h.outbox.recordCertificate(m, renewed)).toEqual([14]);
    const rows = await h.rows({ event: 'certificate.expiring' });
    expect(rows).toHaveLength(3);
    expect(rows[0]!.payload).toMatchObject({
      certificateExpiresAt: notAfter,
      dedupKey: `${m}-cert-${notAfter}`,
      severity: 'medium',
      incidentId: null,
    });
    expect(rows[2]!.payload.dedupKey).toBe(`${m}-cert-${renewed}`);
    // Expired already: that is a TLS failure (DOWN), not a warning.
    expect(await h.outbox.recordCertificate(m, now() - 10)).toEqual([]);
  });

  it("Picket's own configuration failures set error, keep retrying, and never deactivate", async () => {
    const h = await harness();
    const a = await h.contact({ consecutiveFailures: 4 });
    const m = await h.monitor([a]);
    h.script = () => ({ class: 'config', status: null, detail: 'no SMTP relay configured (SMTP_URL)' });
    await h.transition(m, 'down');
    await h.dispatcher.runOnce();
    const contact = await h.contactRow(a);
    expect(contact).toMatchObject({ active: true, consecutiveFailures: 4 });
    expect(contact.error).toMatchObject({
      code: 'SERVER_CONFIGURATION',
      message: 'no SMTP relay configured (SMTP_URL)',
    });
    const [row] = await h.rows();
    expect(row!.state).toBe('pending');
  });

  describe('notification rules (docs/decisions/0029-notification-rules.md)', () => {
    const rules = (r: Partial<NotificationRules>): Partial<MonitorEntity> => ({
      notificationRules: { ...DEFAULT_NOTIFICATION_RULES, ...r },
    });
    const sent = (h: Harness) => h.calls.map((c) => [c.event.event, c.contactId]);
    /**
     * `list` with its last `n` entries in a fixed order: messages a recovery plans for several
     * contacts at one instant go out together, in any order (CI once saw b's monitor.up first).
     */
    const lastTogether = <T>(list: T[], n: number): T[] => [
      ...list.slice(0, -n),
      ...list.slice(-n).sort((p, q) => JSON.stringify(p).localeCompare(JSON.stringify(q))),
    ];

    it('an outage shorter than the delay notifies nobody but is an incident; a longer one notifies once', async () => {
      const h = await harness();
      const a = await h.contact();
      const m = await h.monitor([a], rules({ delay_seconds: 300 }));
      await h.transition(m, 'down');
      await h.dispatcher.runOnce();
      h.clock.advance(299_000);
      await h.dispatcher.runOnce();
      await h.transition(m, 'up');
      h.clock.advance(3_600_000);
      await h.dispatcher.runOnce();
      expect(h.calls).toEqual([]);
      expect(await h.dataSource.manager.countBy(IncidentEntity, { monitorId: m })).toBe(1);
      expect((await h.rows()).map((r) => [r.event, r.state])).toEqual([['monitor.down', 'cancelled']]);

      await h.transition(m, 'down');
      h.clock.advance(299_000);
      await h.dispatcher.runOnce();
      expect(h.calls).toEqual([]);
      h.clock.advance(1_000);
      await h.dispatcher.runOnce();
      await h.dispatcher.runOnce();
      h.clock.advance(60_000);
      await h.transition(m, 'up');
      await h.dispatcher.runOnce();
      expect(sent(h)).toEqual([
        ['monitor.down', a],
        ['monitor.up', a],
      ]);
    });

    it('escalation steps tell their contacts at their time, once each, and the recovery tells everyone told', async () => {
      const h = await harness();
      const a = await h.contact();
      const b = await h.contact();
      const c = await h.contact({ downAlertsOnly: true });
      const off = await h.contact({ active: false });
      const late = await h.contact();
      const m = await h.monitor(
        [a],
        rules({
          escalation: [
            { after_seconds: 60, contacts: [b, a] },
            { after_seconds: 120, contacts: [c, b, off] },
            { after_seconds: 3600, contacts: [late] },
          ],
        }),
      );
      await h.transition(m, 'down');
      await h.dispatcher.runOnce();
      expect(sent(h)).toEqual([['monitor.down', a]]);
      h.clock.advance(59_000);
      await h.dispatcher.runOnce();
      expect(h.calls).toHaveLength(1);
      h.clock.advance(1_000);
      await h.dispatcher.runOnce();
      h.clock.advance(60_000);
      await h.dispatcher.runOnce();
      expect(sent(h)).toEqual([
        ['monitor.down', a],
        ['monitor.down', b],
        ['monitor.down', c],
      ]);
      // Each contact's down has the outage's dedup key, whichever step told it.
      expect(new Set(h.calls.map((x) => x.event.dedupKey)).size).toBe(1);
      await h.transition(m, 'up'); // before the last step: `late` never hears of it
      await h.dispatcher.runOnce();
      h.clock.advance(7_200_000);
      await h.dispatcher.runOnce();
      expect(lastTogether(sent(h).slice(3), 2)).toEqual(
        lastTogether(
          [
            ['monitor.up', a],
            ['monitor.up', b],
          ],
          2,
        ),
      );
      expect((await h.rows({ contactId: late })).map((r) => [r.rule, r.state])).toEqual([['esc3', 'cancelled']]);
    });

    it("reminders go to every contact told, every interval, with the outage's key and opening ref, until the recovery", async () => {
      const h = await harness();
      const a = await h.contact();
      const b = await h.contact();
      const m = await h.monitor(
        [a],
        rules({ repeat_interval_seconds: 300, escalation: [{ after_seconds: 400, contacts: [b] }] }),
      );
      h.script = (event) => ({
        class: 'ok',
        status: 201,
        detail: 'HTTP 201',
        ref: event.event === 'monitor.down' ? `ref-${event.id}` : undefined,
      });
      const start = h.clock.now();
      await h.transition(m, 'down');
      for (let t = 0; t <= 950; t += 50) {
        h.clock.set(start + t * 1000);
        await h.dispatcher.runOnce();
      }
      h.clock.set(start + 975_000);
      await h.transition(m, 'up');
      await h.dispatcher.runOnce();
      h.clock.advance(3_600_000);
      await h.dispatcher.runOnce();
      expect(
        lastTogether(
          h.calls.map((x) => [x.event.event, x.contactId, (x.at - start) / 1000]),
          2,
        ),
      ).toEqual(
        lastTogether(
          [
            ['monitor.down', a, 0],
            ['monitor.down.reminder', a, 300],
            ['monitor.down', b, 400],
            ['monitor.down.reminder', a, 600],
            ['monitor.down.reminder', b, 700],
            ['monitor.down.reminder', a, 900],
            ['monitor.up', a, 975],
            ['monitor.up', b, 975],
          ],
          2,
        ),
      );
      const down = h.calls[0]!.event;
      for (const reminder of h.calls.filter((x) => x.event.event === 'monitor.down.reminder')) {
        expect(reminder.event.dedupKey).toBe(down.dedupKey);
        expect(reminder.event.incidentId).toBe(down.incidentId);
        const opening = h.calls.find((x) => x.event.event === 'monitor.down' && x.contactId === reminder.contactId)!;
        expect(reminder.event.openRef).toBe(`ref-${opening.event.id}`);
      }
      // The next reminder of each contact was planned and cancelled by the recovery.
      const cancelled = await h.rows({ state: 'cancelled' });
      expect(cancelled.map((r) => [r.contactId, r.rule]).sort()).toEqual(
        [
          [a, 'rem4'],
          [b, 'rem2'],
        ].sort(),
      );
    });

    it('a dispatcher dying between send and record repeats that reminder once (same id) and never doubles the chain', async () => {
      const h = await harness();
      const a = await h.contact();
      const m = await h.monitor([a], rules({ repeat_interval_seconds: 300 }));
      await h.transition(m, 'down');
      await h.dispatcher.runOnce();
      h.clock.advance(300_000);
      // The reminder is claimed, its successor planned, it is sent; the record never commits.
      let calls = 0;
      const transaction = h.db.transaction.bind(h.db);
      jest.spyOn(h.db, 'transaction').mockImplementation((work) => {
        calls++;
        // claim (1), reminder chain (2), record (3): the third fails.
        return calls === 3 ? Promise.reject(new Error('Connection terminated unexpectedly')) : transaction(work);
      });
      await expect(h.dispatcher.runOnce()).rejects.toThrow('Connection terminated');
      jest.restoreAllMocks();
      // Another coordinator takes over once the claim has expired.
      const other = new Dispatcher(
        h.db,
        {
          webhook: {
            deliver: (d: Record<string, unknown>, e: NotificationEvent) => {
              h.calls.push({ event: e, contactId: String(d.contact_id), at: h.clock.now() });
              return Promise.resolve({ class: 'ok' as const, status: 200, detail: 'HTTP 200' });
            },
          },
        } as unknown as NotifierTable,
        loadCoordinatorConfig({ DATABASE_URL: 'sqlite::memory:' }),
        new NotifyMetrics(createRegistry()),
        new ContactsRepository(h.db, ephemeralSecretBox()),
        h.clock,
        h.outbox,
      );
      h.clock.advance(CLAIM_MS);
      await other.runOnce();
      const reminders = h.calls.filter((x) => x.event.event === 'monitor.down.reminder');
      expect(reminders).toHaveLength(2);
      expect(reminders[1]!.event.id).toBe(reminders[0]!.event.id);
      // One successor, at the planned time (rem2 at 600 s after the start), not two.
      const planned = await h.rows({ event: 'monitor.down.reminder' });
      expect(planned.map((r) => [r.rule, r.state])).toEqual([
        ['rem1', 'delivered'],
        ['rem2', 'pending'],
      ]);
      expect(planned[1]!.createdAt - planned[0]!.createdAt).toBe(300_000);
    });

    it('a replayed down transition plans nothing twice', async () => {
      const h = await harness();
      const a = await h.contact();
      const b = await h.contact();
      const m = await h.monitor([a], rules({ escalation: [{ after_seconds: 60, contacts: [b] }] }));
      await h.transition(m, 'down');
      const monitor = await h.dataSource.manager.findOneByOrFail(MonitorEntity, { id: m });
      const incident = await h.dataSource.manager.findOneByOrFail(IncidentEntity, { monitorId: m });
      const facts = {
        status: 'down' as const,
        error: 'HTTP 503',
        incident,
        startedAt: incident.startedAt,
        durationSeconds: null,
        severity: 'critical' as const,
        timestamp: incident.startedAt,
        evidence: {},
      };
      await h.db.transaction((tx) => h.outbox.planOutage(tx, monitor, facts));
      expect((await h.rows()).map((r) => [r.contactId, r.rule])).toEqual([
        [a, 'main'],
        [b, 'esc1'],
      ]);
    });

    it('a paused monitor sends nothing more of its outage and plans no reminder', async () => {
      const h = await harness();
      const a = await h.contact();
      const m = await h.monitor([a], rules({ delay_seconds: 60, repeat_interval_seconds: 300 }));
      await h.transition(m, 'down');
      await h.dataSource.manager.update(MonitorEntity, { id: m }, { active: false });
      h.clock.advance(60_000);
      await h.dispatcher.runOnce();
      expect(h.calls).toEqual([]);
      expect((await h.rows()).map((r) => [r.event, r.state])).toEqual([['monitor.down', 'cancelled']]);
    });
  });
});

/**
 * Several coordinators share one PostgreSQL: claims use FOR UPDATE SKIP LOCKED. (SQLite is
 * the single-process embedded database: one dispatcher by design.)
 */
const postgres = testDatabases().filter((k) => k.name === 'postgres');
if (postgres.length > 0) {
  describe('dispatchers sharing PostgreSQL', () => {
    const open: DataSource[] = [];
    let db: TestDatabase | undefined;

    afterEach(async () => {
      for (const ds of open.splice(0)) await ds.destroy();
      await db?.drop();
      db = undefined;
    });

    async function harness(): Promise<Harness> {
      db ??= await postgres[0]!.create();
      const ds = await openDataSource(parseDatabaseUrl(db.url)!, ENTITIES);
      open.push(ds);
      return new Harness(ds).init();
    }

    it('two dispatchers on one database never deliver a row twice', async () => {
      const h1 = await harness();
      const h2 = await harness();
      h2.script = h1.script;
      const contacts = await Promise.all(Array.from({ length: 30 }, () => h1.contact()));
      const monitors = await Promise.all(contacts.map((c) => h1.monitor([c])));
      for (const m of monitors) await h1.transition(m, 'down');
      await Promise.all([h1.dispatcher.runOnce(), h2.dispatcher.runOnce(), h1.dispatcher.runOnce()]);
      const delivered = [...h1.calls, ...h2.calls].map((c) => c.event.id);
      expect(delivered).toHaveLength(30);
      expect(new Set(delivered).size).toBe(30);
      expect((await h1.rows({ id: In(delivered) })).every((r) => r.state === 'delivered')).toBe(true);
    });
  });
}
