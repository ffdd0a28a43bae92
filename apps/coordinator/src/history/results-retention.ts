import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { CLOCK, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { PARTITION_DAYS_AHEAD, partitionDay } from './check-partitions.js';
import { CheckResultsRepository, RETENTION_DELETE_BATCH } from './check-results.repository.js';
import { dayOf, MIN_ROLLUP_DAYS, SECONDS_PER_DAY } from './stats.js';

/** The first run, a minute after start (so frequent restarts still prune) … */
export const RETENTION_FIRST_RUN_MS = 60_000;
/** … then every hour. */
export const RETENTION_INTERVAL_MS = 3_600_000;

export interface RetentionOutcome {
  /** Raw results deleted row by row. */
  results: number;
  rollups: number;
  /** PostgreSQL: daily partitions of check_results created ahead, and dropped whole. */
  partitionsCreated: number;
  partitionsDropped: number;
}

/**
 * Maintains check history on unref'd timers (never keeping the process alive), each pass:
 * on PostgreSQL, creates the daily partitions of check_results for today and the next
 * PARTITION_DAYS_AHEAD days, and drops the partitions entirely older than RESULTS_RETENTION_DAYS
 * (docs/decisions/0033-partitioned-check-history.md); then deletes the raw results older than
 * that the partitions did not take away (on SQLite all of them; on PostgreSQL those of the DEFAULT
 * partition) in batches of RETENTION_DELETE_BATCH, one short transaction each, so check results
 * keep being written in between; and the roll-ups older than max(90, RESULTS_RETENTION_DAYS) days.
 * A partition step that fails (a lock not had in time) is logged and retried by the next pass.
 */
@Injectable()
export class ResultsRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ResultsRetention');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<RetentionOutcome> | null = null;
  private stopped = false;

  constructor(
    private readonly results: CheckResultsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly config: CoordinatorConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.arm(RETENTION_FIRST_RUN_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One pass now (a pass already under way is joined, not repeated). */
  run(): Promise<RetentionOutcome> {
    this.running ??= this.prune().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async prune(): Promise<RetentionOutcome> {
    const nowMs = this.clock.now();
    const nowSeconds = Math.floor(nowMs / 1000);
    const resultsBefore = nowSeconds - this.config.RESULTS_RETENTION_DAYS * SECONDS_PER_DAY;
    const rollupsBefore = dayOf(nowSeconds) - Math.max(MIN_ROLLUP_DAYS, this.config.RESULTS_RETENTION_DAYS);
    const today = partitionDay(nowMs);
    const created = await this.results.ensurePartitions(today, today + PARTITION_DAYS_AHEAD).catch((error: unknown) => {
      this.logger.warn(`check_results partitions not created yet: ${String(error)}`);
      return [];
    });
    const dropped = await this.results.dropPartitionsBefore(resultsBefore).catch((error: unknown) => {
      this.logger.warn(`old check_results partitions not dropped yet: ${String(error)}`);
      return [];
    });
    if (created.length + dropped.length > 0) {
      this.logger.log(
        `retention: check_results partitions created ${created.join(', ') || 'none'}, dropped ${dropped.join(', ') || 'none'}`,
      );
    }
    let results = 0;
    for (;;) {
      const deleted = await this.results.deleteResultsBefore(resultsBefore);
      results += deleted;
      if (deleted < RETENTION_DELETE_BATCH || this.stopped) break;
    }
    const rollups = await this.results.deleteRollupsBefore(rollupsBefore);
    if (results + rollups > 0) {
      this.logger.log(`retention: deleted ${results} check results and ${rollups} daily roll-ups`);
    }
    return { results, rollups, partitionsCreated: created.length, partitionsDropped: dropped.length };
  }

  private arm(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run()
        .catch((error: unknown) => this.logger.error(`retention pass failed: ${String(error)}`))
        .finally(() => this.arm(RETENTION_INTERVAL_MS));
    }, delay);
    this.timer.unref();
  }
}
