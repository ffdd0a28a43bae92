import { describe as group, expect, it } from '@jest/globals';
import { costOf, describe, HOUR_MS, nextTat } from './gcra.js';

const NOW = Date.UTC(2026, 10, 24, 12);
const limits = { budget: 5000 };
/** 3600 s / 5000 points. */
const POINT = 720;

group('costOf', () => {
  it.each([
    ['GET', '/api/monitors', 1],
    ['HEAD', '/api/monitors', 1],
    ['POST', '/api/monitors', 5],
    ['PUT', '/api/monitors/abc', 5],
    ['PATCH', '/api/status_pages/abc', 5],
    ['DELETE', '/api/contacts/abc', 5],
    ['POST', '/api/contacts/abc/test', 10],
    ['POST', '/api/contacts/abc/reactivate', 5],
    ['GET', '/api/contacts/abc/test', 1],
  ])('%s %s costs %d', (method, path, cost) => {
    expect(costOf(method, path)).toBe(cost);
  });
});

group('nextTat', () => {
  it.each([
    ['a new account starts from now', null, 1, NOW + POINT],
    ['an idle bucket starts from now, not from the past', NOW - HOUR_MS, 5, NOW + 5 * POINT],
    ['a busy bucket adds to its TAT', NOW + 10 * POINT, 10, NOW + 20 * POINT],
  ])('%s', (_name, stored, cost, expected) => {
    expect(nextTat(stored, NOW, cost, limits)).toBe(expected);
  });
});

group('describe (the headers)', () => {
  it('a full bucket after one GET: 4999 left, full again one point later', () => {
    expect(describe(NOW + POINT, NOW, limits, null)).toEqual({
      allowed: true,
      tat: NOW + POINT,
      limit: 5000,
      remaining: 4999,
      reset: Math.ceil((NOW + POINT) / 1000),
      retryAfter: null,
    });
  });

  it('an exhausted bucket: nothing left, full in an hour, a write waits five points', () => {
    const tat = NOW + HOUR_MS;
    expect(describe(tat, NOW, limits, nextTat(tat, NOW, 5, limits))).toEqual({
      allowed: false,
      tat,
      limit: 5000,
      remaining: 0,
      reset: Math.ceil((NOW + HOUR_MS) / 1000),
      retryAfter: Math.ceil((5 * POINT) / 1000),
    });
  });

  it('Retry-After is never below one second, and rounds up', () => {
    const tat = NOW + HOUR_MS - 100;
    expect(describe(tat, NOW, limits, nextTat(tat, NOW, 1, limits)).retryAfter).toBe(1);
    const small = { budget: 7 };
    const step = HOUR_MS / 7;
    const full = NOW + HOUR_MS;
    expect(describe(full, NOW, small, nextTat(full, NOW, 1, small)).retryAfter).toBe(Math.ceil(step / 1000));
  });

  it('refills one point per interval', () => {
    const tat = NOW + HOUR_MS;
    expect(describe(tat, NOW + POINT, limits, null).remaining).toBe(1);
    expect(describe(tat, NOW + 10 * POINT, limits, null).remaining).toBe(10);
    expect(describe(tat, NOW + HOUR_MS, limits, null).remaining).toBe(5000);
  });
});
