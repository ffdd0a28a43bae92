import { afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ManualClock } from '#runtime';
import { loadCoordinatorConfig } from '../config.js';
import { PARTITION_DAYS_AHEAD } from './check-partitions.js';
import { RETENTION_DELETE_BATCH, type CheckResultsRepository } from './check-results.repository.js';
import { RETENTION_FIRST_RUN_MS, RETENTION_INTERVAL_MS, ResultsRetention } from './results-retention.js';
import { dayOf, SECONDS_PER_DAY } from './stats.js';

const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);

/** Pretends to hold `backlog` old raw rows and deletes them batch by batch. */
class FakeRepository {
  resultCutoffs: number[] = [];
  rollupCutoffs: number[] = [];
  partitionDays: [number, number][] = [];
  partitionCutoffs: number[] = [];
  constructor(private backlog = 0) {}
  async ensurePartitions(fromDay: number, toDay: number): Promise<string[]> {
    this.partitionDays.push([fromDay, toDay]);
    return [];
  }
  async dropPartitionsBefore(before: number): Promise<string[]> {
    this.partitionCutoffs.push(before);
    return [];
  }
  async deleteResultsBefore(before: number): Promise<number> {
    this.resultCutoffs.push(before);
    const deleted = Math.min(this.backlog, RETENTION_DELETE_BATCH);
    this.backlog -= deleted;
    return deleted;
  }
  async deleteRollupsBefore(day: number): Promise<number> {
    this.rollupCutoffs.push(day);
    return 0;
  }
}

describe('ResultsRetention', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => {
    jest.useRealTimers();
  });

  const retention = (repository: FakeRepository, clock: ManualClock, days = '30') =>
    new ResultsRetention(
      repository as unknown as CheckResultsRepository,
      clock,
      loadCoordinatorConfig({ RESULTS_RETENTION_DAYS: days }),
    );

  it('deletes raw rows batch by batch until a short batch, then old roll-ups, with cut-offs from the clock', async () => {
    const repository = new FakeRepository(2 * RETENTION_DELETE_BATCH + 3);
    const outcome = await retention(repository, new ManualClock(NOW)).run();
    expect(outcome).toEqual({
      results: 2 * RETENTION_DELETE_BATCH + 3,
      rollups: 0,
      partitionsCreated: 0,
      partitionsDropped: 0,
    });
    expect(repository.resultCutoffs).toEqual(Array(3).fill(NOW / 1000 - 30 * SECONDS_PER_DAY));
    // Partitions for today and the next PARTITION_DAYS_AHEAD days; whole ones dropped by the same cut-off.
    expect(repository.partitionDays).toEqual([[dayOf(NOW / 1000), dayOf(NOW / 1000) + PARTITION_DAYS_AHEAD]]);
    expect(repository.partitionCutoffs).toEqual([NOW / 1000 - 30 * SECONDS_PER_DAY]);
    expect(repository.rollupCutoffs).toEqual([dayOf(NOW / 1000) - 90]);
    await retention(repository, new ManualClock(NOW), '365').run();
    expect(repository.rollupCutoffs.at(-1)).toBe(dayOf(NOW / 1000) - 365);
  });

  it('runs a minute after start, then hourly, on unref’d timers that stop at shutdown', async () => {
    const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timeouts();
    const real = retention(new FakeRepository(), new ManualClock(NOW));
    real.onApplicationBootstrap();
    expect(timeouts()).toBe(before);
    await real.beforeApplicationShutdown();

    jest.useFakeTimers();
    const repository = new FakeRepository();
    const clock = new ManualClock(NOW);
    const job = retention(repository, clock);
    job.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(RETENTION_FIRST_RUN_MS - 1);
    expect(repository.rollupCutoffs).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(repository.rollupCutoffs).toHaveLength(1);
    clock.advance(RETENTION_INTERVAL_MS);
    await jest.advanceTimersByTimeAsync(RETENTION_INTERVAL_MS);
    expect(repository.resultCutoffs).toEqual([
      NOW / 1000 - 30 * SECONDS_PER_DAY,
      (NOW + RETENTION_INTERVAL_MS) / 1000 - 30 * SECONDS_PER_DAY,
    ]);
    await job.beforeApplicationShutdown();
    await jest.advanceTimersByTimeAsync(10 * RETENTION_INTERVAL_MS);
    expect(repository.rollupCutoffs).toHaveLength(2);
  });
});
