import { Injectable } from '@nestjs/common';
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { isDecided, UNDECIDED_STATUSES, type ResultRegion } from '#contracts';
import { pageOffset, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import { CheckResultEntity, CheckRollupEntity } from './check-result.entity.js';
import {
  addToHistogram,
  histogramFromText,
  histogramP95,
  histogramToText,
  mergeHistograms,
  type Histogram,
} from './histogram.js';
import {
  DEFAULT_PARTITION,
  parsePartitionBound,
  PARTITIONED_TABLE,
  partitionsToCreate,
  partitionsToDrop,
  type DatedPartition,
} from './check-partitions.js';
import { dayOf, dayStart, type Figures } from './stats.js';

/** A result ready to store (built by the ResultsWriter from a ProbeResult). */
export type NewCheckResult = Omit<CheckResultEntity, 'monitor'>;

export interface CheckListQuery {
  monitorId: string;
  region?: ResultRegion;
  order: 'asc' | 'desc';
  page: PageRequest;
}

export type RegionFigures = Figures & { region: ResultRegion };

/**
 * Results taken in maintenance count in no figure (docs/decisions/0026-maintenance-windows.md);
 * `NOT` of the column reads the same on SQLite (0/1) and PostgreSQL (boolean).
 */
const OUTSIDE_MAINTENANCE = 'NOT r.in_maintenance';

/** A stored column: its name, its PostgreSQL type (for unnest) and where its value comes from. */
type ColumnOf<T> = readonly [name: string, pgType: string, value: (row: T) => unknown];

/** The stored columns of a result. */
const RESULT_COLUMNS: readonly ColumnOf<NewCheckResult>[] = [
  ['id', 'varchar', (r) => r.id],
  ['monitor_id', 'varchar', (r) => r.monitorId],
  ['check_id', 'varchar', (r) => r.checkId],
  ['region', 'varchar', (r) => r.region],
  ['status', 'varchar', (r) => r.status],
  ['phase', 'varchar', (r) => r.phase],
  ['error', 'text', (r) => r.error],
  ['response_time_ms', 'integer', (r) => r.responseTimeMs],
  ['timings', 'text', (r) => JSON.stringify(r.timings)],
  ['http_status', 'integer', (r) => r.httpStatus],
  ['cert_not_after', 'bigint', (r) => r.certNotAfter],
  ['agent_id', 'varchar', (r) => r.agentId],
  ['checker_ip', 'varchar', (r) => r.checkerIp],
  ['scheduled_at', 'bigint', (r) => r.scheduledAt],
  ['checked_at', 'bigint', (r) => r.checkedAt],
  ['in_maintenance', 'boolean', (r) => r.inMaintenance],
];

/** A monitor and the checked_at of its newest decided result in a batch. */
const LAST_CHECKED_COLUMNS: readonly ColumnOf<readonly [monitorId: string, checkedAt: number]>[] = [
  ['id', 'varchar', ([id]) => id],
  ['checked_at', 'bigint', ([, at]) => at],
];

/** The key of a roll-up. */
const ROLLUP_KEY_COLUMNS: readonly ColumnOf<Key & { day: number }>[] = [
  ['monitor_id', 'varchar', (u) => u.monitorId],
  ['day', 'integer', (u) => u.day],
  ['region', 'varchar', (u) => u.region],
];

/** The columns of a roll-up, its key first. */
const ROLLUP_COLUMNS: readonly ColumnOf<CheckRollupEntity>[] = [
  ...ROLLUP_KEY_COLUMNS,
  ['checks', 'integer', (u) => u.checks],
  ['failures', 'integer', (u) => u.failures],
  ['unknowns', 'integer', (u) => u.unknowns],
  ['sum_response_ms', 'bigint', (u) => u.sumResponseMs],
  ['count_response', 'integer', (u) => u.countResponse],
  ['p95_response_ms', 'integer', (u) => u.p95ResponseMs],
  ['histogram', 'text', (u) => u.histogram],
];

/** `"a", "b", …` of a column table (optionally qualified by a table alias). */
const columnList = (columns: readonly ColumnOf<never>[], alias?: string) =>
  columns.map(([c]) => (alias ? `${alias}."${c}"` : `"${c}"`)).join(', ');

interface StoredRollupRow {
  monitor_id: string;
  day: string | number;
  region: ResultRegion;
  checks: string | number;
  failures: string | number;
  unknowns: string | number;
  sum_response_ms: string | number;
  count_response: string | number;
  p95_response_ms: string | number | null;
  histogram: string | null;
}

/** Results per write transaction on PostgreSQL (the ResultsWriter flushes as soon as a batch waits). */
export const RESULTS_BATCH_SIZE = 500;

/**
 * Results per write transaction on SQLite. better-sqlite3 writes synchronously, so a batch holds
 * the event loop while it is stored: at 100,000 monitors (667 results/s) a batch of 500 held it
 * about 60 ms every 0.75 s, which every API request waiting then paid; 150 hold it about 20 ms,
 * for about 2 % less ingest (docs/decisions/0037-steady-state-heap-and-sqlite-batches.md).
 * PostgreSQL's writes do not hold the loop: RESULTS_BATCH_SIZE.
 */
export const SQLITE_RESULTS_BATCH_SIZE = 150;

/** Roll-up keys one statement reads or writes (a batch has at most RESULTS_BATCH_SIZE). */
const KEYS_PER_STATEMENT = 500;
/** UNKNOWN and BLOCKED: counted as `unknowns`, which uptime leaves out. Constants, so inlined in SQL. */
const UNDECIDED_SQL = UNDECIDED_STATUSES.map((status) => `'${status}'`).join(', ');

/** Rows one retention DELETE removes, so no single transaction holds the database long. */
export const RETENTION_DELETE_BATCH = 5_000;

/** An arbitrary, fixed key of the advisory lock partition changes take (PostgreSQL). */
const PARTITION_LOCK_KEY = 7_460_119;
/** How long a partition change waits for a table lock before giving up until the next pass. */
const PARTITION_LOCK_TIMEOUT = '5s';

/** An arbitrary, fixed first key of the per-monitor advisory locks roll-up writers take (PostgreSQL). */
const ROLLUP_LOCK_CLASS = 7_460_118;

interface Key {
  monitorId: string;
  region: ResultRegion;
}

/** What one batch adds to one roll-up. */
interface RollupDelta extends Key {
  day: number;
  checks: number;
  failures: number;
  unknowns: number;
  sum: number;
  count: number;
  histogram: Histogram;
}

const rollupKeyOf = (monitorId: string, day: number, region: string) => `${monitorId} ${day} ${region}`;

function groupByDay(deltas: readonly RollupDelta[]): Map<number, Key[]> {
  const byDay = new Map<number, Key[]>();
  for (const { monitorId, region, day } of deltas) {
    const keys = byDay.get(day) ?? [];
    keys.push({ monitorId, region });
    byDay.set(day, keys);
  }
  return byDay;
}

interface AggregateRow {
  monitor_id?: string;
  region?: ResultRegion;
  bucket?: string | number;
  checks: string | number;
  failures: string | number | null;
  unknowns: string | number | null;
  sum_response_ms: string | number | null;
  count_response: string | number;
}

interface RankedRow {
  monitor_id?: string;
  region?: ResultRegion;
  response_time_ms: string | number;
}

const UP_WITH_TIME = "r.status = 'up' AND r.response_time_ms IS NOT NULL";

function figuresOf(row: AggregateRow, p95: number | null): Figures {
  return {
    checks: Number(row.checks),
    failures: Number(row.failures ?? 0),
    unknowns: Number(row.unknowns ?? 0),
    sumResponseMs: Number(row.sum_response_ms ?? 0),
    countResponse: Number(row.count_response),
    p95ResponseMs: p95,
  };
}

const keyOf = (monitorId: string, region: string) => `${monitorId} ${region}`;

/**
 * Raw check results and their daily roll-ups. Every read is scoped to one monitor whose
 * ownership the service has checked, or to every monitor of one account (joined on
 * `monitors.account_id`); writes come from the ResultsWriter and the retention job.
 * Why batches are plain SQL per dialect: docs/decisions/0012-raw-sql-where-kept.md.
 */
@Injectable()
export class CheckResultsRepository {
  constructor(private readonly db: Database) {}

  /** Rows the ResultsWriter puts in one writeBatch. */
  get batchSize(): number {
    return this.db.dialect === 'sqlite' ? SQLITE_RESULTS_BATCH_SIZE : RESULTS_BATCH_SIZE;
  }

  /**
   * Stores a batch in one transaction: results of monitors that no longer exist are dropped,
   * a check_id already stored changes nothing (insert-or-ignore on both databases), and the
   * results actually inserted are added to the roll-ups of their (monitor, day, region) with
   * `day >= rollupFromDay`: counts and sums add up, and the response times go into the
   * roll-up's histogram, whose p95 the roll-up keeps. Adding only what was inserted keeps the
   * roll-ups exact under duplicates and retries, and a batch costs the same whatever the day
   * already holds. A roll-up written before histograms existed is recomputed from its day's
   * raw rows once. Each monitor's `last_checked_at` moves on to its newest decided (UP or DOWN)
   * result of the batch, in the same transaction and one statement, never back
   * (docs/decisions/0001-truth-when-blind.md). Returns how many results belonged to existing monitors.
   */
  async writeBatch(rows: readonly NewCheckResult[], rollupFromDay: number): Promise<number> {
    if (rows.length === 0) return 0;
    return this.db.transaction(async (m) => {
      const existing = await this.lockMonitors(m, [...new Set(rows.map((r) => r.monitorId))]);
      const kept = rows.filter((r) => existing.has(r.monitorId));
      if (kept.length === 0) return 0;
      const inserted = await this.insertNew(m, kept);
      await this.advanceLastChecked(m, inserted);
      await this.addToRollups(
        m,
        // Results taken in maintenance stay out of uptime and statistics (docs/decisions/0026-maintenance-windows.md).
        inserted.filter((r) => !r.inMaintenance && dayOf(r.checkedAt) >= rollupFromDay),
      );
      return kept.length;
    });
  }

  /**
   * Inserts the rows whose check_id is new; returns those (the others were stored before).
   * One plain statement (see rowSource): TypeORM's insert builder spent more time on its
   * parameters than the database on the rows (see docs/benchmarks.md, Ingest).
   */
  private async insertNew(m: EntityManager, rows: readonly NewCheckResult[]): Promise<NewCheckResult[]> {
    const source = this.rowSource(RESULT_COLUMNS, rows);
    const columns = columnList(RESULT_COLUMNS);
    const sql =
      this.db.dialect === 'postgres'
        ? `INSERT INTO "check_results" (${columns}) ${source.sql} ON CONFLICT DO NOTHING RETURNING "check_id"`
        : `INSERT OR IGNORE INTO "check_results" (${columns}) ${source.sql} RETURNING "check_id"`;
    // Both databases return only the rows the statement really inserted; within a batch, the
    // first row of a check_id is the one inserted.
    const returned: { check_id: string }[] = await m.query(sql, source.parameters);
    const fresh = new Set(returned.map((row) => row.check_id));
    return rows.filter((r) => fresh.delete(r.checkId));
  }

  /**
   * Sets `last_checked_at` of the batch's monitors to their newest decided result, only where
   * that is later than the stored value: a late or replayed batch never moves it back, and
   * UNKNOWN and BLOCKED results never move it at all (they are what makes a monitor unknown).
   * The maximum per monitor is taken here, so the batch costs one UPDATE whatever its size.
   * On PostgreSQL the rows are already held FOR KEY SHARE by lockMonitors, which does not block
   * this update; the per-monitor advisory locks keep two batches from updating the same
   * monitors in opposite orders.
   */
  private async advanceLastChecked(m: EntityManager, rows: readonly NewCheckResult[]): Promise<void> {
    const newest = new Map<string, number>();
    for (const r of rows) {
      if (!isDecided(r.status)) continue;
      const known = newest.get(r.monitorId);
      if (known === undefined || r.checkedAt > known) newest.set(r.monitorId, r.checkedAt);
    }
    if (newest.size === 0) return;
    const source = this.rowSource(LAST_CHECKED_COLUMNS, [...newest]);
    const sql =
      this.db.dialect === 'postgres'
        ? `UPDATE "monitors" AS m SET "last_checked_at" = v."checked_at" FROM (${source.sql}) AS v ("id", "checked_at") ` +
          `WHERE m."id" = v."id" AND (m."last_checked_at" IS NULL OR m."last_checked_at" < v."checked_at")`
        : `WITH v ("id", "checked_at") AS (${source.sql}) UPDATE "monitors" AS m SET "last_checked_at" = v."checked_at" FROM v ` +
          `WHERE m."id" = v."id" AND (m."last_checked_at" IS NULL OR m."last_checked_at" < v."checked_at")`;
    await m.query(sql, source.parameters);
  }

  /** Adds freshly inserted results to their roll-ups (see writeBatch). */
  private async addToRollups(m: EntityManager, rows: readonly NewCheckResult[]): Promise<void> {
    const deltas = new Map<string, RollupDelta>();
    for (const r of rows) {
      const day = dayOf(r.checkedAt);
      const key = rollupKeyOf(r.monitorId, day, r.region);
      let delta = deltas.get(key);
      if (!delta) {
        delta = {
          monitorId: r.monitorId,
          day,
          region: r.region,
          checks: 0,
          failures: 0,
          unknowns: 0,
          sum: 0,
          count: 0,
          histogram: {},
        };
        deltas.set(key, delta);
      }
      delta.checks++;
      if (r.status === 'down') delta.failures++;
      else if (!isDecided(r.status)) delta.unknowns++;
      else if (r.responseTimeMs !== null) {
        delta.sum += r.responseTimeMs;
        delta.count++;
        addToHistogram(delta.histogram, r.responseTimeMs);
      }
    }
    const list = [...deltas.values()];
    for (let i = 0; i < list.length; i += KEYS_PER_STATEMENT) {
      const chunk = list.slice(i, i + KEYS_PER_STATEMENT);
      const stored = new Map(
        (await this.storedRollups(m, chunk)).map((u) => [rollupKeyOf(u.monitorId, u.day, u.region), u]),
      );
      const merged: CheckRollupEntity[] = [];
      const legacy: RollupDelta[] = [];
      for (const delta of chunk) {
        const before = stored.get(rollupKeyOf(delta.monitorId, delta.day, delta.region));
        if (before && before.histogram === null && before.countResponse > 0) {
          legacy.push(delta);
          continue;
        }
        const histogram = mergeHistograms(histogramFromText(before?.histogram), delta.histogram);
        merged.push({
          monitorId: delta.monitorId,
          day: delta.day,
          region: delta.region,
          checks: (before?.checks ?? 0) + delta.checks,
          failures: (before?.failures ?? 0) + delta.failures,
          unknowns: (before?.unknowns ?? 0) + delta.unknowns,
          sumResponseMs: (before?.sumResponseMs ?? 0) + delta.sum,
          countResponse: (before?.countResponse ?? 0) + delta.count,
          p95ResponseMs: histogramP95(histogram),
          histogram: histogramToText(histogram),
        });
      }
      await this.upsertRollups(m, merged);
      for (const [day, keys] of groupByDay(legacy)) await this.recomputeRollups(m, day, keys);
    }
  }

  /** The stored roll-ups of these (monitor, day, region) keys (plain SQL, like insertNew). */
  private async storedRollups(m: EntityManager, keys: readonly RollupDelta[]): Promise<CheckRollupEntity[]> {
    const source = this.rowSource(ROLLUP_KEY_COLUMNS, keys);
    const rows: StoredRollupRow[] = await m.query(
      `WITH k (${columnList(ROLLUP_KEY_COLUMNS)}) AS (${source.sql}) ` +
        `SELECT ${columnList(ROLLUP_COLUMNS, 'u')} FROM k JOIN "check_rollups" u ON ${ROLLUP_KEY_COLUMNS.map(([c]) => `u."${c}" = k."${c}"`).join(' AND ')}`,
      source.parameters,
    );
    return rows.map((row) => ({
      monitorId: row.monitor_id,
      day: Number(row.day),
      region: row.region,
      checks: Number(row.checks),
      failures: Number(row.failures),
      unknowns: Number(row.unknowns),
      sumResponseMs: Number(row.sum_response_ms),
      countResponse: Number(row.count_response),
      p95ResponseMs: row.p95_response_ms === null ? null : Number(row.p95_response_ms),
      histogram: row.histogram,
    }));
  }

  private async upsertRollups(m: EntityManager, rollups: readonly CheckRollupEntity[]): Promise<void> {
    if (rollups.length === 0) return;
    const source = this.rowSource(ROLLUP_COLUMNS, rollups);
    const updates = ROLLUP_COLUMNS.slice(ROLLUP_KEY_COLUMNS.length).map(([c]) => `"${c}" = EXCLUDED."${c}"`);
    await m.query(
      `INSERT INTO "check_rollups" (${columnList(ROLLUP_COLUMNS)}) ${source.sql} ` +
        `ON CONFLICT ("monitor_id", "day", "region") DO UPDATE SET ${updates.join(', ')}`,
      source.parameters,
    );
  }

  /**
   * Rows as a query yielding these columns, in order. PostgreSQL: `SELECT * FROM unnest($1::t[], …)`,
   * one array parameter per column, so a 500-row batch binds 15 parameters rather than 7,500
   * and the server parses and plans a statement of the same shape every time. SQLite (which
   * has no arrays): a multi-row `VALUES` list.
   */
  private rowSource<T>(columns: readonly ColumnOf<T>[], rows: readonly T[]): { sql: string; parameters: unknown[] } {
    if (this.db.dialect === 'postgres') {
      return {
        sql: `SELECT * FROM unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`,
        parameters: columns.map(([, , value]) => rows.map(value)),
      };
    }
    const parameters: unknown[] = [];
    const marks = `(${columns.map(() => '?').join(', ')})`;
    // SQLite binds no booleans: they are stored as 1 and 0.
    for (const row of rows) {
      for (const [, , value] of columns) {
        const v = value(row);
        parameters.push(typeof v === 'boolean' ? Number(v) : v);
      }
    }
    return { sql: `VALUES ${rows.map(() => marks).join(', ')}`, parameters };
  }

  /**
   * The ids among `monitorIds` that exist. On PostgreSQL they are locked against deletion
   * until the transaction ends (FOR KEY SHARE: the inserts cannot then break the foreign
   * key), and the roll-up writers of other replicas are serialised per monitor, so a
   * recompute always sees the rows another replica committed before it. On SQLite the
   * Database already serialises every transaction.
   */
  private async lockMonitors(m: EntityManager, monitorIds: string[]): Promise<Set<string>> {
    const qb = m
      .createQueryBuilder(MonitorEntity, 'm')
      .select('m.id', 'id')
      .where('m.id IN (:...ids)', { ids: monitorIds });
    if (this.db.dialect === 'postgres') {
      qb.setLock('for_key_share');
      await m.query(
        `SELECT pg_advisory_xact_lock(${ROLLUP_LOCK_CLASS}, k) FROM
           (SELECT DISTINCT hashtext(id) AS k FROM unnest($1::text[]) AS id ORDER BY k) AS keys`,
        [monitorIds],
      );
    }
    const found = await qb.getRawMany<{ id: string }>();
    return new Set(found.map((row) => row.id));
  }

  /** Roll-ups of these keys rebuilt from their day's raw rows (roll-ups stored before histograms existed). */
  private async recomputeRollups(m: EntityManager, day: number, keys: readonly Key[]): Promise<void> {
    const scope = (qb: SelectQueryBuilder<CheckResultEntity>) => {
      const terms = keys.map((_, i) => `(r.monitor_id = :m${i} AND r.region = :g${i})`);
      const params: Record<string, unknown> = { from: dayStart(day), to: dayStart(day + 1) };
      keys.forEach((key, i) => {
        params[`m${i}`] = key.monitorId;
        params[`g${i}`] = key.region;
      });
      return qb
        .where(`(${terms.join(' OR ')})`)
        .andWhere('r.checked_at >= :from AND r.checked_at < :to')
        .andWhere(OUTSIDE_MAINTENANCE)
        .setParameters(params);
    };
    const aggregates = await this.aggregate(scope(m.createQueryBuilder(CheckResultEntity, 'r')), [
      'monitor_id',
      'region',
    ]);
    if (aggregates.length === 0) return;
    const times = await scope(m.createQueryBuilder(CheckResultEntity, 'r'))
      .select('r.monitor_id', 'monitor_id')
      .addSelect('r.region', 'region')
      .addSelect('r.response_time_ms', 'ms')
      .addSelect('COUNT(*)', 'n')
      .andWhere(UP_WITH_TIME)
      .groupBy('r.monitor_id')
      .addGroupBy('r.region')
      .addGroupBy('r.response_time_ms')
      .getRawMany<{ monitor_id: string; region: string; ms: string | number; n: string | number }>();
    const histograms = new Map<string, Histogram>();
    for (const row of times) {
      const key = keyOf(row.monitor_id, row.region);
      const histogram = histograms.get(key) ?? {};
      addToHistogram(histogram, Number(row.ms), Number(row.n));
      histograms.set(key, histogram);
    }
    await this.upsertRollups(
      m,
      aggregates.map((row) => {
        const histogram = histograms.get(keyOf(row.monitor_id ?? '', row.region ?? '')) ?? {};
        const figures = figuresOf(row, histogramP95(histogram));
        return {
          monitorId: row.monitor_id ?? '',
          day,
          region: row.region as ResultRegion,
          checks: figures.checks,
          failures: figures.failures,
          unknowns: figures.unknowns,
          sumResponseMs: figures.sumResponseMs,
          countResponse: figures.countResponse,
          p95ResponseMs: figures.p95ResponseMs,
          histogram: histogramToText(histogram),
        };
      }),
    );
  }

  /** Counts and response-time sums of the scoped rows, grouped by `groups` (column names of r). */
  private async aggregate(
    qb: SelectQueryBuilder<CheckResultEntity>,
    groups: readonly ('monitor_id' | 'region')[],
    computed?: { alias: 'bucket'; expression: string },
  ): Promise<AggregateRow[]> {
    qb.select('COUNT(*)', 'checks')
      .addSelect("SUM(CASE WHEN r.status = 'down' THEN 1 ELSE 0 END)", 'failures')
      .addSelect(`SUM(CASE WHEN r.status IN (${UNDECIDED_SQL}) THEN 1 ELSE 0 END)`, 'unknowns')
      .addSelect("SUM(CASE WHEN r.status = 'up' THEN r.response_time_ms END)", 'sum_response_ms')
      .addSelect("COUNT(CASE WHEN r.status = 'up' THEN r.response_time_ms END)", 'count_response');
    for (const column of groups) qb.addSelect(`r.${column}`, column).addGroupBy(`r.${column}`);
    if (computed) qb.addSelect(computed.expression, computed.alias).addGroupBy(computed.expression);
    return qb.getRawMany<AggregateRow>();
  }

  /**
   * The nearest-rank p95 of the response times of the scoped UP rows, per group (the key
   * joins the group columns with a space; '' without groups). Ranked in the database with
   * window functions, so only one row per group travels.
   */
  private async p95By(
    m: EntityManager,
    qb: SelectQueryBuilder<CheckResultEntity>,
    groups: readonly ('monitor_id' | 'region')[],
  ): Promise<Map<string, number>> {
    const partition = groups.length === 0 ? '' : `PARTITION BY ${groups.map((c) => `r.${c}`).join(', ')} `;
    qb.select('r.response_time_ms', 'response_time_ms')
      .addSelect(`ROW_NUMBER() OVER (${partition}ORDER BY r.response_time_ms)`, 'rank_position')
      .addSelect(`COUNT(*) OVER (${partition.trim()})`, 'rank_total')
      .andWhere(UP_WITH_TIME);
    for (const column of groups) qb.addSelect(`r.${column}`, column);
    const [sql, parameters] = qb.getQueryAndParameters();
    const rows: RankedRow[] = await m.query(
      `SELECT * FROM (${sql}) ranked WHERE ranked.rank_position = (95 * ranked.rank_total + 99) / 100`,
      parameters,
    );
    const result = new Map<string, number>();
    for (const row of rows) {
      const key = groups.map((c) => row[c] ?? '').join(' ');
      result.set(key, Number(row.response_time_ms));
    }
    return result;
  }

  /**
   * The monitor's newest decided (UP or DOWN) result: what a window-end check after a restart or
   * a handover is decided from (docs/decisions/0026-maintenance-windows.md).
   */
  async latestDecided(
    monitorId: string,
  ): Promise<Pick<CheckResultEntity, 'status' | 'region' | 'checkedAt' | 'inMaintenance'> | null> {
    return this.db.manager
      .createQueryBuilder(CheckResultEntity, 'r')
      .select(['r.status', 'r.region', 'r.checkedAt', 'r.inMaintenance'])
      .where('r.monitor_id = :monitorId', { monitorId })
      .andWhere(`r.status NOT IN (${UNDECIDED_SQL})`)
      .orderBy('r.checked_at', 'DESC')
      .addOrderBy('r.scheduled_at', 'DESC')
      .limit(1)
      .getOne();
  }

  /** A page of a monitor's results, newest first unless `order` is asc. */
  async list(query: CheckListQuery): Promise<{ total: number; rows: CheckResultEntity[] }> {
    const qb = this.db.manager
      .createQueryBuilder(CheckResultEntity, 'r')
      .where('r.monitor_id = :monitorId', { monitorId: query.monitorId });
    if (query.region !== undefined) qb.andWhere('r.region = :region', { region: query.region });
    const total = await qb.getCount();
    const offset = pageOffset(query.page, total);
    if (offset === null) return { total, rows: [] };
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const rows = await qb
      .orderBy('r.checked_at', direction)
      .addOrderBy('r.id', direction)
      .offset(offset)
      .limit(query.page.perPage)
      .getMany();
    return { total, rows };
  }

  /**
   * Figures of a monitor's raw results with `from <= checked_at <= to`: per region, and
   * overall (the overall p95 is exact, ranked over every region's response times).
   */
  async rawFigures(
    monitorId: string,
    from: number,
    to: number,
  ): Promise<{ regions: RegionFigures[]; overall: Figures }> {
    const m = this.db.manager;
    const scope = () =>
      m
        .createQueryBuilder(CheckResultEntity, 'r')
        .where('r.monitor_id = :monitorId', { monitorId })
        .andWhere('r.checked_at >= :from AND r.checked_at <= :to', { from, to })
        .andWhere(OUTSIDE_MAINTENANCE);
    const [rows, p95s, overallRows, overallP95] = await Promise.all([
      this.aggregate(scope(), ['region']),
      this.p95By(m, scope(), ['region']),
      this.aggregate(scope(), []),
      this.p95By(m, scope(), []),
    ]);
    const regions = rows.map((row) => ({
      region: row.region as ResultRegion,
      ...figuresOf(row, p95s.get(row.region ?? '') ?? null),
    }));
    const overallRow = overallRows[0];
    const overall = overallRow
      ? figuresOf(overallRow, overallP95.get('') ?? null)
      : figuresOf({ checks: 0, failures: 0, unknowns: 0, sum_response_ms: 0, count_response: 0 }, null);
    return { regions, overall };
  }

  /**
   * Figures of the raw results of every monitor of an account with `from <= checked_at <= to`,
   * per monitor and per `bucketSeconds` slice counted from `origin` (at or before `from`): one
   * grouped query for the whole account (the dashboard's summary on PostgreSQL,
   * docs/decisions/0031-monitor-summary.md).
   */
  async accountBuckets(
    accountId: string,
    from: number,
    to: number,
    bucketSeconds: number,
    origin: number,
  ): Promise<(Figures & { monitorId: string; bucket: number })[]> {
    const qb = this.db.manager
      .createQueryBuilder(CheckResultEntity, 'r')
      .innerJoin(MonitorEntity, 'm', 'm.id = r.monitor_id')
      .where('m.account_id = :accountId', { accountId })
      .andWhere('r.checked_at >= :from AND r.checked_at <= :to', { from, to })
      .andWhere(OUTSIDE_MAINTENANCE);
    const rows = await this.aggregate(qb, ['monitor_id'], {
      alias: 'bucket',
      expression: `(r.checked_at - ${Math.trunc(origin)}) / ${Math.trunc(bucketSeconds)}`,
    });
    return rows.map((row) => ({
      monitorId: row.monitor_id ?? '',
      bucket: Number(row.bucket),
      ...figuresOf(row, null),
    }));
  }

  /**
   * The roll-ups of days `fromDay` to `toDay` (inclusive) of every monitor of an account, summed
   * per monitor over days and regions: one grouped query. No p95 (counts and sums only).
   */
  async accountRollupTotals(
    accountId: string,
    fromDay: number,
    toDay: number,
  ): Promise<(Figures & { monitorId: string })[]> {
    const rows = await this.db.manager
      .createQueryBuilder(CheckRollupEntity, 'u')
      .innerJoin(MonitorEntity, 'm', 'm.id = u.monitor_id')
      .select('u.monitor_id', 'monitor_id')
      .addSelect('SUM(u.checks)', 'checks')
      .addSelect('SUM(u.failures)', 'failures')
      .addSelect('SUM(u.unknowns)', 'unknowns')
      .addSelect('SUM(u.sum_response_ms)', 'sum_response_ms')
      .addSelect('SUM(u.count_response)', 'count_response')
      .where('m.account_id = :accountId', { accountId })
      .andWhere('u.day >= :fromDay AND u.day <= :toDay', { fromDay, toDay })
      .groupBy('u.monitor_id')
      .getRawMany<AggregateRow>();
    return rows.map((row) => ({ monitorId: row.monitor_id ?? '', ...figuresOf(row, null) }));
  }

  /** A monitor's roll-ups of days `fromDay` to `toDay`, inclusive. */
  async rollups(monitorId: string, fromDay: number, toDay: number): Promise<CheckRollupEntity[]> {
    return this.db.manager
      .createQueryBuilder(CheckRollupEntity, 'u')
      .where('u.monitor_id = :monitorId', { monitorId })
      .andWhere('u.day >= :fromDay AND u.day <= :toDay', { fromDay, toDay })
      .orderBy('u.day', 'ASC')
      .addOrderBy('u.region', 'ASC')
      .getMany();
  }

  /**
   * Deletes up to `limit` raw results with `checked_at < before` and `scheduled_at` before the
   * same instant, through the key's index (scheduled_at first), so a batch reads only the rows
   * it deletes; returns how many went. On PostgreSQL only the DEFAULT partition is searched: the
   * dated partitions go whole (dropPartitionsBefore), never row by row. A result whose
   * `scheduled_at` is later than its `checked_at` (a clock set ahead) goes once both are older.
   * docs/decisions/0033-partitioned-check-history.md
   */
  async deleteResultsBefore(before: number, limit = RETENTION_DELETE_BATCH): Promise<number> {
    return this.db.transaction(async (m) => {
      if (this.db.dialect === 'postgres') {
        const [, affected]: [unknown, number] = await m.query(
          `DELETE FROM "${DEFAULT_PARTITION}" WHERE ctid = ANY(ARRAY(SELECT ctid FROM "${DEFAULT_PARTITION}" ` +
            `WHERE "scheduled_at" < $1 AND "checked_at" < $2 LIMIT $3))`,
          [before * 1000, before, limit],
        );
        return affected;
      }
      await m.query(
        `DELETE FROM "check_results" WHERE rowid IN (SELECT rowid FROM "check_results" ` +
          `WHERE "scheduled_at" < ? AND "checked_at" < ? LIMIT ?)`,
        [before * 1000, before, limit],
      );
      const [{ n }]: [{ n: number }] = await m.query('SELECT changes() AS n');
      return n;
    });
  }

  /**
   * PostgreSQL: creates the daily partitions of days `fromDay` to `toDay` that do not exist yet,
   * moving into each the rows the DEFAULT partition holds for its day, and returns their names.
   * Replicas may run this at once: it holds a transaction-scoped advisory lock and reads the
   * existing partitions under it, so the second finds the first's work done. A new partition is
   * filled and constrained before it is attached, so ATTACH takes only a SHARE UPDATE EXCLUSIVE
   * lock on `check_results` (inserts and reads go on) and an exclusive one on the DEFAULT
   * partition. SQLite keeps one table: nothing to do. docs/decisions/0033-partitioned-check-history.md
   */
  async ensurePartitions(fromDay: number, toDay: number): Promise<string[]> {
    if (this.db.dialect !== 'postgres') return [];
    return this.db.transaction(async (m) => {
      await this.lockPartitions(m);
      const existing = await this.partitionRanges(m);
      const created: string[] = [];
      for (const p of partitionsToCreate(existing, fromDay, toDay)) {
        const range = `"scheduled_at" >= ${p.from} AND "scheduled_at" < ${p.to}`;
        await m.query(`CREATE TABLE "${p.name}" (LIKE "${PARTITIONED_TABLE}" INCLUDING DEFAULTS)`);
        await m.query(`ALTER TABLE "${p.name}" ADD CONSTRAINT "${p.name}_range" CHECK (${range})`);
        await m.query(
          `WITH moved AS (DELETE FROM "${DEFAULT_PARTITION}" WHERE ${range} RETURNING *) ` +
            `INSERT INTO "${p.name}" SELECT * FROM moved`,
        );
        await m.query(
          `ALTER TABLE "${PARTITIONED_TABLE}" ATTACH PARTITION "${p.name}" FOR VALUES FROM (${p.from}) TO (${p.to})`,
        );
        await m.query(`ALTER TABLE "${p.name}" DROP CONSTRAINT "${p.name}_range"`);
        created.push(p.name);
      }
      return created;
    });
  }

  /**
   * PostgreSQL: drops the dated partitions whose whole day ended PARTITION_DROP_MARGIN_MS or more
   * before `before` (Unix seconds), one short transaction each (DROP locks `check_results`
   * exclusively for a moment; PARTITION_LOCK_TIMEOUT bounds the wait, and a partition not
   * dropped now is dropped by the next pass); returns their names. SQLite: nothing.
   */
  async dropPartitionsBefore(before: number): Promise<string[]> {
    if (this.db.dialect !== 'postgres') return [];
    const doomed = partitionsToDrop(await this.datedPartitions(this.db.manager), before * 1000);
    const dropped: string[] = [];
    for (const p of doomed) {
      const gone = await this.db.transaction(async (m) => {
        await this.lockPartitions(m);
        if (!(await this.datedPartitions(m)).some((q) => q.name === p.name)) return false;
        await m.query(`DROP TABLE "${p.name}"`);
        return true;
      });
      if (gone) dropped.push(p.name);
    }
    return dropped;
  }

  /** PostgreSQL: the dated partitions of check_results, oldest first. */
  async datedPartitions(m: EntityManager = this.db.manager): Promise<DatedPartition[]> {
    const rows: { name: string; bound: string }[] = await m.query(
      `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i ` +
        `JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '"${PARTITIONED_TABLE}"'::regclass`,
    );
    const dated: DatedPartition[] = [];
    for (const row of rows) {
      const range = parsePartitionBound(row.bound);
      if (range) dated.push({ name: row.name, ...range });
    }
    return dated.sort((a, b) => a.from - b.from);
  }

  private async partitionRanges(m: EntityManager): Promise<{ from: number; to: number }[]> {
    return (await this.datedPartitions(m)).map(({ from, to }) => ({ from, to }));
  }

  /**
   * One partition change at a time across replicas (waiting for the other's short one), then at
   * most PARTITION_LOCK_TIMEOUT for each table lock, so a long query never queues ingest behind a DDL.
   */
  private async lockPartitions(m: EntityManager): Promise<void> {
    await m.query(`SELECT pg_advisory_xact_lock(${PARTITION_LOCK_KEY})`);
    await m.query(`SET LOCAL lock_timeout = '${PARTITION_LOCK_TIMEOUT}'`);
  }

  /** Deletes the roll-ups of days before `day`; returns how many went. */
  async deleteRollupsBefore(day: number): Promise<number> {
    return this.db.transaction(async (m) => {
      const result = await m
        .createQueryBuilder()
        .delete()
        .from(CheckRollupEntity)
        .where('day < :day', { day })
        .execute();
      return result.affected ?? 0;
    });
  }
}
