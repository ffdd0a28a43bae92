import { describe, expect, it } from '@jest/globals';
import { expiry, inDays, regionLines, safeTarget, utcMinute } from './message-parts.js';
import type { NotificationEvent } from './notification-event.js';

/** 2026-01-01T10:00:00Z, the timestamp of the notifier specs' sample event. */
const T0 = 1767261600;
const DAY = 86_400;

describe('utcMinute', () => {
  it.each([
    { seconds: T0, text: '2026-01-01 10:00 UTC' },
    { seconds: T0 + 59, text: '2026-01-01 10:00 UTC' },
    { seconds: T0 + 59.9, text: '2026-01-01 10:00 UTC' },
    { seconds: T0 + 720, text: '2026-01-01 10:12 UTC' },
    { seconds: T0 + 14 * DAY + 7200, text: '2026-01-15 12:00 UTC' },
    { seconds: T0 - 10 * 3600 - 1, text: '2025-12-31 23:59 UTC' },
    { seconds: 0, text: '1970-01-01 00:00 UTC' },
  ])('$seconds → $text', ({ seconds, text }) => {
    expect(utcMinute(seconds)).toBe(text);
  });
});

describe('safeTarget', () => {
  it.each([
    { target: 'https://api.example.com/health', text: 'https://api.example.com/health' },
    { target: 'https://user:s3cret@api.example.com/health', text: 'https://api.example.com/health' },
    { target: 'https://token@api.example.com/', text: 'https://api.example.com/' },
    { target: 'HTTPS://u:p@api.example.com:8443/x', text: 'HTTPS://api.example.com:8443/x' },
    { target: 'tcp://admin:pw@db.internal:5432', text: 'tcp://db.internal:5432' },
    { target: 'ping://10.0.0.1', text: 'ping://10.0.0.1' },
    // An @ after the host (path, query, fragment) is not a credential.
    { target: 'https://api.example.com/users/@me', text: 'https://api.example.com/users/@me' },
    { target: 'https://api.example.com?mail=a@b.example', text: 'https://api.example.com?mail=a@b.example' },
    { target: 'https://api.example.com#a@b', text: 'https://api.example.com#a@b' },
    // One line, trimmed.
    { target: 'https://api.example.com/a\r\nX-Injected: 1', text: 'https://api.example.com/a X-Injected: 1' },
    { target: 'https://u:p@api.example.com/\n', text: 'https://api.example.com/' },
    { target: '  https://api.example.com/ ', text: 'https://api.example.com/' },
    { target: '', text: '' },
  ])('$target → $text', ({ target, text }) => {
    expect(safeTarget(target)).toBe(text);
  });
});

describe('regionLines', () => {
  type Regions = NotificationEvent['regions'];
  it.each<{ name: string; regions: Regions; lines: string[] }>([
    { name: 'no regions', regions: [], lines: [] },
    {
      name: 'one result in two regions',
      regions: [
        { region: 'eu-west-1', status: 'down', error: 'HTTP 503' },
        { region: 'us-east-1', status: 'down', error: 'HTTP 503' },
      ],
      lines: ['down (HTTP 503): eu-west-1, us-east-1'],
    },
    {
      name: 'distinct results, grouped in the order first seen',
      regions: [
        { region: 'us-east-1', status: 'down', error: 'HTTP 503' },
        { region: 'eu-west-1', status: 'up', error: null },
        { region: 'ap-east-1', status: 'down', error: 'connection refused' },
        { region: 'eu-north-1', status: 'down', error: 'HTTP 503' },
        { region: 'us-west-2', status: 'unknown', error: '' },
      ],
      lines: [
        'down (HTTP 503): us-east-1, eu-north-1',
        'up: eu-west-1',
        'down (connection refused): ap-east-1',
        'unknown: us-west-2',
      ],
    },
    {
      name: 'a multi-line error on one line',
      regions: [{ region: 'eu-west-1', status: 'down', error: 'HTTP 503\r\nX-Injected: 1' }],
      lines: ['down (HTTP 503 X-Injected: 1): eu-west-1'],
    },
  ])('$name', ({ regions, lines }) => {
    expect(regionLines({ regions })).toEqual(lines);
  });
});

describe('expiry', () => {
  it.each([
    { expiresAt: null, text: 'expires soon' },
    { expiresAt: T0 + 14 * DAY + 7200, text: 'expires on 2026-01-15 (in 14 days)' },
    { expiresAt: T0 + 2 * DAY, text: 'expires on 2026-01-03 (in 2 days)' },
    { expiresAt: T0 + 2 * DAY - 1, text: 'expires on 2026-01-03 (in 1 day)' },
    { expiresAt: T0 + DAY, text: 'expires on 2026-01-02 (in 1 day)' },
    { expiresAt: T0 + DAY - 1, text: 'expires on 2026-01-02 (in less than a day)' },
    { expiresAt: T0 + 1, text: 'expires on 2026-01-01 (in less than a day)' },
    { expiresAt: T0, text: 'expired on 2026-01-01' },
    { expiresAt: T0 - DAY, text: 'expired on 2025-12-31' },
  ])('expires at $expiresAt → $text', ({ expiresAt, text }) => {
    expect(expiry({ certificateExpiresAt: expiresAt, timestamp: T0 })).toBe(text);
  });
});

describe('inDays', () => {
  it.each([
    { seconds: 0, text: 'today' },
    { seconds: DAY / 2 - 1, text: 'today' },
    { seconds: -3 * DAY, text: 'today' },
    { seconds: DAY / 2, text: 'in 1 day' },
    { seconds: DAY, text: 'in 1 day' },
    { seconds: 1.5 * DAY, text: 'in 2 days' },
    { seconds: 14 * DAY + 7200, text: 'in 14 days' },
  ])('$seconds s → $text', ({ seconds, text }) => {
    expect(inDays(seconds)).toBe(text);
  });
});
