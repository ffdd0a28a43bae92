import { Injectable } from '@nestjs/common';
import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { UNDECIDED_STATUSES, type RegionId } from '#contracts';
import { pageOffset, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import { CheckResultEntity, CheckRollupEntity } from './check-result.entity.js';
import { dayStart, SECONDS_PER_DAY, type Figures } from './stats.js';

/** A result ready to store (built by the ResultsWriter from a ProbeResult). */
export type NewCheckResult = Omit<CheckResultEntity, 'monitor'>;

export interface CheckListQuery {
  monitorId: string;
  region?: RegionId;
  order: 'asc' | 'desc';
  page: PageRequest;
}

export type RegionFigures = Figures & { region: RegionId };

/** (monitor, region) pairs whose roll-ups one statement recomputes (bounds the OR list). */
const KEYS_PER_STATEMENT = 100;
/** UNKNOWN and BLOCKED: counted as `unknowns`, which uptime leaves out. Constants, so inlined in SQL. */
const UNDECIDED_SQL = UNDECIDED_STATUSES.map((status) => `'${status}'`).join(', ');

/** Rows one retention DELETE removes, so no single transaction holds the database long. */
export const RETENTION_DELETE_BATCH = 5_000;

/** An arbitrary, fixed first key of the per-monitor advisory locks roll-up writers take (PostgreSQL). */
const ROLLUP_LOCK_CLASS = 7_460_118;

interface Key {
  monitorId: string;
  region: RegionId;
}

interface AggregateRow {
  monitor_id?: string;
  region?: RegionId;
  checks: string | number;
  failures: string | number | null;
  unknowns: string | number | null;
  sum_response_ms: string | number | null;
  count_response: string | number;
}

interface RankedRow {
  monitor_id?: string;
  region?: RegionId;
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
 * ownership the service has checked; writes come from the ResultsWriter and the retention job.
 */
@Injectable()
export class CheckResultsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Stores a batch in one transaction: results of monitors that no longer exist are dropped,
   * a check_id already stored changes nothing (insert-or-ignore on both databases), then the
   * roll-ups of every (monitor, day, region) the batch touches with `day >= rollupFromDay`
   * are recomputed from that day's raw rows, p95 included. Recomputing (rather than adding
   * to) the roll-up makes it idempotent: duplicates, retries and late results leave it exact.
   * Returns how many results belonged to existing monitors.
   */
  async writeBatch(rows: readonly NewCheckResult[], rollupFromDay: number): Promise<number> {
    if (rows.length === 0) return 0;
    return this.db.transaction(async (m) => {
      const existing = await this.lockMonitors(m, [...new Set(rows.map((r) => r.monitorId))]);
      const kept = rows.filter((r) => existing.has(r.monitorId));
      if (kept.length === 0) return 0;
      await m
        .createQueryBuilder()
        .insert()
        .into(CheckResultEntity)
        .values(kept.map((r) => ({ ...r })))
        .orIgnore()
        .updateEntity(false)
        .execute();

      const byDay = new Map<number, Map<string, Key>>();
      for (const r of kept) {
        const day = Math.floor(r.checkedAt / SECONDS_PER_DAY);
        if (day < rollupFromDay) continue;
        const keys = byDay.get(day) ?? new Map<string, Key>();
        keys.set(keyOf(r.monitorId, r.region), { monitorId: r.monitorId, region: r.region });
        byDay.set(day, keys);
      }
      for (const [day, keys] of byDay) {
        const list = [...keys.values()];
        for (let i = 0; i < list.length; i += KEYS_PER_STATEMENT) {
          await this.recomputeRollups(m, day, list.slice(i, i + KEYS_PER_STATEMENT));
        }
      }
      return kept.length;
    });
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
        .setParameters(params);
    };
    const aggregates = await this.aggregate(scope(m.createQueryBuilder(CheckResultEntity, 'r')), [
      'monitor_id',
      'region',
    ]);
    if (aggregates.length === 0) return;
    const p95s = await this.p95By(m, scope(m.createQueryBuilder(CheckResultEntity, 'r')), ['monitor_id', 'region']);
    const rollups = aggregates.map((row) => {
      const figures = figuresOf(row, p95s.get(keyOf(row.monitor_id ?? '', row.region ?? '')) ?? null);
      return {
        monitorId: row.monitor_id ?? '',
        day,
        region: row.region as RegionId,
        checks: figures.checks,
        failures: figures.failures,
        unknowns: figures.unknowns,
        sumResponseMs: figures.sumResponseMs,
        countResponse: figures.countResponse,
        p95ResponseMs: figures.p95ResponseMs,
      };
    });
    await m
      .createQueryBuilder()
      .insert()
      .into(CheckRollupEntity)
      .values(rollups)
      .orUpdate(
        ['checks', 'failures', 'unknowns', 'sum_response_ms', 'count_response', 'p95_response_ms'],
        ['monitor_id', 'day', 'region'],
      )
      .updateEntity(false)
      .execute();
  }

  /** Counts and response-time sums of the scoped rows, grouped by `groups` (column names of r). */
  private async aggregate(
    qb: SelectQueryBuilder<CheckResultEntity>,
    groups: readonly ('monitor_id' | 'region')[],
  ): Promise<AggregateRow[]> {
    qb.select('COUNT(*)', 'checks')
      .addSelect("SUM(CASE WHEN r.status = 'down' THEN 1 ELSE 0 END)", 'failures')
      .addSelect(`SUM(CASE WHEN r.status IN (${UNDECIDED_SQL}) THEN 1 ELSE 0 END)`, 'unknowns')
      .addSelect("SUM(CASE WHEN r.status = 'up' THEN r.response_time_ms END)", 'sum_response_ms')
      .addSelect("COUNT(CASE WHEN r.status = 'up' THEN r.response_time_ms END)", 'count_response');
    for (const column of groups) qb.addSelect(`r.${column}`, column).addGroupBy(`r.${column}`);
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
        .andWhere('r.checked_at >= :from AND r.checked_at <= :to', { from, to });
    const [rows, p95s, overallRows, overallP95] = await Promise.all([
      this.aggregate(scope(), ['region']),
      this.p95By(m, scope(), ['region']),
      this.aggregate(scope(), []),
      this.p95By(m, scope(), []),
    ]);
    const regions = rows.map((row) => ({
      region: row.region as RegionId,
      ...figuresOf(row, p95s.get(row.region ?? '') ?? null),
    }));
    const overallRow = overallRows[0];
    const overall = overallRow
      ? figuresOf(overallRow, overallP95.get('') ?? null)
      : figuresOf({ checks: 0, failures: 0, unknowns: 0, sum_response_ms: 0, count_response: 0 }, null);
    return { regions, overall };
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

  /** Deletes up to `limit` raw results with `checked_at < before`; returns how many went. */
  async deleteResultsBefore(before: number, limit = RETENTION_DELETE_BATCH): Promise<number> {
    return this.db.transaction(async (m) => {
      const doomed = m
        .createQueryBuilder(CheckResultEntity, 'old')
        .select('old.id')
        .where('old.checked_at < :before')
        .limit(limit);
      const result = await m
        .createQueryBuilder()
        .delete()
        .from(CheckResultEntity)
        .where(`id IN (${doomed.getQuery()})`)
        .setParameters({ before })
        .execute();
      return result.affected ?? 0;
    });
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
