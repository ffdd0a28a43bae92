/**
 * The daily partitions of `check_results` on PostgreSQL, as pure arithmetic: names, bounds, and
 * which partitions a maintenance pass creates or drops. The table is partitioned by RANGE of
 * `scheduled_at` (ms), one partition per UTC day, plus a DEFAULT partition for anything else
 * (docs/decisions/0033-partitioned-check-history.md).
 */

/** Milliseconds in a UTC day: one partition's width in `scheduled_at`. */
export const PARTITION_MS = 86_400_000;

/** Partitions are kept ready for today and this many days after it. */
export const PARTITION_DAYS_AHEAD = 3;

/**
 * A dated partition is dropped once its whole `scheduled_at` range ended at least this long before
 * the retention cut-off: a result is stored when it arrives, at most a check's timeout after it was
 * due, so its `checked_at` is then older than the cut-off too.
 */
export const PARTITION_DROP_MARGIN_MS = 3_600_000;

/** The parent table and its catch-all partition. */
export const PARTITIONED_TABLE = 'check_results';
export const DEFAULT_PARTITION = 'check_results_default';

/** A dated partition: its name and `scheduled_at` range [from, to). */
export interface DatedPartition {
  name: string;
  from: number;
  to: number;
}

/** The UTC day (days since the epoch) of `ms`. */
export function partitionDay(ms: number): number {
  return Math.floor(ms / PARTITION_MS);
}

/** `check_results_p20260310` for the day of 2026-03-10. */
export function partitionName(day: number): string {
  const date = new Date(day * PARTITION_MS);
  const yyyy = String(date.getUTCFullYear()).padStart(4, '0');
  const mm = String(date.getUTCMonth() + 1).padStart(2, '0');
  const dd = String(date.getUTCDate()).padStart(2, '0');
  return `${PARTITIONED_TABLE}_p${yyyy}${mm}${dd}`;
}

/** The partition of one day. */
export function datedPartition(day: number): DatedPartition {
  return { name: partitionName(day), from: day * PARTITION_MS, to: (day + 1) * PARTITION_MS };
}

/**
 * The range of a partition from PostgreSQL's `pg_get_expr(relpartbound, oid)`
 * (`FOR VALUES FROM ('1') TO ('2')`); null for `DEFAULT` or anything else.
 */
export function parsePartitionBound(expression: string): { from: number; to: number } | null {
  const match = /^FOR VALUES FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)$/.exec(expression.trim());
  if (!match) return null;
  return { from: Number(match[1]), to: Number(match[2]) };
}

/**
 * The days in [fromDay, toDay] that no existing partition covers yet, each as the partition to
 * create. A day partly covered by an odd existing range is left alone (creating it would overlap).
 */
export function partitionsToCreate(
  existing: readonly { from: number; to: number }[],
  fromDay: number,
  toDay: number,
): DatedPartition[] {
  const wanted: DatedPartition[] = [];
  for (let day = fromDay; day <= toDay; day++) {
    const partition = datedPartition(day);
    if (existing.some((p) => p.from < partition.to && partition.from < p.to)) continue;
    wanted.push(partition);
  }
  return wanted;
}

/**
 * The dated partitions whose whole range ended PARTITION_DROP_MARGIN_MS or more before
 * `cutoffMs` (results with `checked_at` before the cut-off, in ms), oldest first.
 */
export function partitionsToDrop(existing: readonly DatedPartition[], cutoffMs: number): DatedPartition[] {
  return existing.filter((p) => p.to <= cutoffMs - PARTITION_DROP_MARGIN_MS).sort((a, b) => a.from - b.from);
}
