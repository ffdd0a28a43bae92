import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import { loadCoordinatorConfig } from '../config.js';
import { FailureThrottle } from './failure-throttle.js';
import { HOUR_MS } from './gcra.js';
import type { RateLimitStore } from './rate-limit.store.js';

/**
 * The store's contract, in memory: `admit` takes the increment when the bucket's TAT stays
 * within an hour of now (what RateLimitStore's single SQL statement does; its own spec and the
 * auth-throttle e2e suite run the real one on both databases).
 */
class MemoryStore {
  readonly tats = new Map<string, number>();
  pruned = 0;

  admit(_kind: string, id: string, now: number, incrementMs: number): Promise<number | null> {
    const next = Math.max(this.tats.get(id) ?? now, now) + incrementMs;
    if (next - now > HOUR_MS) return Promise.resolve(null);
    this.tats.set(id, next);
    return Promise.resolve(next);
  }

  tatOf(_kind: string, id: string): Promise<number | null> {
    return Promise.resolve(this.tats.get(id) ?? null);
  }

  pruneAuthFailures(now: number): Promise<void> {
    this.pruned++;
    for (const [id, tat] of this.tats) if (tat < now) this.tats.delete(id);
    return Promise.resolve();
  }
}

const BUDGET = 4;
const T0 = Date.UTC(2026, 10, 25, 12);

function throttle() {
  const store = new MemoryStore();
  const clock = new ManualClock(T0);
  const config = loadCoordinatorConfig({ AUTH_FAILURES_PER_HOUR: String(BUDGET) });
  return { store, clock, throttle: new FailureThrottle(store as unknown as RateLimitStore, config, clock) };
}

describe('FailureThrottle', () => {
  it('takes exactly the budget of failures per address, then refuses with Retry-After and the headers of that budget', async () => {
    const { throttle: t } = throttle();
    for (let i = 0; i < BUDGET; i++) expect(await t.failed('api_key', '198.51.100.7')).toBeNull();
    const refused = await t.failed('api_key', '198.51.100.7');
    expect(refused).toMatchObject({ allowed: false, limit: BUDGET, remaining: 0 });
    // One failure is earned back every hour / BUDGET.
    expect(refused?.retryAfter).toBe(HOUR_MS / BUDGET / 1000);
    expect(refused?.reset).toBe(Math.ceil((T0 + HOUR_MS) / 1000));
  });

  it('keeps one budget per kind and per address; IPv6 addresses share their /64, IPv4-mapped ones count as IPv4', async () => {
    const { throttle: t } = throttle();
    for (let i = 0; i < BUDGET; i++) await t.failed('basic_auth', '2001:db8:1:2::10');
    expect(await t.failed('basic_auth', '2001:db8:1:2::99')).not.toBeNull();
    expect(await t.failed('basic_auth', '2001:db8:1:3::10')).toBeNull();
    expect(await t.failed('api_key', '2001:db8:1:2::10')).toBeNull();
    for (let i = 0; i < BUDGET; i++) await t.failed('password', '203.0.113.9');
    expect(await t.spent('password', '::ffff:203.0.113.9')).not.toBeNull();
  });

  it('says whether a budget is spent without charging it, and frees it as time passes', async () => {
    const { throttle: t, clock } = throttle();
    expect(await t.spent('basic_auth', '192.0.2.1')).toBeNull();
    for (let i = 0; i < BUDGET; i++) await t.failed('basic_auth', '192.0.2.1');
    const spent = await t.spent('basic_auth', '192.0.2.1');
    expect(spent).toMatchObject({ allowed: false, remaining: 0 });
    expect(await t.spent('basic_auth', '192.0.2.1')).toEqual(spent);
    clock.advance(HOUR_MS / BUDGET);
    expect(await t.spent('basic_auth', '192.0.2.1')).toBeNull();
    expect(await t.failed('basic_auth', '192.0.2.1')).toBeNull();
    expect(await t.failed('basic_auth', '192.0.2.1')).not.toBeNull();
  });

  it('keeps a budget per email address, whatever the case, stored by its digest', async () => {
    const { throttle: t, store } = throttle();
    for (let i = 0; i < BUDGET; i++) expect(await t.failedEmail('Ada@Example.com')).toBeNull();
    expect(await t.spentEmail('ada@example.com')).not.toBeNull();
    expect(await t.spentEmail('bob@example.com')).toBeNull();
    expect([...store.tats.keys()].join(' ')).not.toContain('example.com');
  });

  it('prunes expired buckets at most once a minute', async () => {
    const { throttle: t, store, clock } = throttle();
    await t.failed('api_key', '192.0.2.1');
    await t.failed('api_key', '192.0.2.2');
    expect(store.pruned).toBe(1);
    clock.advance(59_000);
    await t.failed('api_key', '192.0.2.3');
    expect(store.pruned).toBe(1);
    clock.advance(1_000);
    await t.failed('api_key', '192.0.2.4');
    expect(store.pruned).toBe(2);
  });
});
