import { describe, expect, it } from '@jest/globals';
import { chartData, type Check } from './chart-data.ts';

let n = 0;
const check = (region: string, at: number, status: Check['status'], ms: number | null): Check => ({
  id: String(++n),
  region,
  status,
  response_time_ms: ms,
  timings: null,
  http_status: null,
  error: null,
  phase: null,
  checked_at: at,
  checker_ip: null,
});

describe('the response-time chart data', () => {
  const checks = [
    check('us-east-1', 130, 'up', 40),
    check('eu-west-1', 120, 'down', 900),
    check('eu-west-1', 110, 'up', 80),
    check('us-east-1', 100, 'up', 30),
  ];

  it('has one series per region over the union of check times, oldest first; only up results have a time', () => {
    expect(chartData(checks, 0)).toEqual({
      x: [100, 110, 120, 130],
      series: [
        { label: 'eu-west-1', values: [null, 80, null, null] },
        { label: 'us-east-1', values: [30, null, null, 40] },
      ],
    });
  });

  it('keeps only the checks since the window start', () => {
    expect(chartData(checks, 115)).toEqual({
      x: [120, 130],
      series: [
        { label: 'eu-west-1', values: [null, null] },
        { label: 'us-east-1', values: [null, 40] },
      ],
    });
    expect(chartData([], 0)).toEqual({ x: [], series: [] });
  });
});
