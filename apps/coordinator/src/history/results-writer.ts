import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { MAX_ERROR_LENGTH, type ProbeResult, type ProbeTimings } from '#contracts';
import { CLOCK, Mutex, newObjectId, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { isDependencyOutage } from '../http/error.filter.js';
import { CheckResultsRepository, type NewCheckResult } from './check-results.repository.js';
import { dayOf, SECONDS_PER_DAY } from './stats.js';

/** A flush starts as soon as CheckResultsRepository.batchSize results wait, or this long after the first of them arrived. */
export const RESULTS_FLUSH_INTERVAL_MS = 1_000;

/**
 * A result stored more than this long after it was taken (checked_at) is late: held through a
 * database outage, or given an old checked_at. Readers that keep sealed past figures (the monitor
 * summary, docs/decisions/0031-monitor-summary.md) start over when lateWrites changes.
 */
export const LATE_AFTER_SECONDS = 60;

/** Only the known timing fields are stored, in a fixed order. */
function storedTimings(timings: ProbeTimings): ProbeTimings {
  const stored: ProbeTimings = { total_ms: timings.total_ms };
  if (timings.dns_ms !== undefined) stored.dns_ms = timings.dns_ms;
  if (timings.connect_ms !== undefined) stored.connect_ms = timings.connect_ms;
  if (timings.tls_ms !== undefined) stored.tls_ms = timings.tls_ms;
  if (timings.first_byte_ms !== undefined) stored.first_byte_ms = timings.first_byte_ms;
  return stored;
}

/**
 * Stores check results in batches. `add` only buffers; a flush writes up to
 * the repository's batchSize rows per transaction (insert-or-ignore on the check, then the inserted
 * rows added to their roll-ups, see CheckResultsRepository.writeBatch). Flushes run one at a time.
 *
 * - The flush timer is unref'd: it never keeps the process alive.
 * - On a clean stop (`beforeApplicationShutdown`, which Nest runs after every module's
 *   `onModuleDestroy` and before the database closes) everything buffered is written.
 *   Producers should stop adding results by their own `onModuleDestroy`.
 * - When the database is unreachable the batch goes back to the front of the buffer and is
 *   retried on the next tick. Any other failure retries the batch one row per transaction,
 *   so a single bad row is dropped (and logged) instead of blocking the rest.
 * - The batch statements are raw SQL per dialect (docs/decisions/0012-raw-sql-where-kept.md).
 */
@Injectable()
export class ResultsWriter implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ResultsWriter');
  private readonly mutex = new Mutex();
  private buffer: NewCheckResult[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** A flush for a full batch is waiting to run (one is enough). */
  private flushQueued = false;
  /** A background flush failed and none has succeeded since (logs once per outage). */
  private failing = false;
  private readonly dropListeners: ((count: number) => void)[] = [];
  private droppedInOutage = 0;
  private late = 0;
  /** Results of the batch being written: still waiting until it is stored (or back in the buffer). */
  private writing = 0;

  constructor(
    private readonly results: CheckResultsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly config: CoordinatorConfig,
  ) {}

  /**
   * Called with the number of results dropped because more than OUTAGE_BUFFER_RESULTS waited
   * (docs/decisions/0001-truth-when-blind.md: bounded, counted, logged).
   */
  onDropped(listener: (count: number) => void): void {
    this.dropListeners.push(listener);
  }

  /** Whether writing fails for now (the database is unreachable): what is pending is held, not just batched. */
  get outage(): boolean {
    return this.failing;
  }

  /** How many batches stored a late result so far (LATE_AFTER_SECONDS); counted once they are committed. */
  get lateWrites(): number {
    return this.late;
  }

  /** Results waiting to be written, the batch being written included. */
  get pending(): number {
    return this.buffer.length + this.writing;
  }

  /**
   * Buffers one result. `checkedAt` (Unix seconds) is when the coordinator received it;
   * by default now, from the injected clock. `inMaintenance`: a maintenance window covered the
   * monitor (docs/decisions/0026-maintenance-windows.md).
   */
  add(result: ProbeResult, checkedAt: number = Math.floor(this.clock.now() / 1000), inMaintenance = false): void {
    const nowMs = this.clock.now();
    this.buffer.push({
      id: newObjectId(nowMs),
      monitorId: result.monitor_id,
      checkId: result.check_id,
      region: result.region,
      status: result.status,
      phase: result.phase,
      error: result.error === null ? null : result.error.slice(0, MAX_ERROR_LENGTH),
      responseTimeMs: result.response_time_ms,
      timings: storedTimings(result.timings),
      httpStatus: result.http_status,
      certNotAfter: result.cert_not_after,
      agentId: result.agent_id,
      checkerIp: result.checker_ip,
      scheduledAt: result.scheduled_at,
      checkedAt,
      inMaintenance,
    });
    this.trimBuffer();
    if (this.buffer.length < this.results.batchSize && !this.stopped) this.schedule();
    else if (!this.flushQueued) {
      this.flushQueued = true;
      this.flushInBackground();
    }
  }

  /**
   * Writes everything buffered, in batches; resolves when it is stored. Rejects when the
   * database is unreachable (the results stay buffered and are retried).
   */
  flush(): Promise<void> {
    this.cancelTimer();
    return this.mutex.run(async () => {
      this.flushQueued = false;
      try {
        while (this.buffer.length > 0) {
          const batch = this.buffer.splice(0, this.results.batchSize);
          this.writing = batch.length;
          try {
            await this.write(batch);
          } finally {
            this.writing = 0;
          }
        }
      } finally {
        if (this.buffer.length > 0) this.schedule();
      }
    });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.cancelTimer();
    try {
      await this.flush();
    } catch (error) {
      this.logger.error(`${this.buffer.length} check results could not be stored at shutdown: ${String(error)}`);
    }
  }

  private async write(batch: NewCheckResult[]): Promise<void> {
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    const keepFrom = nowSeconds - this.config.RESULTS_RETENTION_DAYS * SECONDS_PER_DAY;
    // Older than the retention: the next retention run would delete it, and its day's
    // roll-up can no longer be recomputed from complete raw data.
    const fresh = batch.filter((row) => row.checkedAt >= keepFrom);
    // Only days whose raw rows are all still kept get their roll-up recomputed.
    const rollupFromDay = dayOf(keepFrom - 1) + 1;
    try {
      await this.results.writeBatch(fresh, rollupFromDay);
      this.countLate(fresh);
      this.recovered();
      return;
    } catch (error) {
      if (isDependencyOutage(error)) {
        this.requeue(fresh);
        throw error;
      }
      this.logger.error(`a batch of ${fresh.length} check results failed; retrying one by one: ${String(error)}`);
    }
    for (let i = 0; i < fresh.length; i++) {
      const row = fresh[i]!;
      try {
        await this.results.writeBatch([row], rollupFromDay);
      } catch (error) {
        if (isDependencyOutage(error)) {
          this.requeue(fresh.slice(i));
          throw error;
        }
        this.logger.error(`dropped check result ${row.checkId}: ${String(error)}`);
      }
    }
    this.countLate(fresh);
    this.recovered();
  }

  private countLate(stored: readonly NewCheckResult[]): void {
    const lateBefore = Math.floor(this.clock.now() / 1000) - LATE_AFTER_SECONDS;
    if (stored.some((row) => row.checkedAt < lateBefore)) this.late++;
  }

  /** Back to the front of the buffer, in their order, for the next attempt. */
  private requeue(rows: NewCheckResult[]): void {
    this.buffer.unshift(...rows);
    this.trimBuffer();
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    const dropped = this.droppedInOutage;
    this.droppedInOutage = 0;
    this.logger.log(
      `check results are being stored again${dropped > 0 ? ` (${dropped} were dropped meanwhile, the oldest first)` : ''}`,
    );
  }

  private flushInBackground(): void {
    this.flush().catch((error: unknown) => {
      if (this.failing) return;
      this.failing = true;
      this.logger.warn(`check results not stored yet, retrying (${this.buffer.length} waiting): ${String(error)}`);
    });
  }

  /** Arms the flush timer (never after shutdown: then every add flushes at once, without retries). */
  private schedule(): void {
    if (this.stopped || this.timer !== null || this.buffer.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flushInBackground();
    }, RESULTS_FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  private cancelTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Results held while the database is unreachable are bounded: past the bound the oldest go. */
  private trimBuffer(): void {
    const max = this.config.OUTAGE_BUFFER_RESULTS;
    const excess = this.buffer.length - max;
    if (excess > 0) {
      this.buffer.splice(0, excess);
      for (const listener of this.dropListeners) listener(excess);
      // Logged at the first drop and summed up at recovery, not once per result.
      if (this.droppedInOutage === 0) {
        this.logger.error(
          `dropping the oldest unstored check results (more than ${max} waiting; OUTAGE_BUFFER_RESULTS)`,
        );
      }
      this.droppedInOutage += excess;
    }
  }
}
