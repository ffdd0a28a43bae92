import { describe, expect, it } from '@jest/globals';
import { timeLabels, TIME_STEPS } from './time-axis.ts';

const at = (iso: string) => Date.parse(iso) / 1000;

describe("the chart's time axis", () => {
  it('never steps under a second (no `:42.000` labels), and offers round steps up to 30 days', () => {
    expect(Math.min(...TIME_STEPS)).toBe(1);
    expect(TIME_STEPS.every((s) => Number.isInteger(s))).toBe(true);
    expect(TIME_STEPS).toEqual([...TIME_STEPS].sort((a, b) => a - b));
    expect(TIME_STEPS).toEqual(expect.arrayContaining([60, 3600, 86_400, 604_800]));
  });

  it.each([
    // A few seconds of data: seconds, the date once.
    [
      [at('2026-11-25T17:08:40Z'), at('2026-11-25T17:08:42Z'), at('2026-11-25T17:08:44Z')],
      2,
      'UTC',
      ['25 Nov 17:08:40', '17:08:42', '17:08:44'],
    ],
    // An hour: minutes.
    [[at('2026-11-25T17:00:00Z'), at('2026-11-25T17:15:00Z')], 900, 'UTC', ['25 Nov 17:00', '17:15']],
    // A day across midnight, in the browser's zone: the date again where it changes.
    [
      [at('2026-11-25T16:00:00Z'), at('2026-11-25T22:00:00Z'), at('2026-11-26T04:00:00Z')],
      21_600,
      'Asia/Kolkata',
      ['25 Nov 21:30', '26 Nov 03:30', '09:30'],
    ],
    // A week or a month: dates.
    [[at('2026-11-01T00:00:00Z'), at('2026-11-08T00:00:00Z')], 604_800, 'UTC', ['1 Nov', '8 Nov']],
    [[at('2026-11-25T23:30:00Z')], 86_400, 'America/New_York', ['25 Nov']],
  ])('labels %j, %i s apart, in %s as %j', (ticks, step, zone, labels) => {
    expect(timeLabels(ticks, step, zone)).toEqual(labels);
  });
});
