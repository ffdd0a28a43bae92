/**
 * The response-time chart's time axis: ticks at whole, round steps (a second at least, so a few
 * seconds of data never read `:42.000`) and labels as precise as the step needs, in the
 * browser's time zone (a parameter, for tests).
 */

import { timeParts } from './time.ts';

/** Steps between ticks, in seconds, that uPlot may choose from (the smallest that leaves room). */
export const TIME_STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800,
  1_209_600, 2_592_000,
];

function parts(unixSeconds: number, timeZone: string | undefined) {
  const out = timeParts(unixSeconds, {
    timeZone,
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  return {
    day: `${out.day} ${out.month}`,
    minute: `${out.hour}:${out.minute}`,
    second: `${out.hour}:${out.minute}:${out.second}`,
  };
}

/**
 * Labels of ticks `step` seconds apart: `14:05:30` under a minute, `14:05` under a day (with the
 * date on the first tick and where the day changes), `25 Nov` from a day up.
 */
export function timeLabels(ticks: readonly number[], step: number, timeZone?: string): string[] {
  let previousDay: string | null = null;
  return ticks.map((tick) => {
    const p = parts(tick, timeZone);
    if (step >= 86_400) return p.day;
    const time = step < 60 ? p.second : p.minute;
    const label = p.day === previousDay ? time : `${p.day} ${time}`;
    previousDay = p.day;
    return label;
  });
}
