/**
 * Response-time histograms for the daily roll-ups: mergeable, so a roll-up can be kept up to
 * date by adding each batch of results to it (never re-reading the day's raw rows), and a
 * period's p95 is the p95 of the merged days rather than an estimate from daily p95s.
 *
 * Buckets: one per whole millisecond below EXACT_BELOW_MS (those times are exact), then
 * logarithmic, each GROWTH wider than the last, so a percentile is within half a bucket
 * (0.5 %, plus rounding to whole ms: within 1 %) of the true nearest-rank value. A histogram is a sparse map bucket → count.
 */
export const EXACT_BELOW_MS = 100;
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);

export type Histogram = Record<number, number>;

/** The bucket of a response time in ms (negative and fractional times are rounded into range). */
export function bucketOf(ms: number): number {
  const value = Math.max(0, Math.round(ms));
  if (value < EXACT_BELOW_MS) return value;
  return EXACT_BELOW_MS + Math.floor(Math.log(value / EXACT_BELOW_MS) / LOG_GROWTH + 1e-9);
}

/** The value a bucket stands for: the time itself below EXACT_BELOW_MS, else the bucket's geometric middle, whole ms. */
export function valueOf(bucket: number): number {
  if (bucket < EXACT_BELOW_MS) return bucket;
  return Math.round(EXACT_BELOW_MS * GROWTH ** (bucket - EXACT_BELOW_MS + 0.5));
}

export function addToHistogram(histogram: Histogram, ms: number, count = 1): void {
  const bucket = bucketOf(ms);
  histogram[bucket] = (histogram[bucket] ?? 0) + count;
}

/** `into` plus `from`, in place. */
export function mergeHistograms(into: Histogram, from: Histogram): Histogram {
  for (const [bucket, count] of Object.entries(from)) {
    const key = Number(bucket);
    into[key] = (into[key] ?? 0) + count;
  }
  return into;
}

/** The nearest-rank p95 (the smallest value with at least 95 % at or below it), or null when empty. */
export function histogramP95(histogram: Histogram): number | null {
  const buckets = Object.entries(histogram)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a - b);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.floor((95 * total + 99) / 100);
  let seen = 0;
  for (const [bucket, count] of buckets) {
    seen += count;
    if (seen >= rank) return valueOf(bucket);
  }
  return null;
}

/** A histogram as stored (JSON text), and back; anything unreadable is an empty histogram. */
export function histogramToText(histogram: Histogram): string {
  return JSON.stringify(histogram);
}

export function histogramFromText(text: string | null | undefined): Histogram {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const histogram: Histogram = {};
    for (const [bucket, count] of Object.entries(parsed as Record<string, unknown>)) {
      if (/^\d+$/.test(bucket) && typeof count === 'number' && Number.isSafeInteger(count) && count > 0) {
        histogram[Number(bucket)] = count;
      }
    }
    return histogram;
  } catch {
    return {};
  }
}
