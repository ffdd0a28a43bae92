import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../config.js';
import {
  combine,
  dayOf,
  NO_FIGURES,
  p95,
  p95Rank,
  periodWindow,
  regionOrder,
  toStatsFiguresJson,
  type Figures,
} from './stats.js';

const figures = (overrides: Partial<Figures>): Figures => ({ ...NO_FIGURES, ...overrides });

describe('nearest-rank p95', () => {
  it.each([
    [1, 1],
    [2, 2],
    [19, 19],
    [20, 19],
    [21, 20],
    [100, 95],
    [101, 96],
  ])('of %i values is the value of rank %i', (n, rank) => {
    expect(p95Rank(n)).toBe(rank);
    const values = Array.from({ length: n }, (_, i) => n - i); // n..1, unsorted on purpose
    expect(p95(values)).toBe(rank);
  });

  it('is null without values', () => {
    expect(p95([])).toBeNull();
  });
});

describe('combining roll-ups', () => {
  it('adds counts and sums exactly and weighs each part’s p95 by its number of response times', () => {
    const days = [
      figures({ checks: 10, failures: 1, unknowns: 1, sumResponseMs: 800, countResponse: 8, p95ResponseMs: 150 }),
      figures({ checks: 100, failures: 0, sumResponseMs: 10_000, countResponse: 100, p95ResponseMs: 120 }),
      figures({ checks: 3, unknowns: 3 }),
    ];
    expect(combine(days)).toEqual({
      checks: 113,
      failures: 1,
      unknowns: 4,
      sumResponseMs: 10_800,
      countResponse: 108,
      // 108 weighted values: 100 × 120 then 8 × 150; rank ceil(0.95 × 108) = 103 → 150.
      p95ResponseMs: 150,
    });
    // With fewer slow values the rank stays among the fast ones.
    expect(combine([days[0]!, { ...days[1]!, countResponse: 200 }]).p95ResponseMs).toBe(120);
    expect(combine([days[0]!])).toEqual(days[0]);
    expect(combine([])).toEqual(NO_FIGURES);
  });
});

describe('figures as the API answers them', () => {
  it('excludes unknown results from the uptime and rounds to 4 decimals', () => {
    expect(
      toStatsFiguresJson(
        figures({ checks: 4, failures: 1, unknowns: 1, sumResponseMs: 301, countResponse: 2, p95ResponseMs: 200 }),
      ),
    ).toEqual({
      checks: 4,
      failures: 1,
      unknowns: 1,
      uptime_percent: 66.6667,
      mean_response_ms: 151,
      p95_response_ms: 200,
    });
    expect(toStatsFiguresJson(figures({ checks: 2, unknowns: 2 })).uptime_percent).toBeNull();
    expect(toStatsFiguresJson(NO_FIGURES)).toEqual({
      checks: 0,
      failures: 0,
      unknowns: 0,
      uptime_percent: null,
      mean_response_ms: null,
      p95_response_ms: null,
    });
    expect(toStatsFiguresJson(figures({ checks: 3, failures: 3 })).uptime_percent).toBe(0);
    expect(toStatsFiguresJson(figures({ checks: 7 })).uptime_percent).toBe(100);
  });
});

describe('periods', () => {
  const now = Date.UTC(2026, 2, 10, 12, 30, 0) / 1000;
  const today = dayOf(now);

  it('24h is the last 86400 seconds of raw results', () => {
    expect(periodWindow('24h', now)).toEqual({ source: 'raw', from: now - 86_400, to: now });
  });

  it.each([
    ['7d', 6],
    ['30d', 29],
    ['90d', 89],
  ] as const)('%s is that many UTC days of roll-ups, today included', (period, back) => {
    expect(periodWindow(period, now)).toEqual({
      source: 'rollups',
      from: Date.UTC(2026, 2, 10 - back) / 1000,
      to: now,
      fromDay: today - back,
      toDay: today,
    });
  });
});

describe('region order', () => {
  it('lists the monitor’s regions in its order, then removed regions with results alphabetically', () => {
    expect(regionOrder(['us-east-1', 'eu-west-1'], ['sa-east-1', 'eu-west-1', 'ap-east-1', 'sa-east-1'])).toEqual([
      'us-east-1',
      'eu-west-1',
      'ap-east-1',
      'sa-east-1',
    ]);
  });
});

describe('RESULTS_RETENTION_DAYS', () => {
  it('defaults to 30 and accepts whole days from 1 to 3650', () => {
    expect(loadCoordinatorConfig({}).RESULTS_RETENTION_DAYS).toBe(30);
    expect(loadCoordinatorConfig({ RESULTS_RETENTION_DAYS: '1' }).RESULTS_RETENTION_DAYS).toBe(1);
    expect(loadCoordinatorConfig({ RESULTS_RETENTION_DAYS: '3650' }).RESULTS_RETENTION_DAYS).toBe(3650);
  });

  it.each(['0', '3651', '7.5', '-1', 'month', '1e2'])('refuses %s, naming the variable', (value) => {
    expect(() => loadCoordinatorConfig({ RESULTS_RETENTION_DAYS: value })).toThrow(ConfigError);
    expect(() => loadCoordinatorConfig({ RESULTS_RETENTION_DAYS: value })).toThrow(/RESULTS_RETENTION_DAYS/);
  });
});
