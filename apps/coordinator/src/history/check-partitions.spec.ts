import { describe, expect, it } from '@jest/globals';
import {
  datedPartition,
  PARTITION_DROP_MARGIN_MS,
  PARTITION_MS,
  partitionDay,
  partitionName,
  partitionsToCreate,
  partitionsToDrop,
  parsePartitionBound,
} from './check-partitions.js';

const DAY = partitionDay(Date.UTC(2026, 2, 10, 12));

describe('check_results partitions', () => {
  it.each([
    [Date.UTC(2026, 2, 10), 'check_results_p20260310'],
    [Date.UTC(2026, 2, 10, 23, 59, 59, 999), 'check_results_p20260310'],
    [Date.UTC(2026, 11, 31, 12), 'check_results_p20261231'],
    [Date.UTC(1970, 0, 1), 'check_results_p19700101'],
  ])('the partition of %i is %s, whose range holds it', (ms, name) => {
    const partition = datedPartition(partitionDay(ms));
    expect(partition.name).toBe(name);
    expect(partitionName(partitionDay(ms))).toBe(name);
    expect(partition.from).toBeLessThanOrEqual(ms);
    expect(partition.to).toBeGreaterThan(ms);
    expect(partition.to - partition.from).toBe(PARTITION_MS);
  });

  it.each([
    ["FOR VALUES FROM ('1773100800000') TO ('1773187200000')", { from: 1773100800000, to: 1773187200000 }],
    ['FOR VALUES FROM (1773100800000) TO (1773187200000)', { from: 1773100800000, to: 1773187200000 }],
    ['DEFAULT', null],
    ["FOR VALUES FROM (MINVALUE) TO ('5')", null],
  ])('reads the bound %s', (expression, expected) => {
    expect(parsePartitionBound(expression)).toEqual(expected);
  });

  it('creates the days no partition covers, and none that would overlap an odd existing range', () => {
    const existing = [datedPartition(DAY), { from: (DAY + 2) * PARTITION_MS + 5, to: (DAY + 2) * PARTITION_MS + 10 }];
    expect(partitionsToCreate(existing, DAY, DAY + 3).map((p) => p.name)).toEqual([
      partitionName(DAY + 1),
      partitionName(DAY + 3),
    ]);
    expect(partitionsToCreate([], DAY, DAY)).toEqual([datedPartition(DAY)]);
    expect(partitionsToCreate([datedPartition(DAY)], DAY, DAY)).toEqual([]);
  });

  it.each([
    ['the whole day ended a margin before the cut-off', (DAY + 1) * PARTITION_MS + PARTITION_DROP_MARGIN_MS, true],
    ['the day ended less than the margin before it', (DAY + 1) * PARTITION_MS + PARTITION_DROP_MARGIN_MS - 1, false],
    ['the cut-off falls inside the day', DAY * PARTITION_MS + PARTITION_MS / 2, false],
    ['the day is after the cut-off', (DAY - 1) * PARTITION_MS, false],
  ])('drops a partition when %s: %#', (_, cutoffMs, dropped) => {
    expect(partitionsToDrop([datedPartition(DAY)], cutoffMs).length > 0).toBe(dropped);
  });

  it('drops oldest first', () => {
    const partitions = [datedPartition(DAY - 1), datedPartition(DAY - 3), datedPartition(DAY), datedPartition(DAY - 2)];
    expect(partitionsToDrop(partitions, DAY * PARTITION_MS + PARTITION_DROP_MARGIN_MS).map((p) => p.name)).toEqual([
      partitionName(DAY - 3),
      partitionName(DAY - 2),
      partitionName(DAY - 1),
    ]);
  });
});
