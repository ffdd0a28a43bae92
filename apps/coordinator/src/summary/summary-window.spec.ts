import { describe, expect, it } from '@jest/globals';
import { LATE_AFTER_SECONDS, RESULTS_FLUSH_INTERVAL_MS } from '../history/results-writer.js';
import { SEAL_AFTER_SECONDS, sliceOf, summaryWindow } from './summary-window.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const day = (iso: string) => Math.floor(at(iso) / 86_400);

describe('summaryWindow', () => {
  it.each([
    {
      what: 'inside an hour',
      now: '2026-03-10T12:20:00Z',
      origin: '2026-03-09T12:00:00Z',
      sealedBefore: '2026-03-10T12:00:00Z',
      lastSealedDay: '2026-03-09',
    },
    {
      what: 'on the hour: the current hour has only its first instant',
      now: '2026-03-10T12:00:00Z',
      origin: '2026-03-09T12:00:00Z',
      sealedBefore: '2026-03-10T11:00:00Z',
      lastSealedDay: '2026-03-09',
    },
    {
      what: 'less than SEAL_AFTER_SECONDS into an hour: the hour before is not sealed yet',
      now: '2026-03-10T12:01:59Z',
      origin: '2026-03-09T12:00:00Z',
      sealedBefore: '2026-03-10T11:00:00Z',
      lastSealedDay: '2026-03-09',
    },
    {
      what: 'exactly SEAL_AFTER_SECONDS into an hour: the hour before is sealed',
      now: '2026-03-10T12:02:00Z',
      origin: '2026-03-09T12:00:00Z',
      sealedBefore: '2026-03-10T12:00:00Z',
      lastSealedDay: '2026-03-09',
    },
    {
      what: 'just after midnight: yesterday is not sealed yet',
      now: '2026-03-10T00:01:00Z',
      origin: '2026-03-09T00:00:00Z',
      sealedBefore: '2026-03-09T23:00:00Z',
      lastSealedDay: '2026-03-08',
    },
  ])('$what', ({ now, origin, sealedBefore, lastSealedDay }) => {
    const w = summaryWindow(at(now));
    expect(w).toEqual({
      now: at(now),
      from: at(now) - 86_400,
      origin: at(origin),
      sealedBefore: at(sealedBefore),
      fromDay: day(now) - 29,
      toDay: day(now),
      lastSealedDay: day(`${lastSealedDay}T00:00:00Z`),
    });
    // The window's first instant is in slice 0, now in slice 24, the sparkline's first hour is slice 1.
    expect(sliceOf(w, w.from)).toBe(0);
    expect(sliceOf(w, w.now)).toBe(24);
    expect(sliceOf(w, w.origin + 3_600)).toBe(1);
    expect(sliceOf(w, w.origin + 3_599)).toBe(0);
  });

  it('seals an hour only once a result taken in it would be late (ResultsWriter.lateWrites)', () => {
    // A result taken in a sealed hour is stored more than LATE_AFTER_SECONDS after it was taken,
    // with room for the writer's flush interval on top.
    expect(SEAL_AFTER_SECONDS).toBeGreaterThan(LATE_AFTER_SECONDS + RESULTS_FLUSH_INTERVAL_MS / 1000);
  });
});
