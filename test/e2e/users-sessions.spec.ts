/**
 * Dashboard users and sessions against a real coordinator (docs/decisions/0022-users-and-sessions.md):
 * first-start setup, sign-in and its throttles, session expiry on the injected clock, sign-out and
 * password changes revoking, CSRF, roles, the admins' users and API keys routes, and that no answer
 * ever carries a password hash, a session token hash or a contact secret.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { ManualClock } from '#runtime';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { SessionEntity } from '../../apps/coordinator/src/sessions/session.entity.js';
import { tokenHash } from '../../apps/coordinator/src/sessions/session-rules.js';
import { UserEntity } from '../../apps/coordinator/src/users/user.entity.js';
import { ApiKeysService } from '../../apps/coordinator/src/users/api-keys.service.js';
import { PasswordHasher } from '../../apps/coordinator/src/users/passwords.js';
import { UsersService } from '../../apps/coordinator/src/users/users.service.js';
import { ApiClient, type ApiResponse } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { sessionCookieOf, sessionFrom, signIn, tokenOfUrl, type Session } from '../support/sessions.js';
import { SPEC_PERMISSIONS } from '../support/spec-lists.js';
import { waitFor } from '../support/wait.js';

/** Failed sign-ins each client address, and each email, may make per hour here. */
const BUDGET = 4;
const DAY_MS = 86_400_000;
const PASSWORD = 'correct horse battery';
const MONITOR = { name: 'Shop', settings: { https: { url: 'https://shop.example.com' } }, regions: ['eu-west-1'] };

interface Answer extends ApiResponse {
  setCookie: string[];
}

describe.each(testDatabases())('dashboard users and sessions on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 9));
  /** Every answer the suite received, to look for secrets in. */
  const seen: string[] = [];
  let admin: Session;
  let accountId: string;

  /** Any request from a chosen loopback address (the server sees that socket address). */
  function send(
    method: string,
    path: string,
    options: { json?: unknown; headers?: Record<string, string>; from?: string } = {},
  ): Promise<Answer> {
    const { port } = new URL(c.baseUrl);
    const body = options.json === undefined ? undefined : JSON.stringify(options.json);
    const headers: Record<string, string> = {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    };
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method, path, headers, localAddress: options.from ?? '127.0.0.1' },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            seen.push(text, JSON.stringify(res.headers));
            const received = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
                received.append(name, one);
              }
            }
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            const setCookie = res.headers['set-cookie'] ?? [];
            resolve({ status: res.statusCode ?? 0, headers: received, body: parsed, text, setCookie });
          });
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  }

  /** A session's request: its cookie, and its CSRF token unless told otherwise. */
  const as = (session: Session, method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    send(method, path, {
      json,
      headers: { cookie: `picket_session=${session.token}`, 'x-csrf-token': session.csrf, ...headers },
    });

  /** Records what an ApiClient received too. */
  const record = (res: ApiResponse) => {
    seen.push(res.text);
    return res;
  };

  const login = (email: string, password: string, from?: string, headers: Record<string, string> = {}) =>
    send('POST', '/auth/login', { json: { email, password }, from, headers });

  /** A new user of the account (invited by the admin), with a password, signed in. */
  async function userWith(role: 'admin' | 'editor' | 'viewer', email: string): Promise<Session & { id: string }> {
    const created = await as(admin, 'POST', '/api/users', { email, name: `${role} user`, role });
    expect(created.status).toBe(201);
    const token = tokenOfUrl(created.body.data.set_password_url as string);
    const set = await send('POST', '/auth/set-password', { json: { token, password: PASSWORD } });
    const session = await sessionFrom(c.baseUrl, set);
    return { ...session, id: created.body.data.id as string };
  }

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock, env: { AUTH_FAILURES_PER_HOUR: String(BUDGET) } });
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  it('first start: the setup token makes the first admin of the default account, once; then sign-in and /api/me', async () => {
    const users = c.app.get(UsersService);
    const url = await users.issueSetupUrl();
    if (url === null) throw new Error('no setup URL on an empty database');
    expect(url).toMatch(/^http:\/\/localhost:8080\/setup\?token=[A-Za-z0-9_-]{43}$/);
    const token = tokenOfUrl(url);
    // An older token of an earlier start stays valid until used.
    const older = tokenOfUrl((await users.issueSetupUrl())!);

    const bad = await send('POST', '/auth/setup', {
      json: { token, email: 'not-an-email', name: '', password: 'short' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual(['email', 'name', 'password']);
    const wrong = await send('POST', '/auth/setup', {
      json: { token: 'x'.repeat(43), email: 'ada@example.com', name: 'Ada', password: PASSWORD },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('UNAUTHORIZED');
    const foreign = await send('POST', '/auth/setup', {
      json: { token, email: 'ada@example.com', name: 'Ada', password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);

    const done = await send('POST', '/auth/setup', {
      json: { token, email: 'Ada@Example.com', name: 'Ada', password: PASSWORD },
    });
    expect(done.status).toBe(204);
    expect(done.text).toBe('');
    const cookie = done.setCookie.find((v) => v.startsWith('picket_session='));
    expect(cookie).toMatch(/^picket_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
    admin = await sessionFrom(c.baseUrl, done);
    expect(admin.me).toEqual({
      user: {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        email: 'Ada@Example.com',
        name: 'Ada',
        role: 'admin',
        created_at: clock.now() / 1000,
        last_login_at: null,
      },
      account_id: expect.stringMatching(/^[0-9a-f]{24}$/),
      permissions: [...SPEC_PERMISSIONS, 'users:manage', 'keys:manage'],
      csrf_token: expect.any(String),
    });
    accountId = admin.me.account_id as string;

    // Used once: neither this token nor the older one works again, and no more setup URL is made.
    for (const used of [token, older]) {
      const again = await send('POST', '/auth/setup', {
        json: { token: used, email: 'eve@example.com', name: 'Eve', password: PASSWORD },
      });
      expect(again.status).toBe(401);
    }
    expect(await users.issueSetupUrl()).toBeNull();

    const signedIn = await login('ada@EXAMPLE.com', PASSWORD);
    expect(signedIn.status).toBe(204);
    const session = await sessionFrom(c.baseUrl, signedIn);
    expect(session.me.user.last_login_at).toBe(clock.now() / 1000);
    expect(session.me.csrf_token).not.toBe(admin.csrf);
  });

  it('a setup token expires after 24 hours', async () => {
    // The database has users now: make a token the way a first start would, straight in the table.
    const users = c.app.get(UsersService);
    const manager = c.app.get(Database).manager;
    await manager.query('DELETE FROM "sessions"');
    await manager.query('DELETE FROM "users"');
    const token = tokenOfUrl((await users.issueSetupUrl())!);
    clock.advance(DAY_MS);
    const late = await send('POST', '/auth/setup', {
      json: { token, email: 'late@example.com', name: 'Late', password: PASSWORD },
    });
    expect(late.status).toBe(401);
    // Put the admin back (same id, password and account) for the rest of the suite.
    await manager.query('DELETE FROM "one_time_tokens"');
    const fresh = tokenOfUrl((await users.issueSetupUrl())!);
    const again = await send('POST', '/auth/setup', {
      json: { token: fresh, email: 'ada@example.com', name: 'Ada', password: PASSWORD },
    });
    expect(again.status).toBe(204);
    admin = await sessionFrom(c.baseUrl, again);
    expect(admin.me.account_id).toBe(accountId);
  });

  it('a wrong password and an unknown email get the same 401, after the same work', async () => {
    const from = '127.0.0.2';
    const wrong = await login('ada@example.com', 'wrong password!', from);
    const unknown = await login('nobody@example.com', PASSWORD, from);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.text).toBe(wrong.text);
    expect(wrong.body).toEqual({
      status: 'error',
      error: { code: 'UNAUTHORIZED', message: 'The email or password is wrong.' },
    });
    expect(wrong.setCookie).toEqual([]);
    // Missing fields are a 422 like everywhere; a foreign Origin a 403 before anything is judged.
    const missing = await send('POST', '/auth/login', { json: { email: 'ada@example.com' }, from });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([{ field: 'password', message: 'is required' }]);
    const foreign = await login('ada@example.com', PASSWORD, from, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.message).toMatch(/Origin/);
    expect((await login('ada@example.com', PASSWORD, from, { origin: c.baseUrl })).status).toBe(204);
  });

  it('sign-in failures are throttled per client address, with Retry-After', async () => {
    const from = '127.0.0.3';
    for (let i = 0; i < BUDGET; i++) {
      expect((await login(`stranger${i}@example.com`, 'wrong password!', from)).status).toBe(401);
    }
    // Throttled: refused before the password is checked, so no scrypt work is spent on it.
    const verify = jest.spyOn(c.app.get(PasswordHasher), 'verify');
    const refused = await login('stranger9@example.com', 'wrong password!', from);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right password: a throttled address cannot tell that it guessed right.
    expect((await login('ada@example.com', PASSWORD, from)).status).toBe(429);
    expect(verify).not.toHaveBeenCalled();
    // Another address is checked as before.
    expect((await login('ada@example.com', PASSWORD, '127.0.0.4')).status).toBe(204);
    expect(verify).toHaveBeenCalledTimes(1);
    verify.mockRestore();
    // The budget comes back with time (one failure every hour / BUDGET).
    clock.advance(3_600_000 / BUDGET);
    expect((await login('ada@example.com', PASSWORD, from)).status).toBe(204);
  });

  it('sign-in failures are throttled per email, whatever address they come from', async () => {
    const victim = await userWith('viewer', 'victim@example.com');
    for (let i = 0; i < BUDGET; i++) {
      expect((await login('VICTIM@example.com', `guess number ${i}`, `127.0.1.${i + 1}`)).status).toBe(401);
    }
    const verify = jest.spyOn(c.app.get(PasswordHasher), 'verify');
    const refused = await login('victim@example.com', 'guess number 9', '127.0.1.50');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login('victim@example.com', PASSWORD, '127.0.1.51')).status).toBe(429);
    expect(verify).not.toHaveBeenCalled();
    verify.mockRestore();
    // Another email from those addresses still signs in; the victim's session keeps working.
    expect((await login('ada@example.com', PASSWORD, '127.0.1.1')).status).toBe(204);
    expect((await as(victim, 'GET', '/api/monitors')).status).toBe(200);
    clock.advance(3_600_000 / BUDGET);
    expect((await login('victim@example.com', PASSWORD, '127.0.1.52')).status).toBe(204);
  });

  it('a session ends after 7 idle days, and 30 days after sign-in however busy', async () => {
    const idle = await signIn(c.baseUrl, 'ada@example.com', PASSWORD);
    const busy = await signIn(c.baseUrl, 'ada@example.com', PASSWORD);
    clock.advance(6 * DAY_MS);
    expect((await as(busy, 'GET', '/api/me')).status).toBe(200);
    clock.advance(DAY_MS);
    const ended = await as(idle, 'GET', '/api/me');
    expect(ended.status).toBe(401);
    expect(ended.body.error.code).toBe('UNAUTHORIZED');
    expect(ended.body.error.message).toMatch(/session has ended/);
    // Used every 6 days, the other one lives until day 30 exactly.
    for (let day = 12; day < 30; day += 6) {
      clock.advance(6 * DAY_MS - (day === 12 ? DAY_MS : 0));
      expect((await as(busy, 'GET', '/api/monitors')).status).toBe(200);
    }
    const row = await c.app.get(Database).manager.findOneByOrFail(SessionEntity, { tokenHash: tokenHash(busy.token) });
    clock.set((row.createdAt + 30 * 86_400) * 1000 - 1000);
    expect((await as(busy, 'GET', '/api/me')).status).toBe(200);
    clock.advance(1000);
    expect((await as(busy, 'GET', '/api/me')).status).toBe(401);
    admin = await signIn(c.baseUrl, 'ada@example.com', PASSWORD);
  });

  it('sign-out and a password change end sessions', async () => {
    const one = await signIn(c.baseUrl, 'ada@example.com', PASSWORD);
    const out = await as(one, 'POST', '/auth/logout');
    expect(out.status).toBe(204);
    expect(out.setCookie[0]).toMatch(/^picket_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/);
    expect((await as(one, 'GET', '/api/me')).status).toBe(401);

    const user = await userWith('editor', 'changer@example.com');
    const other = await signIn(c.baseUrl, 'changer@example.com', PASSWORD);
    const { setPasswordUrl } = await c.app.get(UsersService).cliResetPassword(user.id);
    // Until the reset is used, the old password and sessions keep working.
    expect((await as(user, 'GET', '/api/me')).status).toBe(200);
    const changed = await send('POST', '/auth/set-password', {
      json: { token: tokenOfUrl(setPasswordUrl), password: 'a brand new secret' },
    });
    expect(changed.status).toBe(204);
    expect(sessionCookieOf(changed)).toBeDefined();
    for (const session of [user, other]) expect((await as(session, 'GET', '/api/me')).status).toBe(401);
    expect((await login('changer@example.com', PASSWORD, '127.0.0.5')).status).toBe(401);
    expect((await login('changer@example.com', 'a brand new secret')).status).toBe(204);
    // The token is spent.
    const reused = await send('POST', '/auth/set-password', {
      json: { token: tokenOfUrl(setPasswordUrl), password: 'yet another secret' },
    });
    expect(reused.status).toBe(401);
  });

  it('CSRF: a signed-in write needs the session token, and a foreign Origin is refused', async () => {
    const noToken = await send('POST', '/api/monitors', {
      json: MONITOR,
      headers: { cookie: `picket_session=${admin.token}` },
    });
    expect(noToken.status).toBe(403);
    expect(noToken.body.error).toEqual({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/X-CSRF-Token/),
    });
    const otherToken = await as(admin, 'POST', '/api/monitors', MONITOR, { 'x-csrf-token': 'A'.repeat(43) });
    expect(otherToken.status).toBe(403);
    const foreign = await as(admin, 'POST', '/api/monitors', MONITOR, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.message).toMatch(/Origin/);
    const nullOrigin = await as(admin, 'DELETE', '/api/monitors/0123456789abcdef01234567', undefined, {
      origin: 'null',
    });
    expect(nullOrigin.status).toBe(403);
    // Refused writes changed nothing and cost nothing from the account's budget.
    expect((await as(admin, 'GET', '/api/monitors')).body.data.pagination.total).toBe(0);

    const same = await as(admin, 'POST', '/api/monitors', MONITOR, { origin: c.baseUrl });
    expect(same.status).toBe(201);
    const noOrigin = await as(admin, 'POST', '/api/monitors', MONITOR);
    expect(noOrigin.status).toBe(201);
    // Reads need no token; a Bearer key needs none either, cookie or not.
    expect((await send('GET', '/api/monitors', { headers: { cookie: `picket_session=${admin.token}` } })).status).toBe(
      200,
    );
    const key = await as(admin, 'POST', '/api/keys', { name: 'csrf free' });
    const bearer = await send('POST', '/api/monitors', {
      json: MONITOR,
      headers: { authorization: `Bearer ${key.body.data.key as string}`, origin: 'https://elsewhere.example' },
    });
    expect(bearer.status).toBe(201);
  });

  it('roles: a viewer reads but cannot write; an editor writes but cannot manage users or keys', async () => {
    const viewer = await userWith('viewer', 'viewer@example.com');
    expect(viewer.me.permissions).toEqual(SPEC_PERMISSIONS.filter((p) => p.endsWith(':read')));
    for (const path of ['/api/monitors', '/api/contacts', '/api/incidents', '/api/status_pages', '/api/account']) {
      expect({ path, status: (await as(viewer, 'GET', path)).status }).toEqual({ path, status: 200 });
    }
    // The account's rate limit counts sessions' requests as it counts keys'.
    const first = await as(viewer, 'GET', '/api/monitors');
    const second = await as(admin, 'GET', '/api/monitors');
    expect(first.headers.get('x-ratelimit-limit')).toBe('5000');
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
    const write = await as(viewer, 'POST', '/api/monitors', MONITOR);
    expect(write.status).toBe(403);
    expect(write.body.error.message).toBe('Your role (viewer) lacks the permission monitors:write.');
    expect((await as(viewer, 'POST', '/api/contacts', { name: 'x', channel: 'email', details: {} })).status).toBe(403);

    const editor = await userWith('editor', 'editor@example.com');
    expect(editor.me.permissions).toEqual([...SPEC_PERMISSIONS]);
    expect((await as(editor, 'POST', '/api/monitors', MONITOR)).status).toBe(201);
    for (const [method, path, json] of [
      ['GET', '/api/keys', undefined],
      ['POST', '/api/keys', { name: 'nope' }],
      ['GET', '/api/users', undefined],
      ['POST', '/api/users', { email: 'x@example.com', name: 'X', role: 'admin' }],
      ['PUT', `/api/users/${editor.id}`, { role: 'admin' }],
      ['DELETE', `/api/users/${viewer.id}`, undefined],
    ] as const) {
      const res = await as(editor, method, path, json);
      expect({ method, path, status: res.status, code: res.body?.error?.code }).toEqual({
        method,
        path,
        status: 403,
        code: 'FORBIDDEN',
      });
    }
    for (const session of [viewer, editor]) expect((await as(session, 'GET', '/api/me')).status).toBe(200);
  });

  it('an API key gets 403 on /api/keys, /api/users and /api/me, and wins over a cookie sent with it', async () => {
    const { apiKey, client, accountId: other } = await c.newAccount('keyed');
    for (const [method, path] of [
      ['GET', '/api/keys'],
      ['POST', '/api/keys'],
      ['DELETE', '/api/keys/0123456789abcdef01234567'],
      ['GET', '/api/users'],
      ['POST', '/api/users'],
      ['PUT', '/api/users/0123456789abcdef01234567'],
      ['DELETE', '/api/users/0123456789abcdef01234567'],
      ['GET', '/api/me'],
    ] as const) {
      const res = record(await client.request(method, path, { json: method === 'POST' ? { name: 'k' } : undefined }));
      expect({ method, path, status: res.status, message: res.body.error.message }).toEqual({
        method,
        path,
        status: 403,
        message: 'This operation is for signed-in dashboard users; API keys cannot use it.',
      });
    }
    // Key and cookie together: the key decides (another account here), and a bad key is a 401 whatever the cookie.
    const both = await send('GET', '/api/account', {
      headers: { authorization: `Bearer ${apiKey}`, cookie: `picket_session=${admin.token}` },
    });
    expect(both.body.data.id).toBe(other);
    const badKey = await send('GET', '/api/account', {
      headers: { authorization: 'Bearer pkt_nope', cookie: `picket_session=${admin.token}` },
      from: '127.0.0.6',
    });
    expect(badKey.status).toBe(401);
    expect((await as(admin, 'GET', '/api/account')).body.data.id).toBe(accountId);
  });

  it('API keys: created by an admin, listed without the key, usable as Bearer until deleted', async () => {
    const created = await as(admin, 'POST', '/api/keys', { name: 'deploy bot', permissions: ['monitors:read'] });
    expect(created.status).toBe(201);
    const key = created.body.data.key as string;
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'deploy bot',
      permissions: ['monitors:read'],
      created_at: clock.now() / 1000,
      last_used_at: null,
      prefix: key.slice(0, 12),
      key: expect.stringMatching(/^pkt_[0-9a-f]{64}$/),
    });
    const id = created.body.data.id as string;
    const bot = new ApiClient(c.baseUrl, key);
    expect(record(await bot.get('/api/monitors')).status).toBe(200);
    expect(record(await bot.post('/api/monitors', MONITOR)).status).toBe(403);

    // The last use is recorded in the background: wait for it.
    const list = await waitFor("the key's last use", async () => {
      const res = await as(admin, 'GET', '/api/keys?per_page=100');
      return res.body.data.keys.find((k: any) => k.id === id)?.last_used_at === null ? undefined : res;
    });
    expect(list.status).toBe(200);
    const listed = list.body.data.keys.find((k: any) => k.id === id);
    expect(listed).toEqual({ ...created.body.data, key: undefined, last_used_at: clock.now() / 1000 });
    expect(Object.keys(listed)).not.toContain('key');
    expect(list.text).not.toContain(key);
    expect(list.body.data.pagination).toMatchObject({ page: 1, per_page: 100, has_prev: false });

    const defaults = await as(admin, 'POST', '/api/keys', { name: 'all' });
    expect(defaults.body.data.permissions).toEqual([...SPEC_PERMISSIONS]);
    for (const json of [
      {},
      { name: '' },
      { name: 'x', permissions: [] },
      { name: 'x', permissions: ['root'] },
      { name: 'x', extra: 1 },
    ]) {
      const res = await as(admin, 'POST', '/api/keys', json);
      expect({ json, status: res.status }).toEqual({ json, status: 422 });
    }

    const deleted = await as(admin, 'DELETE', `/api/keys/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(record(await bot.get('/api/monitors')).status).toBe(401);
    expect((await as(admin, 'DELETE', `/api/keys/${id}`)).status).toBe(404);
    expect((await as(admin, 'DELETE', '/api/keys/nope')).body.error).toEqual({
      code: 'NOT_FOUND',
      message: 'API key not found.',
    });
    // Another account's key is not this admin's to delete.
    const stranger = await c.newAccount('stranger');
    const theirs = await c.app.get(ApiKeysService).create(stranger.accountId, { name: 'theirs' });
    expect((await as(admin, 'DELETE', `/api/keys/${theirs.id}`)).status).toBe(404);
    expect(record(await new ApiClient(c.baseUrl, theirs.key).get('/api/monitors')).status).toBe(200);
  });

  it('invite → set-password → sign-in; emails are unique ignoring case', async () => {
    const created = await as(admin, 'POST', '/api/users', {
      email: 'Grace@Example.com',
      name: 'Grace',
      role: 'editor',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      email: 'Grace@Example.com',
      name: 'Grace',
      role: 'editor',
      disabled: false,
      created_at: clock.now() / 1000,
      last_login_at: null,
      set_password_url: expect.stringMatching(/^http:\/\/localhost:8080\/set-password\?token=[A-Za-z0-9_-]{43}$/),
    });
    // No password yet: no sign-in.
    expect((await login('grace@example.com', PASSWORD, '127.0.0.7')).status).toBe(401);
    const duplicate = await as(admin, 'POST', '/api/users', { email: 'GRACE@example.COM', name: 'G', role: 'viewer' });
    expect(duplicate.status).toBe(422);
    expect(duplicate.body.error.details).toEqual([{ field: 'email', message: 'is already used by another user' }]);
    const invalid = await as(admin, 'POST', '/api/users', { email: 'x', name: ' ', role: 'owner', extra: 1 });
    expect(invalid.body.error.details.map((d: any) => d.field).sort()).toEqual(['email', 'extra', 'name', 'role']);

    const short = await send('POST', '/auth/set-password', {
      json: { token: tokenOfUrl(created.body.data.set_password_url as string), password: 'ninechars' },
    });
    expect(short.status).toBe(422);
    expect(short.body.error.details).toEqual([{ field: 'password', message: 'must be at least 10 characters long' }]);
    const set = await send('POST', '/auth/set-password', {
      json: { token: tokenOfUrl(created.body.data.set_password_url as string), password: '🔑'.repeat(10) },
    });
    expect(set.status).toBe(204);
    const grace = await signIn(c.baseUrl, 'grace@example.com', '🔑'.repeat(10));
    expect(grace.me.user).toMatchObject({ email: 'Grace@Example.com', role: 'editor' });

    const list = await as(admin, 'GET', '/api/users?order=asc');
    expect(list.status).toBe(200);
    expect(list.body.data.users[0]).toMatchObject({ email: 'ada@example.com', role: 'admin' });
    expect(list.body.data.users.map((u: any) => u.email)).toContain('Grace@Example.com');
    expect(list.body.data.pagination.total).toBe(list.body.data.users.length);
    // Another account's admin sees none of them.
    const elsewhere = await c.newAccount('elsewhere');
    const otherUser = await c.app.get(UsersService).cliCreate(elsewhere.accountId, 'other@example.com', 'admin');
    const mine = await as(admin, 'GET', '/api/users?per_page=100');
    expect(mine.body.data.users.map((u: any) => u.id)).not.toContain(otherUser.user.id);
    expect((await as(admin, 'PUT', `/api/users/${otherUser.user.id}`, { name: 'x' })).status).toBe(404);
    expect((await as(admin, 'DELETE', `/api/users/${otherUser.user.id}`)).status).toBe(404);
  });

  it('the last admin cannot be demoted, disabled or deleted; disabling a user ends their sessions', async () => {
    const me = admin.me.user.id as string;
    for (const [json, field] of [
      [{ role: 'editor' }, 'role'],
      [{ disabled: true }, 'disabled'],
    ] as const) {
      const res = await as(admin, 'PUT', `/api/users/${me}`, json);
      expect(res.status).toBe(422);
      expect(res.body.error.message).toMatch(/at least one enabled admin/);
      expect(res.body.error.details[0].field).toBe(field);
    }
    const gone = await as(admin, 'DELETE', `/api/users/${me}`);
    expect(gone.status).toBe(422);
    expect(gone.body.error.code).toBe('VALIDATION_ERROR');

    // An invited admin who has not set a password yet cannot sign in: they do not count.
    const invited = await as(admin, 'POST', '/api/users', { email: 'pending@example.com', name: 'P', role: 'admin' });
    expect(invited.status).toBe(201);
    expect((await as(admin, 'PUT', `/api/users/${me}`, { role: 'viewer' })).status).toBe(422);
    expect((await as(admin, 'DELETE', `/api/users/${invited.body.data.id as string}`)).status).toBe(204);

    const second = await userWith('editor', 'second@example.com');
    const promoted = await as(admin, 'PUT', `/api/users/${second.id}`, { role: 'admin', name: 'Second' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.data).toMatchObject({ role: 'admin', name: 'Second', disabled: false });
    // The role is read at each request: the promotion holds at once.
    expect((await as(second, 'GET', '/api/users')).status).toBe(200);
    expect((await as(admin, 'PUT', `/api/users/${me}`, { role: 'editor' })).status).toBe(200);
    expect((await as(admin, 'GET', '/api/users')).status).toBe(403);
    // Now `second` is the last admin.
    expect((await as(second, 'PUT', `/api/users/${second.id}`, { disabled: true })).status).toBe(422);
    expect((await as(second, 'PUT', `/api/users/${me}`, { role: 'admin' })).status).toBe(200);

    const disabled = await as(admin, 'PUT', `/api/users/${second.id}`, { disabled: true });
    expect(disabled.body.data.disabled).toBe(true);
    expect((await as(second, 'GET', '/api/me')).status).toBe(401);
    expect((await login('second@example.com', PASSWORD, '127.0.0.8')).status).toBe(401);
    expect((await as(admin, 'PUT', '/api/users/0123456789abcdef01234567', { name: 'x' })).status).toBe(404);
    expect((await as(admin, 'PUT', `/api/users/${second.id}`, { email: 'new@example.com' })).status).toBe(422);
    expect((await as(admin, 'DELETE', `/api/users/${second.id}`)).status).toBe(204);
    expect((await as(admin, 'DELETE', `/api/users/${second.id}`)).body.error).toEqual({
      code: 'NOT_FOUND',
      message: 'User not found.',
    });
  });

  it('hostile bodies at every new write: a 4xx in the envelope (or a success), never a 5xx', async () => {
    const target = await userWith('viewer', 'target@example.com');
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          email: fc.oneof(fc.string(), fc.emailAddress(), fc.jsonValue()),
          password: fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue()),
          token: fc.oneof(fc.string(), fc.jsonValue()),
          name: fc.oneof(fc.string(), fc.jsonValue()),
          role: fc.oneof(fc.constantFrom('admin', 'editor', 'viewer', 'root'), fc.jsonValue()),
          disabled: fc.oneof(fc.boolean(), fc.jsonValue()),
          permissions: fc.oneof(fc.array(fc.constantFrom(...SPEC_PERMISSIONS, 'root')), fc.jsonValue()),
        },
        { requiredKeys: [] },
      ),
    );
    const writes: [string, string, number[]][] = [
      ['/auth/login', 'POST', [401, 422, 429]],
      ['/auth/setup', 'POST', [401, 422]],
      ['/auth/set-password', 'POST', [401, 422]],
      ['/api/users', 'POST', [201, 422]],
      [`/api/users/${target.id}`, 'PUT', [200, 422]],
      ['/api/keys', 'POST', [201, 422]],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), body, async ([path, method, allowed], json) => {
        const res = path.startsWith('/auth/')
          ? await send(method, path, { json, from: '127.0.0.9' })
          : await as(admin, method, path, json);
        const status = allowed.includes(res.status) ? 'as allowed' : res.status;
        expect({ path, json, status }).toEqual({ path, json, status: 'as allowed' });
        if (res.status >= 400) expect(res.body).toMatchObject({ status: 'error', error: { code: expect.any(String) } });
      }),
      { numRuns: 60, seed: 22 },
    );
    // The admin is still the admin, and the account still has one.
    expect((await as(admin, 'GET', '/api/me')).body.data.user.role).toBe('admin');
  }, 180_000);

  it("the overview's page has the browser start reading the monitor summary at once, for a valid session only", async () => {
    const preload = '<link rel="preload" href="/api/monitor_summary" as="fetch" crossorigin="anonymous">';
    const session = await signIn(c.baseUrl, 'ada@example.com', PASSWORD);
    for (const path of ['/', '/monitors']) {
      const page = await as(session, 'GET', path);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`${preload}</head>`);
      expect(page.headers.get('vary')).toBe('Cookie');
    }
    // Other pages, no session, a session that is not one, a session ended: nothing preloaded
    // (a refused answer held by the browser would be given to the app's first read after sign-in).
    expect((await as(session, 'GET', '/contacts')).text).not.toContain('rel="preload"');
    expect((await send('GET', '/')).text).not.toContain('rel="preload"');
    const forged = await send('GET', '/', { headers: { cookie: `picket_session=${'x'.repeat(43)}` } });
    expect(forged.status).toBe(200);
    expect(forged.text).not.toContain('rel="preload"');
    expect((await as(session, 'POST', '/auth/logout')).status).toBe(204);
    expect((await as(session, 'GET', '/monitors')).text).not.toContain('rel="preload"');
  });

  it('no answer ever carried a password hash, a session token hash or a contact secret', async () => {
    const secret = 'tok_this_is_secret';
    const contact = await as(admin, 'POST', '/api/contacts', {
      name: 'Incidents',
      channel: 'incidentmgmt',
      details: { webhook_url: 'https://incidents.example.com/hook', bearer_token: secret },
    });
    expect(contact.status).toBe(201);
    await as(admin, 'GET', '/api/contacts');
    await as(admin, 'GET', '/api/users');
    await as(admin, 'GET', '/api/me');
    const manager = c.app.get(Database).manager;
    const hashes = [
      ...(await manager.find(UserEntity)).flatMap((u) => (u.passwordHash ? [u.passwordHash] : [])),
      ...(await manager.find(SessionEntity)).map((s) => s.tokenHash),
    ];
    expect(hashes.length).toBeGreaterThan(3);
    const everything = seen.join('\n');
    expect(seen.length).toBeGreaterThan(100);
    for (const hash of hashes) expect(everything).not.toContain(hash);
    expect(everything).not.toContain('scrypt$');
    expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/password_hash|token_hash/);
  });
});
