/**
 * The arithmetic of check statistics, free of storage: periods, nearest-rank percentiles,
 * combining per-day roll-ups, and the figures the API answers with.
 */
import { isDecided, type CheckStatus, type ResultRegion } from '#contracts';
import { histogramFromText, histogramP95, histogramToText, mergeHistograms, type Histogram } from './histogram.js';

export const SECONDS_PER_DAY = 86_400;

/** Days of roll-ups kept at least, whatever the raw retention (status pages read 90 days). */
export const MIN_ROLLUP_DAYS = 90;

export const STATS_PERIODS = ['24h', '7d', '30d', '90d'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];

/** The UTC day number of a Unix time in seconds. */
export function dayOf(unixSeconds: number): number {
  return Math.floor(unixSeconds / SECONDS_PER_DAY);
}

export function dayStart(day: number): number {
  return day * SECONDS_PER_DAY;
}

/**
 * Where a period's figures come from:
 * - `24h`: the raw results of the last 86 400 seconds, from `to - 86400` to `to` inclusive;
 * - `7d`, `30d`, `90d`: the roll-ups of that many UTC days ending today (today included,
 *   so far): from the start of the first day to now.
 */
export type PeriodWindow =
  | { source: 'raw'; from: number; to: number }
  | { source: 'rollups'; from: number; to: number; fromDay: number; toDay: number };

export function periodWindow(period: StatsPeriod, nowSeconds: number): PeriodWindow {
  if (period === '24h') return { source: 'raw', from: nowSeconds - SECONDS_PER_DAY, to: nowSeconds };
  const days = Number(period.slice(0, -1));
  const toDay = dayOf(nowSeconds);
  const fromDay = toDay - (days - 1);
  return { source: 'rollups', from: dayStart(fromDay), to: nowSeconds, fromDay, toDay };
}

/** The 1-based rank of the nearest-rank 95th percentile among n sorted values: ceil(0.95 n). */
export function p95Rank(n: number): number {
  return Math.floor((95 * n + 99) / 100);
}

/** The nearest-rank 95th percentile: the smallest value with at least 95 % of all values at or below it. */
export function p95(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[p95Rank(sorted.length) - 1] ?? null;
}

/** Counts and response-time material of a set of results (a day's roll-up, a window, a sum of them). */
export interface Figures {
  /** Every result: up, down and unknown. */
  checks: number;
  /** DOWN results. */
  failures: number;
  /** UNKNOWN and BLOCKED results: they decide nothing. */
  unknowns: number;
  /** Sum and number of the response times of UP results that have one. */
  sumResponseMs: number;
  countResponse: number;
  /** Nearest-rank p95 of those response times, or null when there are none. */
  p95ResponseMs: number | null;
  /** Roll-ups: those response times as a stored histogram (history/histogram.ts); null for older roll-ups. */
  histogram?: string | null;
}

export const NO_FIGURES: Figures = {
  checks: 0,
  failures: 0,
  unknowns: 0,
  sumResponseMs: 0,
  countResponse: 0,
  p95ResponseMs: null,
};

/**
 * Several figures combined. Counts and sums add up exactly. The p95 of the whole is the p95
 * of the parts' merged histograms when every part with response times has one (roll-ups);
 * otherwise (roll-ups stored before histograms) it is estimated as the nearest-rank 95th
 * percentile of the parts' p95 values, each weighted by its number of response times.
 */
export function combine(parts: readonly Figures[]): Figures {
  const total = { ...NO_FIGURES };
  const weighted: { value: number; weight: number }[] = [];
  const merged: Histogram = {};
  let histograms = true;
  for (const part of parts) {
    total.checks += part.checks;
    total.failures += part.failures;
    total.unknowns += part.unknowns;
    total.sumResponseMs += part.sumResponseMs;
    total.countResponse += part.countResponse;
    if (part.p95ResponseMs !== null && part.countResponse > 0) {
      weighted.push({ value: part.p95ResponseMs, weight: part.countResponse });
      if (part.histogram) mergeHistograms(merged, histogramFromText(part.histogram));
      else histograms = false;
    }
  }
  if (histograms && weighted.length > 0) {
    total.p95ResponseMs = histogramP95(merged);
    total.histogram = histogramToText(merged);
  } else {
    total.p95ResponseMs = weightedP95(weighted);
  }
  return total;
}

function weightedP95(values: { value: number; weight: number }[]): number | null {
  const weight = values.reduce((sum, v) => sum + v.weight, 0);
  if (weight === 0) return null;
  const rank = p95Rank(weight);
  let seen = 0;
  for (const v of [...values].sort((a, b) => a.value - b.value)) {
    seen += v.weight;
    if (seen >= rank) return v.value;
  }
  return null;
}

/** The figures of the API: counts, uptime and response times. */
export interface StatsFiguresJson {
  checks: number;
  failures: number;
  unknowns: number;
  /** UP / (UP + DOWN) × 100, rounded to 4 decimals; UNKNOWN and BLOCKED results do not count; null without any. */
  uptime_percent: number | null;
  /** Mean response time of UP results, rounded to whole ms; null without any. */
  mean_response_ms: number | null;
  p95_response_ms: number | null;
}

export interface RegionStatsJson extends StatsFiguresJson {
  region: ResultRegion;
}

export interface MonitorStatsJson {
  period: StatsPeriod;
  from: number;
  to: number;
  overall: StatsFiguresJson;
  regions: RegionStatsJson[];
}

export function uptimePercent(figures: Figures): number | null {
  const decided = figures.checks - figures.unknowns;
  if (decided <= 0) return null;
  const up = decided - figures.failures;
  return Math.round((up / decided) * 100 * 10_000) / 10_000;
}

export function toStatsFiguresJson(figures: Figures): StatsFiguresJson {
  return {
    checks: figures.checks,
    failures: figures.failures,
    unknowns: figures.unknowns,
    uptime_percent: uptimePercent(figures),
    mean_response_ms: figures.countResponse === 0 ? null : Math.round(figures.sumResponseMs / figures.countResponse),
    p95_response_ms: figures.p95ResponseMs,
  };
}

/**
 * Regions in the order the answer lists them: the monitor's regions in its rotation order
 * (with empty figures when they have no results), then any other region with results in the
 * period (a region since removed from the monitor), alphabetically.
 */
export function regionOrder(
  monitorRegions: readonly ResultRegion[],
  withResults: Iterable<ResultRegion>,
): ResultRegion[] {
  const listed = new Set<ResultRegion>(monitorRegions);
  const others = [...new Set(withResults)].filter((region) => !listed.has(region)).sort();
  return [...monitorRegions, ...others];
}

/**
 * Counts one raw result into `figures` by the rule the SQL aggregates follow (every result a
 * check; DOWN a failure; UNKNOWN and BLOCKED unknowns; UP response times summed): for readers
 * that stream rows instead of grouping in the database.
 */
export function countResult(figures: Figures, status: CheckStatus, responseTimeMs: number | null): void {
  figures.checks++;
  if (status === 'down') figures.failures++;
  else if (!isDecided(status)) figures.unknowns++;
  else if (responseTimeMs !== null) {
    figures.sumResponseMs += responseTimeMs;
    figures.countResponse++;
  }
}
