import { describe, expect, it } from '@jest/globals';
import { PING_LIMITS, PingLimiter } from './ping-limiter.js';

describe('PingLimiter', () => {
  const T = 1_767_225_600_000;

  it('admits 60 pings of a token at once, refuses the 61st with Retry-After, and earns one back per second', () => {
    const limiter = new PingLimiter();
    for (let i = 0; i < 60; i++) expect(limiter.charge('a', T).allowed).toBe(true);
    const refused = limiter.charge('a', T);
    expect(refused).toMatchObject({ allowed: false, limit: 60, remaining: 0, retryAfter: 1 });
    expect(limiter.charge('a', T + 999).allowed).toBe(false);
    expect(limiter.charge('a', T + 1000).allowed).toBe(true);
    expect(limiter.charge('a', T + 1000).allowed).toBe(false);
  });

  it('keeps one budget per token', () => {
    const limiter = new PingLimiter();
    for (let i = 0; i < 60; i++) limiter.charge('a', T);
    expect(limiter.charge('a', T).allowed).toBe(false);
    expect(limiter.charge('b', T)).toMatchObject({ allowed: true, remaining: 59 });
  });

  it('a steady ping every second never runs out', () => {
    const limiter = new PingLimiter();
    for (let i = 0; i < 600; i++) expect(limiter.charge('a', T + i * 1000).allowed).toBe(true);
  });

  it('waits as long as the spent budget says', () => {
    const limiter = new PingLimiter({ budget: 2, windowMs: 60_000 });
    limiter.charge('a', T);
    limiter.charge('a', T);
    expect(limiter.charge('a', T).retryAfter).toBe(30);
    expect(PING_LIMITS).toEqual({ budget: 60, windowMs: 60_000 });
  });
});
