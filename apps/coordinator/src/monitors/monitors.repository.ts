import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { isProbedType, isRegionId, type MonitorType, type ProbedSettings } from '#contracts';
import { yieldToEventLoop } from '#runtime';
import { assertSubscriptionActive, lockAccount, passCreateGate, type CreateGate } from '../auth/account-gate.js';
import { pageOffset, pageRead, type PageRead, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { PrivateRegionEntity } from '../regions/private-region.entity.js';
import { removeMonitorFromStatusPages } from '../status-pages/status-page-monitors.js';
import { MonitorContactEntity, MonitorEntity, type LastStatus } from './monitor.entity.js';
import { UNKNOWN_AFTER_INTERVALS } from './monitor-status.js';
import type { MonitorSort } from './monitor.dto.js';

/** A monitor with its contact ids, in their stored order. */
export interface MonitorRecord {
  monitor: MonitorEntity;
  contactIds: string[];
}

export interface MonitorListQuery {
  accountId: string;
  active?: boolean;
  type?: MonitorType;
  sort: MonitorSort;
  order: 'asc' | 'desc';
  page: PageRequest;
}

/** Regions of the monitor that are neither public nor private regions of its account. */
export class UnknownRegionsError extends Error {
  constructor(readonly regions: string[]) {
    super(`unknown regions: ${regions.join(', ')}`);
  }
}

export class UnknownContactsError extends Error {
  constructor(readonly contactIds: string[]) {
    super('unknown contacts');
  }
}

function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = e?.driverError?.code ?? e?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Sort keys as SQL; names compare lower-cased with Unicode rules on both databases. */
const SORT_EXPRESSIONS: { readonly [K in MonitorSort]: (db: Database) => string } = {
  name: (db) => db.lower('"m"."name"'),
  created_at: () => '"m"."created_at"',
  updated_at: () => '"m"."updated_at"',
};

/** Monitors one query loads when a coordinator reads them all (bounds the memory it takes). */
const MONITORS_PER_PAGE = 2_000;

/**
 * Monitors' versions one query reads during a resync: pages of 1000, with the resync's pause
 * after each, spread 100,000 monitors over about 3 s instead of one burst of about 1 s that held
 * PostgreSQL and the coordinator (docs/decisions/0048-api-latency-at-a-fixed-rate.md).
 */
const VERSIONS_PER_PAGE = 1_000;

/** A monitor as the summary needs it (MonitorsRepository.summaryRowsOfAccount). */
export type SummaryMonitor = Pick<
  MonitorEntity,
  | 'id'
  | 'name'
  | 'monitorType'
  | 'active'
  | 'checkInterval'
  | 'lastStatus'
  | 'lastStatusChange'
  | 'lastCheckedAt'
  | 'createdAt'
> & {
  /** The probed target (`settings.<type>.url`); null for a heartbeat. */
  target: string | null;
};

interface SummaryMonitorRow {
  id: string;
  name: string;
  monitor_type: MonitorType;
  settings: string;
  active: boolean | number;
  check_interval: number | string;
  last_status: MonitorEntity['lastStatus'];
  last_status_change: number | string;
  last_checked_at: number | string | null;
  created_at: number | string;
}

@Injectable()
export class MonitorsRepository {
  constructor(private readonly db: Database) {}

  /** A page of monitors as stored, in the page's order (monitorJsonText answers them). */
  async list(query: MonitorListQuery): Promise<{ total: number; rows: ListedMonitorRow[] }> {
    const { where, parameters } = this.listFilter(query);
    const filtered = query.active !== undefined || query.type !== undefined;
    // The first page is read forwards whatever the total: unfiltered, its count (one row, kept
    // by triggers) comes in the page's statement, a round trip fewer for the most read page.
    if (query.page.page === 1 && !filtered) {
      const rows = await this.readPage(
        query,
        where,
        parameters,
        { offset: 0, limit: query.page.perPage, reversed: false },
        true,
      );
      return { total: Number(rows[0]?.total ?? 0), rows };
    }
    // Unfiltered, the account's count is one row (kept by triggers), not a scan of its monitors.
    const total = filtered
      ? await this.countWhere(where, parameters)
      : await this.countOfAccount(this.db.manager, query.accountId);
    const offset = pageOffset(query.page, total);
    if (offset === null) return { total, rows: [] };
    // Read from the nearer end: the last page costs what the first does (pageRead).
    const read = pageRead(offset, query.page.perPage, total);
    const rows = await this.readPage(query, where, parameters, read, false);
    if (read.reversed) rows.reverse();
    return { total, rows };
  }

  /**
   * The rows of one page, in the order read. Plain SQL and rows mapped by hand: the query builder
   * and its hydration were a quarter of the coordinator's CPU under a load of list requests
   * (docs/decisions/0038-the-monitor-list-in-plain-sql.md). The page's contacts come with it, in
   * their order, as one comma-joined column (ids hold no comma); with `withTotal`, the account's
   * count of monitors too, on every row.
   */
  private async readPage(
    query: MonitorListQuery,
    where: string,
    parameters: unknown[],
    read: PageRead,
    withTotal: boolean,
  ): Promise<ListedMonitorRow[]> {
    const direction = (query.order === 'asc') !== read.reversed ? 'ASC' : 'DESC';
    const contacts =
      `(SELECT ${this.db.dialect === 'postgres' ? 'string_agg' : 'group_concat'}("c"."contact_id", ',' ORDER BY "c"."position") ` +
      `FROM "monitor_contacts" "c" WHERE "c"."monitor_id" = "m"."id") AS "contact_ids"`;
    const total = withTotal
      ? `, (SELECT "n"."monitors" FROM "monitor_counts" "n" WHERE "n"."account_id" = "m"."account_id") AS "total"`
      : '';
    const sql =
      `SELECT ${MONITOR_COLUMNS}, ${contacts}${total} FROM "monitors" "m" WHERE ${where} ` +
      `ORDER BY ${SORT_EXPRESSIONS[query.sort](this.db)} ${direction}, "m"."id" ${direction} ` +
      `LIMIT ${this.db.placeholder(parameters.length + 1)} OFFSET ${this.db.placeholder(parameters.length + 2)}`;
    return this.db.manager.query<ListedMonitorRow[]>(sql, [...parameters, read.limit, read.offset]);
  }

  /** The monitors a listFilter clause selects. */
  private async countWhere(where: string, parameters: unknown[]): Promise<number> {
    const rows = await this.db.manager.query<{ n: number | string }[]>(
      `SELECT COUNT(*) AS "n" FROM "monitors" "m" WHERE ${where}`,
      parameters,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The list's WHERE clause (the account, and the optional filters) with its parameters. */
  private listFilter(query: MonitorListQuery): { where: string; parameters: unknown[] } {
    const parameters: unknown[] = [query.accountId];
    const terms = [`"m"."account_id" = ${this.db.placeholder(1)}`];
    if (query.active !== undefined) {
      parameters.push(this.db.bool(query.active));
      terms.push(`"m"."active" = ${this.db.placeholder(parameters.length)}`);
    }
    if (query.type !== undefined) {
      parameters.push(query.type);
      terms.push(`"m"."monitor_type" = ${this.db.placeholder(parameters.length)}`);
    }
    return { where: terms.join(' AND '), parameters };
  }

  /**
   * The account's number of monitors, from `monitor_counts`, which triggers on `monitors` keep in
   * the writing transaction, whoever writes (docs/decisions/0035-monitor-counts-and-page-from-either-end.md).
   */
  async countOfAccount(m: EntityManager, accountId: string): Promise<number> {
    // Plain SQL: read by every list request (docs/decisions/0038-the-monitor-list-in-plain-sql.md).
    const rows = await m.query<{ monitors: number | string }[]>(
      `SELECT "monitors" FROM "monitor_counts" WHERE "account_id" = ${this.db.placeholder(1)}`,
      [accountId],
    );
    return Number(rows[0]?.monitors ?? 0);
  }

  async findOne(accountId: string, id: string): Promise<MonitorRecord | null> {
    const monitor = await this.db.manager.findOneBy(MonitorEntity, { id, accountId });
    if (!monitor) return null;
    return { monitor, contactIds: await this.contactIdsOf(monitor.id) };
  }

  /**
   * Inserts a new monitor, or writes an existing one's configuration; `contactIds` (when given)
   * replaces its contact list. `last_status` and `last_status_change` are written only at
   * insert: after that they belong to the evaluator (TransitionWriter), so an API update racing a
   * status change never writes a stale status back. `last_checked_at` likewise belongs to the
   * results batch (CheckResultsRepository.writeBatch). A new monitor passes `gate` first, in the
   * same transaction (the account locked: quota and subscription, account-gate.ts).
   */
  async save(
    monitor: MonitorEntity,
    contactIds: string[] | undefined,
    isNew: boolean,
    gate?: CreateGate,
  ): Promise<void> {
    await this.db
      .transaction(async (m) => {
        if (isNew && gate) {
          const count = (tx: EntityManager) => this.countOfAccount(tx, monitor.accountId);
          await passCreateGate(m, this.db.dialect, monitor.accountId, 'monitors', count, gate);
        }
        // The escalation steps' contacts are judged on every save: a contact deleted since (its
        // id left in a step by a concurrent save) is refused like a foreign one.
        const escalation = (monitor.notificationRules?.escalation ?? []).flatMap((s) => s.contacts);
        const named = [...new Set([...(contactIds ?? []), ...escalation])];
        await this.assertContactsOwned(m, monitor.accountId, named);
        await this.assertRegionsKnown(m, monitor);
        if (isNew) {
          await m.insert(MonitorEntity, monitor);
        } else {
          const {
            id,
            accountId,
            lastStatus: _s,
            lastStatusChange: _c,
            lastCheckedAt: _l,
            account: _a,
            createdAt: _t,
            ...config
          } = monitor;
          await m.update(MonitorEntity, { id, accountId }, config);
        }
        if (contactIds !== undefined) {
          await m.delete(MonitorContactEntity, { monitorId: monitor.id });
          if (contactIds.length > 0) {
            await m.insert(
              MonitorContactEntity,
              contactIds.map((contactId, position) => ({ monitorId: monitor.id, contactId, position })),
            );
          }
        }
      })
      .catch((error: unknown) => {
        // A contact deleted concurrently, between the check and the insert.
        if (isForeignKeyViolation(error)) throw new UnknownContactsError(contactIds ?? []);
        throw error;
      });
  }

  /**
   * The monitor's private regions must be its account's, judged under the account's lock so a
   * region deleted meanwhile (regions/private-regions.repository.ts) cannot be left in use.
   */
  private async assertRegionsKnown(m: EntityManager, monitor: MonitorEntity): Promise<void> {
    const own = monitor.regions.filter((region) => !isRegionId(region));
    if (own.length === 0) return;
    await lockAccount(m, this.db.dialect, monitor.accountId);
    const found = await m.find(PrivateRegionEntity, {
      select: { regionId: true },
      where: { accountId: monitor.accountId, regionId: In(own) },
    });
    const known = new Set(found.map((region) => region.regionId));
    const missing = own.filter((region) => !known.has(region));
    if (missing.length > 0) throw new UnknownRegionsError(missing);
  }

  /**
   * Pauses or resumes; with `whenInactive`, only while the account's subscription is active (402
   * with that message), judged under the account's lock so a concurrent change cannot slip between.
   */
  async setActive(
    accountId: string,
    id: string,
    active: boolean,
    updatedAt: number,
    whenInactive?: string,
  ): Promise<MonitorEntity | null> {
    return this.db.transaction(async (m) => {
      if (whenInactive !== undefined) {
        assertSubscriptionActive(await lockAccount(m, this.db.dialect, accountId), whenInactive);
      }
      const result = await m.update(MonitorEntity, { id, accountId }, { active, updatedAt });
      if ((result.affected ?? 0) === 0) return null;
      return m.findOneBy(MonitorEntity, { id, accountId });
    });
  }

  /** The heartbeat monitor whose ping token is `token` (the unique token index), or null. */
  findByHeartbeatToken(token: string): Promise<MonitorEntity | null> {
    return this.db.manager.findOneBy(MonitorEntity, { heartbeatToken: token, monitorType: 'heartbeat' });
  }

  /** One monitor of any account (scheduling side: a change another replica announced). */
  findById(id: string): Promise<MonitorEntity | null> {
    return this.db.manager.findOneBy(MonitorEntity, { id });
  }

  /**
   * Every monitor of every account, a page at a time in id order (what a coordinator
   * schedules at start): with 100k monitors, one query hydrating all of them at once
   * made a transient peak of several hundred MB that the heap kept afterwards.
   */
  async *pagesOfAll(pageSize = MONITORS_PER_PAGE): AsyncGenerator<MonitorEntity[]> {
    yield* this.keysetPages(pageSize, (after) =>
      this.db.manager
        .createQueryBuilder(MonitorEntity, 'm')
        .where('m.id > :after', { after })
        .orderBy('m.id', 'ASC')
        .limit(pageSize)
        .getMany(),
    );
  }

  /** The newest `last_status_change` of an account's monitors (null without monitors): what a live stream's `ready` says. */
  async lastStatusChangeOf(accountId: string): Promise<number | null> {
    const row = await this.db.manager
      .createQueryBuilder(MonitorEntity, 'm')
      .select('MAX(m.last_status_change)', 'last')
      .where('m.account_id = :accountId', { accountId })
      .getRawOne<{ last: number | string | null }>();
    return row?.last === null || row?.last === undefined ? null : Number(row.last);
  }

  /**
   * What the summary shows of every monitor of an account, in id order
   * (docs/decisions/0031-monitor-summary.md): the needed columns as plain values, no entities
   * (hydrating 10,000 of them cost several times the query).
   */
  async summaryRowsOfAccount(accountId: string): Promise<SummaryMonitor[]> {
    const rows = await this.db.manager
      .createQueryBuilder(MonitorEntity, 'm')
      .select('m.id', 'id')
      .addSelect('m.name', 'name')
      .addSelect('m.monitor_type', 'monitor_type')
      .addSelect('m.settings', 'settings')
      .addSelect('m.active', 'active')
      .addSelect('m.check_interval', 'check_interval')
      .addSelect('m.last_status', 'last_status')
      .addSelect('m.last_status_change', 'last_status_change')
      .addSelect('m.last_checked_at', 'last_checked_at')
      .addSelect('m.created_at', 'created_at')
      .where('m.account_id = :accountId', { accountId })
      .orderBy('m.id', 'ASC')
      .getRawMany<SummaryMonitorRow>();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      monitorType: row.monitor_type,
      target: isProbedType(row.monitor_type) ? (JSON.parse(row.settings) as ProbedSettings).url : null,
      active: Boolean(row.active),
      checkInterval: Number(row.check_interval),
      lastStatus: row.last_status,
      lastStatusChange: Number(row.last_status_change),
      lastCheckedAt: row.last_checked_at === null ? null : Number(row.last_checked_at),
      createdAt: Number(row.created_at),
    }));
  }

  /**
   * The id and updated_at of every monitor, enough to tell which ones changed (see
   * MonitorRoster.resync), a page at a time (keysetPages).
   */
  async *versionPages(): AsyncGenerator<Map<string, number>> {
    const pages = this.keysetPages(VERSIONS_PER_PAGE, (after) =>
      this.db.manager
        .createQueryBuilder(MonitorEntity, 'm')
        .select('m.id', 'id')
        .addSelect('m.updated_at', 'updated_at')
        .where('m.id > :after', { after })
        .orderBy('m.id', 'ASC')
        .limit(VERSIONS_PER_PAGE)
        .getRawMany<{ id: string; updated_at: string | number }>(),
    );
    for await (const rows of pages) yield new Map(rows.map((row) => [row.id, Number(row.updated_at)]));
  }

  /**
   * Rows of every monitor a page at a time in id order (`read` gives the page after an id), the
   * event loop served between pages: 100,000 monitors are read without holding it for long
   * (SQLite reads synchronously).
   */
  private async *keysetPages<T extends { id: string }>(
    pageSize: number,
    read: (after: string) => Promise<T[]>,
  ): AsyncGenerator<T[]> {
    for (let after = ''; ;) {
      const page = await read(after);
      if (page.length === 0) return;
      yield page;
      if (page.length < pageSize) return;
      after = page.at(-1)!.id;
      await yieldToEventLoop();
    }
  }

  /** These monitors (those that exist), any account. */
  async findByIds(ids: readonly string[]): Promise<MonitorEntity[]> {
    const found: MonitorEntity[] = [];
    for (let i = 0; i < ids.length; i += MONITORS_PER_PAGE) {
      found.push(...(await this.db.manager.findBy(MonitorEntity, { id: In(ids.slice(i, i + MONITORS_PER_PAGE)) })));
    }
    return found;
  }

  /** Deletes a monitor and everything hanging off it (foreign keys cascade). */
  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const result = await m.delete(MonitorEntity, { id, accountId });
      if ((result.affected ?? 0) === 0) return false;
      await removeMonitorFromStatusPages(m, accountId, id);
      return true;
    });
  }

  /**
   * The account's monitors counted by effective status (monitor-status.ts) in one query: the
   * `unknown` overlay is the same rule as effectiveStatus, written as SQL with `now` as a
   * parameter, so up and down no longer count monitors Picket cannot see. Paused monitors are
   * counted by status too (their checks keep running), and once more as paused.
   */
  async countByStatus(
    accountId: string,
    nowSeconds: number,
  ): Promise<{ total: number; up: number; down: number; unknown: number; paused: number }> {
    // effectiveStatus: now - (last_checked_at ?? created_at) > UNKNOWN_AFTER_INTERVALS × check_interval,
    // for probed types only (a heartbeat is never unknown: docs/decisions/0027-heartbeat-monitors.md).
    const stale = `(m.monitor_type <> 'heartbeat' AND COALESCE(m.last_checked_at, m.created_at) + ${UNKNOWN_AFTER_INTERVALS} * m.check_interval < :now)`;
    const row = await this.db.manager
      .createQueryBuilder(MonitorEntity, 'm')
      .select('COUNT(*)', 'total')
      .addSelect(`SUM(CASE WHEN ${stale} THEN 1 ELSE 0 END)`, 'unknown')
      .addSelect(`SUM(CASE WHEN ${stale} THEN 0 WHEN m.last_status = 'up' THEN 1 ELSE 0 END)`, 'up')
      .addSelect(`SUM(CASE WHEN ${stale} THEN 0 WHEN m.last_status = 'down' THEN 1 ELSE 0 END)`, 'down')
      .addSelect('SUM(CASE WHEN m.active = :inactive THEN 1 ELSE 0 END)', 'paused')
      .where('m.account_id = :accountId', { accountId, now: nowSeconds, inactive: this.db.bool(false) })
      .getRawOne<Record<'total' | 'unknown' | 'up' | 'down' | 'paused', string | number | null>>();
    // SUM over no rows is NULL; PostgreSQL answers COUNT and SUM of bigint as strings.
    const n = (value: string | number | null | undefined) => Number(value ?? 0);
    return {
      total: n(row?.total),
      up: n(row?.up),
      down: n(row?.down),
      unknown: n(row?.unknown),
      paused: n(row?.paused),
    };
  }

  private async assertContactsOwned(m: EntityManager, accountId: string, contactIds: string[]): Promise<void> {
    if (contactIds.length === 0) return;
    const found = await m.find(ContactEntity, { select: { id: true }, where: { accountId, id: In(contactIds) } });
    const owned = new Set(found.map((c) => c.id));
    const missing = contactIds.filter((id) => !owned.has(id));
    if (missing.length > 0) throw new UnknownContactsError(missing);
  }

  /** The monitor's contact ids, in their order. */
  private async contactIdsOf(monitorId: string): Promise<string[]> {
    const links = await this.db.manager.find(MonitorContactEntity, {
      where: { monitorId },
      order: { position: 'ASC' },
    });
    return links.map((link) => link.contactId);
  }
}

/** A row of the list (MonitorsRepository.readPage). */
export type ListedMonitorRow = MonitorRow & {
  /** The monitor's contact ids in their order, comma-joined; null without contacts. */
  contact_ids: string | null;
  total?: number | string;
};

/** A row of `monitors` as MONITOR_COLUMNS reads it (both drivers' raw values). */
export interface MonitorRow {
  id: string;
  account_id: string;
  name: string;
  active: boolean | number;
  check_interval: number | string;
  timeout: number | string;
  fail_threshold: number | string;
  regions: string;
  monitor_type: MonitorType;
  settings: string;
  heartbeat_token: string | null;
  last_status: LastStatus;
  last_status_change: number | string;
  last_checked_at: number | string | null;
  notification_rules: string | null;
  created_at: number | string;
  updated_at: number | string;
}

/** Every column of `monitors`, for monitorFromRow. */
const MONITOR_COLUMN_NAMES = [
  'id',
  'account_id',
  'name',
  'active',
  'check_interval',
  'timeout',
  'fail_threshold',
  'regions',
  'monitor_type',
  'settings',
  'heartbeat_token',
  'last_status',
  'last_status_change',
  'last_checked_at',
  'notification_rules',
  'created_at',
  'updated_at',
];

/** MONITOR_COLUMN_NAMES of `monitors` aliased "m". */
const MONITOR_COLUMNS = MONITOR_COLUMN_NAMES.map((column) => `"m"."${column}"`).join(', ');

/** MONITOR_COLUMN_NAMES unqualified, for RETURNING: SQLite's names the table's columns only so. */
const MONITOR_RETURNING = MONITOR_COLUMN_NAMES.map((column) => `"${column}"`).join(', ');

/** What a status change finds when it records the new status (recordStatus). */
export interface StatusRecorded {
  /** The monitor as it is now, the new status included. */
  monitor: MonitorEntity;
  /** The id of the monitor's open incident, if it has one. */
  openIncidentId: string | null;
}

/**
 * Records a monitor's new status inside a status change's transaction and returns the monitor
 * with its open incident's id, in one statement (null: no such monitor). The UPDATE locks the
 * row until the commit, which serialises status changes of one monitor across replicas; one
 * statement instead of a locking read, a write and an incident lookup, which under a burst of
 * changes were half of PostgreSQL's round trips
 * (docs/decisions/0040-a-status-change-in-fewer-round-trips.md).
 */
export async function recordStatus(
  db: Database,
  m: EntityManager,
  id: string,
  status: LastStatus,
  changedAt: number,
): Promise<StatusRecorded | null> {
  const openIncident =
    `(SELECT "i"."id" FROM "incidents" "i" WHERE "i"."monitor_id" = "monitors"."id" AND "i"."resolved_at" IS NULL ` +
    `LIMIT 1) AS "open_incident_id"`;
  const sql =
    `UPDATE "monitors" SET "last_status" = ${db.placeholder(1)}, "last_status_change" = ${db.placeholder(2)} ` +
    `WHERE "id" = ${db.placeholder(3)} RETURNING ${MONITOR_RETURNING}, ${openIncident}`;
  // Structured: TypeORM answers an UPDATE on PostgreSQL with [rows, count] otherwise.
  const runner = m.queryRunner;
  if (!runner) throw new Error('recordStatus runs inside a transaction');
  const result = await runner.query(sql, [status, changedAt, id], true);
  const row = (result.records as (MonitorRow & { open_incident_id: string | null })[])[0];
  return row === undefined ? null : { monitor: monitorFromRow(row), openIncidentId: row.open_incident_id };
}

/**
 * The entity TypeORM would hydrate from the row: the same conversions as the entity's column
 * transformers (JSON text parsed, BIGINT as a number) and SQLite's 0/1 as a boolean.
 */
export function monitorFromRow(row: MonitorRow): MonitorEntity {
  const monitor = new MonitorEntity();
  monitor.id = row.id;
  monitor.accountId = row.account_id;
  monitor.name = row.name;
  monitor.active = Boolean(row.active);
  monitor.checkInterval = Number(row.check_interval);
  monitor.timeout = Number(row.timeout);
  monitor.failThreshold = Number(row.fail_threshold);
  monitor.regions = JSON.parse(row.regions) as MonitorEntity['regions'];
  monitor.monitorType = row.monitor_type;
  monitor.settings = JSON.parse(row.settings) as MonitorEntity['settings'];
  monitor.heartbeatToken = row.heartbeat_token;
  monitor.lastStatus = row.last_status;
  monitor.lastStatusChange = Number(row.last_status_change);
  monitor.lastCheckedAt = row.last_checked_at === null ? null : Number(row.last_checked_at);
  monitor.notificationRules =
    row.notification_rules === null ? null : (JSON.parse(row.notification_rules) as MonitorEntity['notificationRules']);
  monitor.createdAt = Number(row.created_at);
  monitor.updatedAt = Number(row.updated_at);
  return monitor;
}
