import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '#runtime';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { ApiClient as Client } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { freePort } from '../support/faults.js';
import { startPicket, type RunningProcess } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const BUDGET = 20;
/** 3600 s / 20 points. */
const POINT_S = 180;

function limitHeaders(res: ApiResponse) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    reset: res.headers.get('x-ratelimit-reset'),
  };
}

/**
 * docs/decisions/0003-auth-permissions-rate-limit.md: GCRA per account, costs GET 1 / writes 5 /
 * contact test 10, headers on every answer.
 */
describe.each(testDatabases())('rate limit on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 12));
  const nowS = () => clock.now() / 1000;

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock, env: { RATE_LIMIT_POINTS_PER_HOUR: String(BUDGET) } });
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  it('admits exactly the budget, says so in the headers, then answers 429 with Retry-After', async () => {
    const { client } = await c.newAccount('reader');
    for (let i = 1; i <= BUDGET; i++) {
      const res = await client.get('/api/monitors');
      expect(res.status).toBe(200);
      // Full again when every point spent so far has been earned back.
      expect(limitHeaders(res)).toEqual({
        limit: String(BUDGET),
        remaining: String(BUDGET - i),
        reset: String(nowS() + i * POINT_S),
      });
    }
    const refused = await client.get('/api/monitors');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(limitHeaders(refused)).toEqual({
      limit: String(BUDGET),
      remaining: '0',
      reset: String(nowS() + BUDGET * POINT_S),
    });
    expect(refused.headers.get('retry-after')).toBe(String(POINT_S));
    // The OpenAPI document (public, not charged) requires exactly these headers on the 200 and the 429.
    const doc = (await client.get('/api/openapi.json')).body;
    const responses = doc.paths['/api/monitors'].get.responses;
    const required = (response: any) =>
      Object.entries<any>(response.headers ?? {})
        .filter(([, header]) => header.required)
        .map(([name]) => name.toLowerCase())
        .sort();
    const limits = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
    expect(required(responses['200'])).toEqual(limits);
    const tooMany = doc.components.responses[String(responses['429'].$ref).split('/').pop()!];
    expect(required(tooMany)).toEqual(['retry-after', ...limits]);
    // A refused request costs nothing: one point later exactly one GET fits again.
    clock.advance(POINT_S * 1000 - 1000);
    expect((await client.get('/api/monitors')).status).toBe(429);
    clock.advance(1000);
    const again = await client.get('/api/monitors');
    expect(again.status).toBe(200);
    expect(limitHeaders(again).remaining).toBe('0');
    expect((await client.get('/api/monitors')).headers.get('retry-after')).toBe(String(POINT_S));
    clock.advance(BUDGET * POINT_S * 1000); // an idle hour refills the bucket, no more
    expect(limitHeaders(await client.get('/api/monitors')).remaining).toBe(String(BUDGET - 1));
  });

  it('charges 5 for a write and 10 for a contact test, on errors as on successes', async () => {
    const { client } = await c.newAccount('writer');
    const remaining = async (res: Promise<ApiResponse>, status: number) => {
      const answer = await res;
      expect(answer.status).toBe(status);
      return Number(answer.headers.get('x-ratelimit-remaining'));
    };
    expect(await remaining(client.post('/api/monitors', {}), 422)).toBe(BUDGET - 5);
    expect(await remaining(client.get('/api/monitors/0123456789abcdef01234567'), 404)).toBe(BUDGET - 6);
    expect(await remaining(client.post('/api/contacts/0123456789abcdef01234567/test'), 404)).toBe(BUDGET - 16);
    // 4 points left: a write (5) is refused, with the wait for one more point; GETs still fit.
    const write = await client.delete('/api/monitors/0123456789abcdef01234567');
    expect(write.status).toBe(429);
    expect(write.headers.get('retry-after')).toBe(String(POINT_S));
    expect(await remaining(client.get('/api/monitors'), 200)).toBe(3);
  });

  it('keeps accounts apart and never charges requests without a valid key', async () => {
    const a = await c.newAccount('a');
    const b = await c.newAccount('b');
    for (let i = 0; i < BUDGET; i++) await a.client.get('/api/account');
    expect((await a.client.get('/api/account')).status).toBe(429);
    expect(limitHeaders(await b.client.get('/api/account')).remaining).toBe(String(BUDGET - 1));
    const anonymous = await c.client().get('/api/account');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-ratelimit-limit')).toBeNull();
    const wrong = await c.client(`pkt_${'0'.repeat(64)}`).get('/api/account');
    expect(wrong.status).toBe(401);
    // Public documents are not charged either.
    const doc = await c.client(b.apiKey).get('/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

/** Two coordinator processes on one PostgreSQL share each account's budget. */
const postgres = testDatabases().find((k) => k.name === 'postgres');
(postgres ? describe : describe.skip)('rate limit shared by two coordinator processes', () => {
  const SHARED_BUDGET = 30;
  const key = `pkt_${randomBytes(32).toString('hex')}`;
  let db: TestDatabase;
  const processes: RunningProcess[] = [];
  const clients: ApiClient[] = [];

  beforeAll(async () => {
    db = await postgres!.create();
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      processes.push(
        startPicket('start', {
          DATABASE_URL: db.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          BOOTSTRAP_API_KEY: key,
          CHECKS_ENABLED: 'false',
          RATE_LIMIT_POINTS_PER_HOUR: String(SHARED_BUDGET),
        }),
      );
      const client = new Client(`http://127.0.0.1:${port}`, key);
      // Readiness without spending the budget: the public document.
      await waitFor(
        `coordinator ${i} to listen`,
        async () => ((await client.get('/api/openapi.json').catch(() => null))?.status === 200 ? true : undefined),
        120_000,
      );
      clients.push(client);
    }
  }, 240_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    await db?.drop();
  });

  it('admits no more than the budget across both, however the requests interleave', async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) => clients[i % 2]!.get('/api/account').then((r) => r.status)),
    );
    const elapsedS = (Date.now() - started) / 1000;
    const admitted = answers.filter((s) => s === 200).length;
    // The bucket refills one point every 120 s: during the burst, at most that much more.
    const refill = Math.floor((elapsedS * SHARED_BUDGET) / 3600);
    expect(answers.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeGreaterThanOrEqual(SHARED_BUDGET);
    expect(admitted).toBeLessThanOrEqual(SHARED_BUDGET + refill);
  }, 60_000);
});
