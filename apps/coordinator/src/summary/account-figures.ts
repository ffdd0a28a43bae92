import { Inject, Injectable } from '@nestjs/common';
import type BetterSqlite3 from 'better-sqlite3';
import type { CheckStatus } from '#contracts';
import { CLOCK, Mutex, yieldToEventLoop, type Clock } from '#runtime';
import { Database } from '../database/database.js';
import { CheckResultsRepository } from '../history/check-results.repository.js';
import { ResultsWriter } from '../history/results-writer.js';
import { countResult, NO_FIGURES, type Figures } from '../history/stats.js';
import { HOUR_SECONDS, sliceOf, type SummaryWindow } from './summary-window.js';

/** Monitors whose rows one synchronous SQLite read takes; the event loop runs between two. */
export const SUMMARY_CHUNK_MONITORS = 1_000;
/** An account's sealed figures are dropped when no summary asked for them this long. */
export const SEALED_IDLE_MS = 15 * 60_000;

/** Per monitor: figures by slice of the window (index = slice; a slice without results is empty). */
export type SlicesByMonitor = Map<string, (Figures | undefined)[]>;
/** Per monitor: figures of a period. */
export type TotalsByMonitor = Map<string, Figures>;

export interface WindowFigures {
  /** Per monitor, the slices of summaryWindow: 0 the part of the first hour from `from` on, 1–24 the sparkline's hours. */
  slices: SlicesByMonitor;
  /** Per monitor, the roll-ups of the 30 days summed. */
  month: TotalsByMonitor;
}

/** A raw result as kept: when it was taken, its status and response time. */
type KeptResult = readonly [checkedAt: number, status: CheckStatus, responseTimeMs: number | null];

/** What is kept of an account between summaries (SQLite): figures of its sealed hours and days. */
interface Sealed {
  /** ResultsWriter.lateWrites and SQLite's data_version when it was started: either changing voids it. */
  generation: string;
  usedAt: number;
  /** Hours starting before this (from the window's second slice on) are in `hours`. */
  hoursUntil: number;
  /** Per monitor, per hour (its start), the figures of the hour. */
  hours: Map<string, Map<number, Figures>>;
  /** The raw results of the window's first hour (it is partly in the window, by the second). */
  firstHour: { start: number; results: Map<string, KeptResult[]> } | null;
  /** The days [fromDay, lastDay] summed. */
  days: { fromDay: number; lastDay: number; totals: TotalsByMonitor } | null;
}

/** Zero figures to count into. */
const zero = (): Figures => ({ ...NO_FIGURES });

/** Adds `part` to the figures of `monitorId` in `totals`. */
function addTo(totals: TotalsByMonitor, monitorId: string, part: Figures): void {
  let into = totals.get(monitorId);
  if (!into) totals.set(monitorId, (into = zero()));
  into.checks += part.checks;
  into.failures += part.failures;
  into.unknowns += part.unknowns;
  into.sumResponseMs += part.sumResponseMs;
  into.countResponse += part.countResponse;
}

const placeholders = (n: number) => new Array<string>(n).fill('?').join(', ');

/**
 * The account-wide figures of the monitor summary (docs/decisions/0031-monitor-summary.md): the
 * raw results of the last 24 h by monitor and hour, and 30 days of roll-ups summed by monitor.
 *
 * PostgreSQL groups them itself (CheckResultsRepository), each time. On SQLite every statement
 * runs on the event loop's thread and grouping 240,000 rows took about a second, so:
 * - rows are streamed as arrays and counted here by the rule the SQL follows (countResult), a
 *   thousand monitors per statement, yielding to the event loop in between;
 * - sealed hours and days (summary-window.ts) are read once and kept per account, so a summary
 *   reads only the first, partial hour, the hours not sealed yet and the last two days. What is
 *   kept is read again when the writer stored a late result (ResultsWriter.lateWrites) or another
 *   connection (a second process on the file) committed anything (SQLite's data_version).
 */
@Injectable()
export class AccountFigures {
  private readonly sealed = new Map<string, Sealed>();
  private readonly mutex = new Mutex();

  constructor(
    private readonly db: Database,
    private readonly results: CheckResultsRepository,
    private readonly writer: ResultsWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async read(accountId: string, monitorIds: readonly string[], window: SummaryWindow): Promise<WindowFigures> {
    if (this.db.dialect === 'postgres') return this.grouped(accountId, window);
    // One at a time: two summaries of an account would otherwise both extend what is kept.
    return this.mutex.run(() => this.streamed(accountId, monitorIds, window));
  }

  private async grouped(accountId: string, w: SummaryWindow): Promise<WindowFigures> {
    const [buckets, totals] = await Promise.all([
      this.results.accountBuckets(accountId, w.from, w.now, HOUR_SECONDS, w.origin),
      this.results.accountRollupTotals(accountId, w.fromDay, w.toDay),
    ]);
    const slices: SlicesByMonitor = new Map();
    for (const { monitorId, bucket, ...figures } of buckets) {
      const list = slices.get(monitorId) ?? [];
      list[bucket] = figures;
      slices.set(monitorId, list);
    }
    return { slices, month: new Map(totals.map(({ monitorId, ...figures }) => [monitorId, figures])) };
  }

  private async streamed(accountId: string, ids: readonly string[], w: SummaryWindow): Promise<WindowFigures> {
    const sqlite = this.db.sqliteConnection();
    const dataVersion = String(sqlite.pragma('data_version', { simple: true }));
    const kept = this.keptFor(accountId, `${this.writer.lateWrites} ${dataVersion}`);
    const firstWhole = w.origin + HOUR_SECONDS;
    // The clock went back behind what was sealed: start over.
    if (kept.hoursUntil > w.sealedBefore) {
      kept.hours.clear();
      kept.hoursUntil = 0;
    }

    // Hours sealed since the last summary, into what is kept.
    const newFrom = Math.max(kept.hoursUntil, firstWhole);
    if (newFrom < w.sealedBefore) {
      await this.readResults(sqlite, ids, newFrom, w.sealedBefore - 1, (monitorId, checkedAt, status, ms) => {
        let hours = kept.hours.get(monitorId);
        if (!hours) kept.hours.set(monitorId, (hours = new Map<number, Figures>()));
        const hour = checkedAt - (checkedAt % HOUR_SECONDS);
        let figures = hours.get(hour);
        if (!figures) hours.set(hour, (figures = zero()));
        countResult(figures, status, ms);
      });
    }
    kept.hoursUntil = Math.max(kept.hoursUntil, w.sealedBefore);

    // The first hour's results, kept raw: the window leaves them one by one.
    if (kept.firstHour?.start !== w.origin) {
      const results = new Map<string, KeptResult[]>();
      await this.readResults(sqlite, ids, w.origin, firstWhole - 1, (monitorId, checkedAt, status, ms) => {
        const list = results.get(monitorId);
        if (list) list.push([checkedAt, status, ms]);
        else results.set(monitorId, [[checkedAt, status, ms]]);
      });
      kept.firstHour = { start: w.origin, results };
    }

    const slices: SlicesByMonitor = new Map();
    for (const [monitorId, results] of kept.firstHour.results) {
      let first: Figures | undefined;
      for (const [checkedAt, status, ms] of results)
        if (checkedAt >= w.from) countResult((first ??= zero()), status, ms);
      if (first) slices.set(monitorId, [first]);
    }
    for (const [monitorId, hours] of kept.hours) {
      let list = slices.get(monitorId);
      for (const [hour, figures] of hours) {
        // An hour that left the window is dropped here.
        if (hour < firstWhole) hours.delete(hour);
        else (list ??= [])[sliceOf(w, hour)] = figures;
      }
      if (list) slices.set(monitorId, list);
    }
    // The hours not sealed yet, read each time.
    await this.readResults(
      sqlite,
      ids,
      Math.max(w.sealedBefore, firstWhole),
      w.now,
      (monitorId, checkedAt, status, ms) => {
        let list = slices.get(monitorId);
        if (!list) slices.set(monitorId, (list = []));
        countResult((list[sliceOf(w, checkedAt)] ??= zero()), status, ms);
      },
    );

    // Sealed days kept for the window's days; the days after, read each time.
    if (kept.days?.fromDay !== w.fromDay || kept.days.lastDay !== w.lastSealedDay) {
      const totals: TotalsByMonitor = new Map();
      await this.readRollups(sqlite, ids, w.fromDay, w.lastSealedDay, (monitorId, part) =>
        addTo(totals, monitorId, part),
      );
      kept.days = { fromDay: w.fromDay, lastDay: w.lastSealedDay, totals };
    }
    const month: TotalsByMonitor = new Map();
    await this.readRollups(sqlite, ids, w.lastSealedDay + 1, w.toDay, (monitorId, part) =>
      addTo(month, monitorId, part),
    );
    for (const [monitorId, sealed] of kept.days.totals) addTo(month, monitorId, sealed);
    return { slices, month };
  }

  /** What is kept of an account, started over when its generation changed; others idle too long are dropped. */
  private keptFor(accountId: string, generation: string): Sealed {
    const now = this.clock.now();
    for (const [id, each] of this.sealed) if (now - each.usedAt > SEALED_IDLE_MS) this.sealed.delete(id);
    let kept = this.sealed.get(accountId);
    if (kept?.generation !== generation) {
      kept = { generation, usedAt: now, hoursUntil: 0, hours: new Map(), firstHour: null, days: null };
      this.sealed.set(accountId, kept);
    }
    kept.usedAt = now;
    return kept;
  }

  /** Raw results of `ids` taken in [from, to] outside maintenance, row by row. */
  private async readResults(
    sqlite: BetterSqlite3.Database,
    ids: readonly string[],
    from: number,
    to: number,
    visit: (monitorId: string, checkedAt: number, status: CheckStatus, responseTimeMs: number | null) => void,
  ): Promise<void> {
    if (from > to) return;
    await inChunks(ids, (chunk) => {
      const rows = sqlite
        .prepare<unknown[], [string, number, CheckStatus, number | null]>(
          `SELECT "monitor_id", "checked_at", "status", "response_time_ms" FROM "check_results" ` +
            `WHERE "monitor_id" IN (${placeholders(chunk.length)}) AND "checked_at" >= ? AND "checked_at" <= ? ` +
            `AND NOT "in_maintenance"`,
        )
        .raw(true);
      for (const [monitorId, checkedAt, status, ms] of rows.iterate(...chunk, from, to))
        visit(monitorId, checkedAt, status, ms);
    });
  }

  /** Roll-ups of `ids` for days [fromDay, toDay], row by row (one per monitor, day and region). */
  private async readRollups(
    sqlite: BetterSqlite3.Database,
    ids: readonly string[],
    fromDay: number,
    toDay: number,
    visit: (monitorId: string, figures: Figures) => void,
  ): Promise<void> {
    if (fromDay > toDay) return;
    await inChunks(ids, (chunk) => {
      const rows = sqlite
        .prepare<unknown[], [string, number, number, number, number, number]>(
          `SELECT "monitor_id", "checks", "failures", "unknowns", "sum_response_ms", "count_response" ` +
            `FROM "check_rollups" WHERE "monitor_id" IN (${placeholders(chunk.length)}) AND "day" >= ? AND "day" <= ?`,
        )
        .raw(true);
      for (const [monitorId, checks, failures, unknowns, sumResponseMs, countResponse] of rows.iterate(
        ...chunk,
        fromDay,
        toDay,
      )) {
        visit(monitorId, { checks, failures, unknowns, sumResponseMs, countResponse, p95ResponseMs: null });
      }
    });
  }
}

/** Runs `read` on SUMMARY_CHUNK_MONITORS ids at a time, yielding to the event loop in between. */
async function inChunks(ids: readonly string[], read: (chunk: readonly string[]) => void): Promise<void> {
  for (let i = 0; i < ids.length; i += SUMMARY_CHUNK_MONITORS) {
    if (i > 0) await yieldToEventLoop();
    read(ids.slice(i, i + SUMMARY_CHUNK_MONITORS));
  }
}
