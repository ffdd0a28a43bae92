import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { CLOCK, type Clock } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { CheckResultsRepository, RETENTION_DELETE_BATCH } from './check-results.repository.js';
import { dayOf, MIN_ROLLUP_DAYS, SECONDS_PER_DAY } from './stats.js';

/** The first run, a minute after start (so frequent restarts still prune) … */
export const RETENTION_FIRST_RUN_MS = 60_000;
/** … then every hour. */
export const RETENTION_INTERVAL_MS = 3_600_000;

export interface RetentionOutcome {
  results: number;
  rollups: number;
}

/**
 * Deletes raw results older than RESULTS_RETENTION_DAYS and roll-ups older than
 * max(90, RESULTS_RETENTION_DAYS) days, on unref'd timers (never keeping the process alive).
 * Raw rows go in batches of RETENTION_DELETE_BATCH, one short transaction each, so check
 * results keep being written in between.
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
    const nowSeconds = Math.floor(this.clock.now() / 1000);
    const resultsBefore = nowSeconds - this.config.RESULTS_RETENTION_DAYS * SECONDS_PER_DAY;
    const rollupsBefore = dayOf(nowSeconds) - Math.max(MIN_ROLLUP_DAYS, this.config.RESULTS_RETENTION_DAYS);
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
    return { results, rollups };
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
