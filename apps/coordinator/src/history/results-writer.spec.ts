import { afterEach, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ManualClock } from '#runtime';
import { probeResult } from '../../../../test/support/check-results.js';
import { loadCoordinatorConfig } from '../config.js';
import { RESULTS_BATCH_SIZE, type CheckResultsRepository, type NewCheckResult } from './check-results.repository.js';
import { LATE_AFTER_SECONDS, RESULTS_FLUSH_INTERVAL_MS, ResultsWriter } from './results-writer.js';
import { dayOf, SECONDS_PER_DAY } from './stats.js';

const MONITOR = 'b'.repeat(24);
const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);

/** A repository that records batches and fails as told. */
class FakeRepository {
  readonly batchSize = RESULTS_BATCH_SIZE;
  batches: NewCheckResult[][] = [];
  rollupFromDays: number[] = [];
  failures: Error[] = [];
  /** Rows whose check id always fails (a "poison" row). */
  poison = new Set<string>();

  async writeBatch(rows: readonly NewCheckResult[], rollupFromDay: number): Promise<number> {
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    if (rows.some((row) => this.poison.has(row.checkId))) throw new Error('value too long for type');
    this.batches.push([...rows]);
    this.rollupFromDays.push(rollupFromDay);
    return rows.length;
  }

  get stored(): number {
    return this.batches.reduce((n, batch) => n + batch.length, 0);
  }
}

const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('ResultsWriter', () => {
  let repository: FakeRepository;
  let clock: ManualClock;
  let writer: ResultsWriter;

  beforeAll(() => Logger.overrideLogger(false));

  beforeEach(() => {
    repository = new FakeRepository();
    clock = new ManualClock(NOW);
    writer = new ResultsWriter(
      repository as unknown as CheckResultsRepository,
      clock,
      loadCoordinatorConfig({ RESULTS_RETENTION_DAYS: '30' }),
    );
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  /** Adds n new results; returns their check ids. */
  const add = (n: number) =>
    Array.from({ length: n }, () => {
      const result = probeResult(MONITOR, 'eu-west-1', 'up', 10);
      writer.add(result);
      return result.check_id;
    });

  /** Lets queued promise callbacks (the background flush) run. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };

  it('maps a result to a row: checked_at from the clock by default, known timing fields only', async () => {
    const result = probeResult(MONITOR, 'eu-west-1', 'down', 512);
    result.error = 'x'.repeat(400);
    result.timings = { connect_ms: 3, total_ms: 512, surprise: 1 } as typeof result.timings;
    writer.add(result);
    writer.add(probeResult(MONITOR, 'us-east-1', 'up', 10), NOW / 1000 - 3_600);
    await writer.flush();
    const [first, second] = repository.batches[0]!;
    expect(first).toMatchObject({
      checkId: result.check_id,
      monitorId: MONITOR,
      status: 'down',
      responseTimeMs: 512,
      timings: { total_ms: 512, connect_ms: 3 },
      checkedAt: NOW / 1000,
    });
    expect(Object.keys(first!.timings)).toEqual(['total_ms', 'connect_ms']);
    expect(first!.error).toHaveLength(300);
    expect(first!.id).toMatch(/^[0-9a-f]{24}$/);
    expect(second!.checkedAt).toBe(NOW / 1000 - 3_600);
  });

  it('flushes by itself one interval after the first result, not before', async () => {
    jest.useFakeTimers();
    add(3);
    jest.advanceTimersByTime(RESULTS_FLUSH_INTERVAL_MS - 1);
    await settle();
    expect(repository.stored).toBe(0);
    jest.advanceTimersByTime(1);
    await settle();
    expect(repository.batches.map((b) => b.length)).toEqual([3]);
    expect(writer.pending).toBe(0);
  });

  it('flushes at once when a full batch is waiting, in batches of at most RESULTS_BATCH_SIZE', async () => {
    jest.useFakeTimers();
    add(RESULTS_BATCH_SIZE - 1);
    await settle();
    expect(repository.stored).toBe(0);
    add(RESULTS_BATCH_SIZE + 2);
    await settle();
    expect(repository.batches.map((b) => b.length)).toEqual([RESULTS_BATCH_SIZE, RESULTS_BATCH_SIZE, 1]);
  });

  it('arms only unref’d timers: a waiting batch never keeps the process alive', async () => {
    const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timeouts();
    add(1);
    expect(writer.pending).toBe(1);
    expect(timeouts()).toBe(before);
    await writer.flush();
  });

  it('keeps results while the database is unreachable and writes them on the next attempt', async () => {
    jest.useFakeTimers();
    repository.failures.push(outage(), outage());
    const ids = add(2);
    await expect(writer.flush()).rejects.toThrow('ECONNREFUSED');
    expect(writer.pending).toBe(2);
    ids.push(...add(1));
    // The retry timer fails once more, then the next one stores all three in order.
    jest.advanceTimersByTime(RESULTS_FLUSH_INTERVAL_MS);
    await settle();
    expect(writer.pending).toBe(3);
    jest.advanceTimersByTime(RESULTS_FLUSH_INTERVAL_MS);
    await settle();
    expect(writer.pending).toBe(0);
    expect(repository.batches).toHaveLength(1);
    expect(repository.batches[0]!.map((row) => row.checkId)).toEqual(ids);
  });

  it('counts the batch being written as pending until it is stored or back in the buffer', async () => {
    let answer: (error?: Error) => void = () => undefined;
    const write = jest.spyOn(repository, 'writeBatch').mockImplementationOnce(
      (rows) =>
        new Promise<number>((resolve, reject) => {
          answer = (error) => (error ? reject(error) : resolve(rows.length));
        }),
    );
    add(3);
    const stuck = writer.flush();
    await settle();
    expect(write).toHaveBeenCalledTimes(1);
    expect(writer.pending).toBe(3); // in flight, not stored: still waiting (a connection attempt can take seconds)
    answer(outage());
    await expect(stuck).rejects.toThrow('ECONNREFUSED');
    expect(writer.pending).toBe(3); // back in the buffer, counted once
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(repository.stored).toBe(3);
  });

  it('drops only the row a non-outage error blames, after retrying the batch row by row', async () => {
    const bad = probeResult(MONITOR, 'eu-west-1', 'up', 10);
    repository.poison.add(bad.check_id);
    add(1);
    writer.add(bad);
    add(1);
    await writer.flush();
    expect(writer.pending).toBe(0);
    expect(repository.batches.map((b) => b.length)).toEqual([1, 1]);
  });

  it('drops results older than the retention and recomputes only roll-ups of fully kept days', async () => {
    const nowS = NOW / 1000;
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10), nowS - 30 * SECONDS_PER_DAY - 1);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 10), nowS - 30 * SECONDS_PER_DAY);
    await writer.flush();
    expect(repository.stored).toBe(1);
    // The cut-off falls at 12:00 of the day 30 days ago: that day is no longer whole.
    expect(repository.rollupFromDays).toEqual([dayOf(nowS) - 29]);
  });

  it('writes what is buffered at shutdown, and after it writes at once without arming timers', async () => {
    add(2);
    await writer.beforeApplicationShutdown();
    expect(repository.stored).toBe(2);
    add(1);
    await settle();
    expect(repository.stored).toBe(3);
  });

  it('counts a stored batch holding a result taken more than LATE_AFTER_SECONDS before it was stored as late', async () => {
    const nowS = NOW / 1000;
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 5), nowS - LATE_AFTER_SECONDS);
    await writer.flush();
    expect(writer.lateWrites).toBe(0);
    // Held through an outage: stored later than it was taken, counted once it is stored.
    repository.failures.push(outage());
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 5));
    await expect(writer.flush()).rejects.toThrow('ECONNREFUSED');
    clock.advance((LATE_AFTER_SECONDS + 1) * 1000);
    expect(writer.lateWrites).toBe(0);
    await writer.flush();
    expect(writer.lateWrites).toBe(1);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 5), nowS - 3600);
    writer.add(probeResult(MONITOR, 'eu-west-1', 'up', 5), nowS - 7200);
    await writer.flush();
    expect(writer.lateWrites).toBe(2);
  });
});
