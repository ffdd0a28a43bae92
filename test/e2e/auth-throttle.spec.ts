import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { ManualClock } from '#runtime';
import { AccountEntity } from '../../apps/coordinator/src/auth/account.entity.js';
import { AccountsRepository } from '../../apps/coordinator/src/auth/accounts.repository.js';
import { AccountsService } from '../../apps/coordinator/src/auth/accounts.service.js';
import { ApiKeyEntity } from '../../apps/coordinator/src/auth/api-key.entity.js';
import { hashApiKey } from '../../apps/coordinator/src/auth/api-key.js';
import { PERMISSIONS } from '../../apps/coordinator/src/auth/permissions.js';
import { PagePasswordCheck } from '../../apps/coordinator/src/status-pages/page-password-check.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { createMonitor } from '../support/monitor-fixtures.js';

/** Failed attempts each client address may make per hour (AUTH_FAILURES_PER_HOUR), per kind. */
const BUDGET = 5;
/** 3600 s / 5: one failure earned back every 12 minutes. */
const FAILURE_S = 720;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

/**
 * Per-client-address throttles of failed authentications
 * (docs/decisions/0018-abuse-limits-and-quotas.md): a spent failure budget is 429
 * RATE_LIMIT_EXCEEDED with Retry-After; the client address is the socket's, whatever
 * X-Forwarded-For says.
 */
describe.each(testDatabases())('failed authentications throttled per client address on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock, env: { AUTH_FAILURES_PER_HOUR: String(BUDGET) } });
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  /** A GET from the given local address (loopback has all of 127/8), so the server sees that socket address. */
  const get = (path: string, headers: Record<string, string> = {}, from = '127.0.0.1') =>
    new Promise<Answer>((resolve, reject) => {
      const { port } = new URL(c.baseUrl);
      request({ host: '127.0.0.1', port, path, headers, localAddress: from }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      })
        .once('error', reject)
        .end();
    });
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const unknownKey = () => `pkt_${randomBytes(32).toString('hex')}`;

  it('bad API keys get 401 until the budget is spent, then 429 with Retry-After; a valid key is never slowed', async () => {
    const { accountId, apiKey } = await c.newAccount('throttle');
    const revoked = await c.app.get(AccountsService).createKey(accountId, [...PERMISSIONS]);
    await c.app.get(AccountsService).revokeKey(revoked.keyId);
    // Successes cost nothing from the failure budget.
    for (let i = 0; i < 3 * BUDGET; i++) expect((await get('/api/monitors', bearer(apiKey))).status).toBe(200);
    // A request without any key is no guess: it is not counted.
    for (let i = 0; i < 3 * BUDGET; i++) expect((await get('/api/monitors')).status).toBe(401);

    const guesses = [unknownKey(), 'pkt_short', revoked.apiKey, unknownKey(), `${apiKey}0`];
    expect(guesses).toHaveLength(BUDGET);
    for (const key of guesses) expect((await get('/api/monitors', bearer(key))).status).toBe(401);

    const refused = await get('/api/monitors', bearer(unknownKey()));
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      status: 'error',
      error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.stringContaining('failed') },
    });
    expect(refused.headers['retry-after']).toBe(String(FAILURE_S));
    // X-Forwarded-For is not believed: the socket address decides.
    const forwarded = await get('/api/monitors', { ...bearer(unknownKey()), 'x-forwarded-for': '203.0.113.7' });
    expect(forwarded.status).toBe(429);
    // The right key from the same address still works at once.
    expect((await get('/api/monitors', bearer(apiKey))).status).toBe(200);
    // Another address has its own budget.
    expect((await get('/api/monitors', bearer(unknownKey()), '127.0.0.2')).status).toBe(401);

    // One failure is earned back after Retry-After seconds, and only one.
    clock.advance(FAILURE_S * 1000);
    expect((await get('/api/monitors', bearer(unknownKey()))).status).toBe(401);
    expect((await get('/api/monitors', bearer(unknownKey()))).status).toBe(429);
    clock.advance(3_600_000);
  });

  it('concurrent bad keys: exactly the budget is answered 401, the rest 429', async () => {
    const from = '127.0.0.3';
    const answers = await Promise.all(
      Array.from({ length: 6 * BUDGET }, () => get('/api/account', bearer(unknownKey()), from)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(BUDGET);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5 * BUDGET);
    clock.advance(3_600_000);
  });

  it('status-page basic auth: wrong credentials 401 until the budget is spent, then 429 for every guess', async () => {
    const { client } = await c.newAccount('pages');
    const monitor = await createMonitor(client);
    const created = await client.post('/api/status_pages', {
      name: 'Locked',
      monitors: [monitor.id],
      basic_auth: 'viewer:correct horse',
    });
    expect(created.status).toBe(201);
    const html = `/status/${created.body.data.id as string}`;
    const json = `${html}.json`;
    const right = { authorization: basic('viewer:correct horse') };
    const from = '127.0.0.4';

    // The right credentials cost nothing; no credentials is the browser's first visit, not a guess.
    for (let i = 0; i < 3 * BUDGET; i++) expect((await get(html, right, from)).status).toBe(200);
    for (let i = 0; i < 3 * BUDGET; i++) expect((await get(html, {}, from)).status).toBe(401);

    for (let i = 0; i < BUDGET; i++) {
      const wrong = await get(i % 2 === 0 ? html : json, { authorization: basic(`viewer:guess ${i}`) }, from);
      expect(wrong.status).toBe(401);
    }
    const refusedJson = await get(json, { authorization: basic('viewer:guess again') }, from);
    expect(refusedJson.status).toBe(429);
    expect(refusedJson.headers['retry-after']).toBe(String(FAILURE_S));
    expect(refusedJson.json).toEqual({
      status: 'error',
      error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) },
    });
    const refusedHtml = await get(html, { authorization: basic('viewer:and again') }, from);
    expect(refusedHtml.status).toBe(429);
    expect(refusedHtml.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(refusedHtml.headers['retry-after']).toBe(String(FAILURE_S));
    // Past the budget a guess costs no password hashing (scrypt): refused before the check.
    const verify = jest.spyOn(c.app.get(PagePasswordCheck), 'verify');
    try {
      for (let i = 0; i < 3; i++) {
        expect((await get(json, { authorization: basic(`viewer:more ${i}`) }, from)).status).toBe(429);
      }
      expect(verify).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
    }
    // While the budget is spent even the right password waits: a 200 would tell a guesser it won.
    expect((await get(html, right, from)).status).toBe(429);
    expect((await get(json, { ...right, 'x-forwarded-for': '198.51.100.1' }, from)).status).toBe(429);
    // The API-key budget of the same address is a separate one.
    expect((await get('/api/account', bearer(unknownKey()), from)).status).toBe(401);
    // Another address is not affected.
    expect((await get(html, right, '127.0.0.5')).status).toBe(200);

    clock.advance(FAILURE_S * 1000);
    expect((await get(html, right, from)).status).toBe(200);
    expect((await get(html, { authorization: basic('viewer:one more') }, from)).status).toBe(401);
    expect((await get(html, right, from)).status).toBe(429);
    clock.advance(3_600_000);
  });

  it('concurrent wrong passwords: exactly the budget is judged, the rest refused', async () => {
    const { client } = await c.newAccount('burst');
    const monitor = await createMonitor(client);
    const created = await client.post('/api/status_pages', {
      name: 'Burst',
      monitors: [monitor.id],
      basic_auth: 'viewer:secret',
    });
    const path = `/status/${created.body.data.id as string}.json`;
    const answers = await Promise.all(
      Array.from({ length: 6 * BUDGET }, (_, i) =>
        get(path, { authorization: basic(`viewer:guess ${i}`) }, '127.0.0.6'),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(BUDGET);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5 * BUDGET);
    clock.advance(3_600_000);
  });

  it('a registered key too regular to be secret (the old all-zero example key) is refused like an unknown one', async () => {
    const weak = `pkt_${'0'.repeat(64)}`;
    const now = Math.floor(clock.now() / 1000);
    const account = Object.assign(new AccountEntity(), {
      id: 'feedfacefeedfacefeedface',
      name: 'from an old deploy file',
      subscriptionStatus: 'active' as const,
      createdAt: now,
    });
    const key = Object.assign(new ApiKeyEntity(), {
      id: 'facefeedfacefeedfacefeed',
      accountId: account.id,
      keyHash: hashApiKey(weak),
      prefix: weak.slice(0, 12),
      permissions: PERMISSIONS.join(','),
      createdAt: now,
      revokedAt: null,
      lastUsedAt: null,
    });
    await c.app.get(AccountsRepository).insertAccountWithKey(account, key);
    const res = await get('/api/account', bearer(weak), '127.0.0.7');
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('UNAUTHORIZED');
  });
});
