import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  addToHistogram,
  bucketOf,
  EXACT_BELOW_MS,
  histogramFromText,
  histogramP95,
  histogramToText,
  mergeHistograms,
  valueOf,
  type Histogram,
} from './histogram.js';
import { p95 } from './stats.js';

const histogramOf = (values: readonly number[]): Histogram => {
  const histogram: Histogram = {};
  for (const value of values) addToHistogram(histogram, value);
  return histogram;
};

describe('response-time histogram', () => {
  it.each([
    [0, 0],
    [1, 1],
    [99, 99],
    [100, 100],
    [101, 101],
    [102, 101],
    [1000, 331],
    [60_000, 742],
  ])('%d ms falls in bucket %d', (ms, bucket) => {
    expect(bucketOf(ms)).toBe(bucket);
  });

  it('is exact below 100 ms and within 1 % above', () => {
    for (let ms = 0; ms < EXACT_BELOW_MS; ms++) expect(valueOf(bucketOf(ms))).toBe(ms);
    for (let ms = EXACT_BELOW_MS; ms <= 120_000; ms += 7) {
      expect(Math.abs(valueOf(bucketOf(ms)) - ms) / ms).toBeLessThanOrEqual(0.01);
    }
  });

  it('gives the nearest-rank p95 of the values (exactly below 100 ms)', () => {
    expect(histogramP95({})).toBeNull();
    expect(histogramP95(histogramOf([5]))).toBe(5);
    const twenty = Array.from({ length: 20 }, (_, i) => (i + 1) * 4);
    expect(histogramP95(histogramOf(twenty))).toBe(p95(twenty));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 90_000 }), { minLength: 1, maxLength: 300 }), (values) => {
        const exact = p95(values) as number;
        const estimate = histogramP95(histogramOf(values)) as number;
        expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(Math.max(0, exact * 0.01));
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it('merges: the p95 of merged days is the p95 of all their values', () => {
    const days = [
      [10, 20, 30, 40],
      [50, 60, 70, 80, 90, 95],
      [1, 2, 3],
    ];
    const merged = days.reduce<Histogram>((into, values) => mergeHistograms(into, histogramOf(values)), {});
    expect(histogramP95(merged)).toBe(p95(days.flat()));
  });

  it('round-trips through its stored text, and reads nothing from garbage', () => {
    const histogram = histogramOf([1, 1, 250, 4000]);
    expect(histogramFromText(histogramToText(histogram))).toEqual(histogram);
    for (const bad of [null, '', 'not json', '[1,2]', '{"x":1}', '{"1":-1}', '{"1":1.5}', 'null']) {
      expect(histogramFromText(bad)).toEqual({});
    }
  });
});
