import { describe, expect, it } from '@jest/globals';
import { ago, duration, localTime, utcTime } from './time.ts';

// 2026-11-25 17:08:43 UTC
const AT = 1_795_626_523;

describe('times', () => {
  it('shows a time in the given zone, and UTC on hover', () => {
    expect(localTime(AT, 'UTC')).toBe('25 Nov 2026, 17:08:43');
    expect(localTime(AT, 'Europe/Berlin')).toBe('25 Nov 2026, 18:08:43');
    expect(localTime(AT, 'America/New_York')).toBe('25 Nov 2026, 12:08:43');
    expect(localTime(AT, 'Asia/Kolkata')).toBe('25 Nov 2026, 22:38:43');
    expect(utcTime(AT)).toBe('2026-11-25 17:08:43 UTC');
  });

  it.each([
    [0, '0 s'],
    [45, '45 s'],
    [60, '1 min'],
    [200, '3 min 20 s'],
    [3600, '1 h'],
    [7500, '2 h 5 min'],
    [3 * 86400 + 4 * 3600 + 59, '3 d 4 h'],
    [86400 + 30, '1 d'],
    [-5, '0 s'],
  ])('a duration of %i s reads %s', (seconds, text) => {
    expect(duration(seconds)).toBe(text);
  });

  it('says how long ago', () => {
    expect(ago(AT, AT + 2)).toBe('just now');
    expect(ago(AT, AT + 200)).toBe('3 min ago');
    expect(ago(AT, AT + 7500)).toBe('2 h ago');
  });
});
