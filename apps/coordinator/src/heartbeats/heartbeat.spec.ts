import { describe, expect, it } from '@jest/globals';
import {
  deadlineOf,
  describeDuration,
  describeHeartbeat,
  FAILURE_REPORTED,
  heartbeatResult,
  isTokenShaped,
  newHeartbeatToken,
  pingUrlOf,
} from './heartbeat.js';

describe('heartbeat tokens', () => {
  it('are 32 URL-safe characters, different every time, and token-shaped', () => {
    const tokens = Array.from({ length: 200 }, newHeartbeatToken);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(isTokenShaped(token)).toBe(true);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it.each(['', 'short', 'a'.repeat(23), 'a'.repeat(65), `${'a'.repeat(30)}/x`, `${'a'.repeat(30)}%2F`, '../../etc'])(
    '%j is no token',
    (value) => {
      expect(isTokenShaped(value)).toBe(false);
    },
  );

  it.each([
    ['https://picket.example', 'https://picket.example/ping/T'],
    ['https://picket.example/', 'https://picket.example/ping/T'],
    ['http://127.0.0.1:8080//', 'http://127.0.0.1:8080/ping/T'],
    ['https://example.com/picket', 'https://example.com/picket/ping/T'],
  ])('the ping URL under %s is %s', (base, url) => {
    expect(pingUrlOf(base, 'T')).toBe(url);
  });
});

describe('deadlineOf', () => {
  const settings = { period: 3600, grace: 300 };
  it.each([
    [null, 1_000, 1_000 + 3900],
    [5_000, 1_000, 5_000 + 3900],
    [1_000, 1_000, 1_000 + 3900],
  ])('last result %j, created %j → %j', (last, created, deadline) => {
    expect(deadlineOf(settings, last, created)).toBe(deadline);
  });

  it('is period + grace at the bounds', () => {
    expect(deadlineOf({ period: 60, grace: 60 }, 0, 0)).toBe(120);
    expect(deadlineOf({ period: 2_592_000, grace: 86_400 }, 0, 0)).toBe(2_678_400);
  });
});

describe('describeDuration', () => {
  it.each([
    [0, '0 s'],
    [-5, '0 s'],
    [45, '45 s'],
    [60, '1 min'],
    [61, '1 min 1 s'],
    [300, '5 min'],
    [3600, '1 h'],
    [3900, '1 h 5 min'],
    [3961, '1 h 6 min'],
    [7200 + 59, '2 h'],
    [86_400, '1 d'],
    [86_400 + 3 * 3600 + 59 * 60, '1 d 3 h'],
    [2_592_000, '30 d'],
    [90.9, '1 min 30 s'],
  ])('%j s reads %j', (seconds, text) => {
    expect(describeDuration(seconds)).toBe(text);
  });

  it('describes a heartbeat for message target lines', () => {
    expect(describeHeartbeat({ period: 3600, grace: 300 })).toBe('heartbeat every 1 h (grace 5 min)');
    expect(describeHeartbeat({ period: 86_400, grace: 3_600 })).toBe('heartbeat every 1 d (grace 1 h)');
  });
});

describe('heartbeatResult', () => {
  const id = '0123456789abcdef01234567';
  it.each([
    [{ kind: 'ping' as const }, 'up', null, null],
    [{ kind: 'fail' as const }, 'down', 'assertion', FAILURE_REPORTED],
    [{ kind: 'missed' as const, silentFor: 3900 }, 'down', 'timeout', 'no ping for 1 h 5 min'],
  ])('%j is a %s result (%s, %s) from the heartbeat pseudo-region', (event, status, phase, error) => {
    const result = heartbeatResult(id, event, 1_700_000_000_123);
    expect(result).toMatchObject({
      check_id: `${id}:1700000000123:heartbeat`,
      monitor_id: id,
      region: 'heartbeat',
      scheduled_at: 1_700_000_000_123,
      started_at: 1_700_000_000_123,
      status,
      phase,
      error,
      response_time_ms: null,
      agent_id: 'coordinator',
    });
  });
});
