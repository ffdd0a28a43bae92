import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DataSource } from 'typeorm';
import { AgentsStore } from '../../apps/coordinator/src/agents/agents.store.js';
import { AccountsRepository } from '../../apps/coordinator/src/auth/accounts.repository.js';
import { ApiKeyEntity } from '../../apps/coordinator/src/auth/api-key.entity.js';
import { hashApiKey } from '../../apps/coordinator/src/auth/api-key.js';
import { DATA_SOURCE } from '../../apps/coordinator/src/database/database.js';
import { freePort } from '../support/faults.js';
import { ApiClient } from '../support/api-client.js';
import { CapturingLogger, startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, withTestSecretsKey, type TestDatabase } from '../support/databases.js';
import { sessionFrom, signIn, tokenOfUrl } from '../support/sessions.js';
import { runCli, type CliResult } from '../support/processes.js';
import { SPEC_PERMISSIONS } from '../support/spec-lists.js';

/**
 * The admin CLI as operators run it (what `npm run -s cli -- …` runs, in a child process, configured by
 * DATABASE_URL), checked against a real coordinator on the same database; and first-start
 * bootstrap of the `default` account (docs/decisions/0003-auth-permissions-rate-limit.md).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** Generous: a run may have to rebuild dist/ first when sources changed. */
const CLI_TIMEOUT = 180_000;

const ACCOUNT_LINE = /^\{"account_id":"([0-9a-f]{24})","key_id":"([0-9a-f]{24})","api_key":"(pkt_[0-9a-f]{64})"\}\n$/;
const KEY_LINE = /^\{"key_id":"([0-9a-f]{24})","api_key":"(pkt_[0-9a-f]{64})"\}\n$/;
const CONTACT_LINE = /^\{"contact_id":"([0-9a-f]{24})"\}\n$/;
const UNKNOWN_ID = 'ffffffffffffffffffffffff';
const ALL_PERMISSIONS: string[] = [...SPEC_PERMISSIONS];

/** The environment a child gets: the test's own, minus anything that could pick a database. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key === 'DATABASE_URL' || key === 'BOOTSTRAP_API_KEY' || key === 'PORT' || key === 'HOST') delete env[key];
  }
  return withTestSecretsKey({ ...env, ...extra });
}

/** The CLI (what `npm run -s cli -- <args>` runs) with DATABASE_URL set. */
function cli(databaseUrl: string, args: string[]): Promise<CliResult> {
  return runCli(args, childEnv({ DATABASE_URL: databaseUrl }));
}

/** Runs the CLI and expects success with one line of JSON matching `line`; returns its groups. */
async function cliOk(databaseUrl: string, args: string[], line: RegExp): Promise<[string, string, ...string[]]> {
  const result = await cli(databaseUrl, args);
  expect({ args, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
    args,
    code: 0,
    stdout: expect.stringMatching(line),
    stderr: '',
  });
  return line.exec(result.stdout)!.slice(1) as [string, string, ...string[]];
}

/** A refused call: the exit code, nothing on stdout, a message (no stack trace) on stderr. */
function expectRefused(what: string, result: CliResult, code: number, word: string): void {
  expect({ what, code: result.code, stdout: result.stdout }).toEqual({ what, code, stdout: '' });
  expect({ what, stderr: result.stderr }).toEqual({ what, stderr: expect.stringContaining(word) });
  expect({ what, stack: /\n\s+at /.test(result.stderr) }).toEqual({ what, stack: false });
}

function json(result: CliResult): unknown {
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.slice(0, -1)).not.toContain('\n');
  return JSON.parse(result.stdout);
}

const PUSH_SUBSCRIPTION = {
  endpoint: `https://fcm.googleapis.com/fcm/send/${randomBytes(16).toString('hex')}`,
  expirationTime: null,
  keys: { p256dh: `BN${randomBytes(63).toString('base64url')}`, auth: randomBytes(16).toString('base64url') },
};

beforeAll(async () => {
  // Builds dist/ if needed, once, so individual tests do not pay for it; through npm, as the
  // README says (the tests then run the same entry point without npm: runCli).
  const warm = await runCli(['help'], childEnv({ DATABASE_URL: 'sqlite::memory:' }), { npm: true });
  expect(warm.code).toBe(0);
  expect(warm.stdout).toBe('');
  expect(warm.stderr).toContain('accounts create --name <name>');
}, CLI_TIMEOUT);

describe.each(testDatabases())('admin CLI on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url);
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const countAccounts = () => c.app.get(AccountsRepository).countAccounts();

  it(
    'accounts create prints one line of JSON and the key works at once on the running server',
    async () => {
      const before = await countAccounts();
      const result = await cli(db.url, ['accounts', 'create', '--name', 'Acme Ops']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(ACCOUNT_LINE);
      expect(result.stderr).toBe('');
      expect(Object.keys(json(result) as object)).toEqual(['account_id', 'key_id', 'api_key']);
      const [accountId, keyId, apiKey] = ACCOUNT_LINE.exec(result.stdout)!.slice(1) as [string, string, string];
      expect(await countAccounts()).toBe(before + 1);
      const stored = await c.app.get(AccountsRepository).findKeyByHash(hashApiKey(apiKey));
      expect(stored?.accountId).toBe(accountId);
      expect(stored?.id).toBe(keyId);
      expect(stored?.permissions.split(',').sort()).toEqual([...ALL_PERMISSIONS].sort());

      const client = c.client(apiKey);
      const account = await client.get('/api/account');
      expect(account.status).toBe(200);
      expect(account.body.data).toMatchObject({ id: accountId, name: 'Acme Ops', subscription_status: 'active' });
      // The first key holds every permission.
      expect((await client.get('/api/monitors')).status).toBe(200);
      expect((await client.get('/api/contacts')).status).toBe(200);
      expect((await client.post('/api/contacts', {})).status).toBe(422);
      expect((await client.post('/api/monitors', {})).status).toBe(422);
    },
    CLI_TIMEOUT,
  );

  it(
    'keys create grants exactly the listed permissions, or all of them without a list',
    async () => {
      const { accountId } = await c.newAccount('keys');
      const [[narrowId, narrowKey], [fullId, fullKey]] = await Promise.all([
        cliOk(
          db.url,
          ['keys', 'create', '--account', accountId, '--permissions', 'monitors:read,contacts:read'],
          KEY_LINE,
        ),
        cliOk(db.url, ['keys', 'create', '--account', accountId], KEY_LINE),
      ]);
      expect(narrowId).not.toBe(fullId);
      const keys = c.app.get(AccountsRepository);
      expect((await keys.findKey(narrowId))?.permissions.split(',').sort()).toEqual(['contacts:read', 'monitors:read']);
      expect((await keys.findKey(fullId))?.permissions.split(',').sort()).toEqual([...ALL_PERMISSIONS].sort());

      const narrow = c.client(narrowKey);
      expect((await narrow.get('/api/monitors')).status).toBe(200);
      expect((await narrow.get('/api/contacts')).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', '/api/contacts', { name: 'x', channel: 'email', details: { email: 'a@example.com' } }],
        ['POST', '/api/monitors', {}],
        ['PUT', `/api/contacts/${UNKNOWN_ID}`, { name: 'x' }],
        ['DELETE', `/api/monitors/${UNKNOWN_ID}`, undefined],
        ['GET', '/api/account', undefined],
      ] as const) {
        const response = await narrow.request(method, path, body === undefined ? {} : { json: body });
        expect({ method, path, status: response.status, code: response.body?.error?.code }).toEqual({
          method,
          path,
          status: 403,
          code: 'FORBIDDEN',
        });
      }
      const contacts = await narrow.get('/api/contacts');
      expect(contacts.body.pagination.total).toBe(0);

      const full = c.client(fullKey);
      const account = await full.get('/api/account');
      expect(account.status).toBe(200);
      expect(account.body.data.id).toBe(accountId);
      expect((await full.post('/api/contacts', {})).status).toBe(422);
    },
    CLI_TIMEOUT,
  );

  it(
    'keys revoke answers {"revoked":true} and the running server refuses the key from then on',
    async () => {
      const { accountId, client: other } = await c.newAccount('revoke');
      const { keyId, client } = await c.newKey(accountId, ['contacts:read']);
      expect((await client.get('/api/contacts')).status).toBe(200);

      const result = await cli(db.url, ['keys', 'revoke', '--key', keyId]);
      expect(result).toEqual({ code: 0, stdout: '{"revoked":true}\n', stderr: '' });

      const refused = await client.get('/api/contacts');
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('UNAUTHORIZED');
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      // The account's other key is untouched.
      expect((await other.get('/api/contacts')).status).toBe(200);
    },
    CLI_TIMEOUT,
  );

  it(
    'accounts list and keys list show every account and key (never the key itself), so a key can be found and revoked',
    async () => {
      const created = await cliOk(db.url, ['accounts', 'create', '--name', 'Listed Ltd'], ACCOUNT_LINE);
      const [accountId, firstKeyId] = created;
      const firstKey = created[2]!;
      const [botKeyId, botKey] = await cliOk(
        db.url,
        [
          'keys',
          'create',
          '--account',
          accountId,
          '--name',
          'deploy bot',
          '--permissions',
          'contacts:read,monitors:read',
        ],
        KEY_LINE,
      );
      // Used once: last_used_at is recorded (coarsely).
      expect((await c.client(botKey).get('/api/monitors')).status).toBe(200);
      const { accountId: otherAccountId } = await c.newAccount('someone else');

      const accounts = await cli(db.url, ['accounts', 'list']);
      expect({ code: accounts.code, stderr: accounts.stderr }).toEqual({ code: 0, stderr: '' });
      const listed = (json(accounts) as { accounts: Record<string, unknown>[] }).accounts;
      const mine = listed.find((a) => a.account_id === accountId);
      expect(mine).toEqual({
        account_id: accountId,
        name: 'Listed Ltd',
        subscription_status: 'active',
        created_at: expect.any(Number),
      });
      expect(listed.map((a) => a.account_id)).toContain(otherAccountId);

      const keysOf = async (id: string) => {
        const result = await cli(db.url, ['keys', 'list', '--account', id]);
        expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
        for (const secret of [firstKey, botKey]) expect(result.stdout).not.toContain(secret.slice(12));
        return (json(result) as { keys: Record<string, unknown>[] }).keys;
      };
      // Oldest first; the two CLI runs may fall in the same second, so compare without the order.
      const keys = await keysOf(accountId);
      expect(keys).toHaveLength(2);
      expect(keys).toEqual(
        expect.arrayContaining([
          {
            key_id: firstKeyId,
            name: expect.any(String),
            prefix: firstKey.slice(0, 12),
            permissions: ALL_PERMISSIONS,
            created_at: expect.any(Number),
            last_used_at: null,
            revoked: false,
          },
          {
            key_id: botKeyId,
            name: 'deploy bot',
            prefix: botKey.slice(0, 12),
            permissions: ['monitors:read', 'contacts:read'],
            created_at: expect.any(Number),
            last_used_at: expect.any(Number),
            revoked: false,
          },
        ]),
      );

      // The listing is how an operator finds the key to revoke.
      const bot = keys.find((k) => k.name === 'deploy bot')!;
      const revoked = await cli(db.url, ['keys', 'revoke', '--key', String(bot.key_id)]);
      expect(revoked).toEqual({ code: 0, stdout: '{"revoked":true}\n', stderr: '' });
      const after = new Map((await keysOf(accountId)).map((k) => [k.key_id, k.revoked]));
      expect([after.get(firstKeyId), after.get(botKeyId)]).toEqual([false, true]);
      expect((await c.client(botKey).get('/api/monitors')).status).toBe(401);
      expect((await c.client(firstKey).get('/api/monitors')).status).toBe(200);

      expectRefused(
        'keys of an unknown account',
        await cli(db.url, ['keys', 'list', '--account', UNKNOWN_ID]),
        1,
        UNKNOWN_ID,
      );
      expectRefused('keys list without --account', await cli(db.url, ['keys', 'list']), 2, '--account');
    },
    CLI_TIMEOUT,
  );

  it(
    'accounts set-subscription inactive makes resume answer 402, active lets it through',
    async () => {
      const { accountId, client } = await c.newAccount('billing');
      const created = await client.post('/api/monitors', {
        name: 'paused site',
        active: false,
        settings: { https: { url: 'https://example.com' } },
        regions: ['us-east-1'],
      });
      expect(created.status).toBe(201);
      const monitorId: string = created.body.data.id;

      const off = await cli(db.url, ['accounts', 'set-subscription', '--account', accountId, '--status', 'inactive']);
      expect(off).toEqual({
        code: 0,
        stdout: `{"account_id":"${accountId}","subscription_status":"inactive"}\n`,
        stderr: '',
      });
      expect((await client.get('/api/account')).body.data.subscription_status).toBe('inactive');
      const refused = await client.post(`/api/monitors/${monitorId}/resume`);
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('SUBSCRIPTION_NOT_ACTIVE');
      expect((await client.get(`/api/monitors/${monitorId}`)).body.data.active).toBe(false);

      const on = await cli(db.url, ['accounts', 'set-subscription', '--account', accountId, '--status', 'active']);
      expect(on).toEqual({
        code: 0,
        stdout: `{"account_id":"${accountId}","subscription_status":"active"}\n`,
        stderr: '',
      });
      const resumed = await client.post(`/api/monitors/${monitorId}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body.data.active).toBe(true);
    },
    CLI_TIMEOUT,
  );

  it(
    'push register creates a read-only push contact the API shows redacted',
    async () => {
      const { accountId, client } = await c.newAccount('push');
      const [contactId] = await cliOk(
        db.url,
        [
          'push',
          'register',
          '--account',
          accountId,
          '--name',
          'Firefox on laptop',
          '--subscription',
          JSON.stringify(PUSH_SUBSCRIPTION),
        ],
        CONTACT_LINE,
      );

      const got = await client.get(`/api/contacts/${contactId}`);
      expect(got.status).toBe(200);
      expect(got.body.contact).toMatchObject({
        id: contactId,
        name: 'Firefox on laptop',
        channel: 'push',
        active: true,
        down_alerts_only: false,
        error: null,
      });
      expect(got.body.contact.details.endpoint).toBe('[REDACTED]');
      expect(got.body.contact.details.keys).toBe('[REDACTED]');
      for (const secret of [PUSH_SUBSCRIPTION.endpoint, PUSH_SUBSCRIPTION.keys.p256dh, PUSH_SUBSCRIPTION.keys.auth]) {
        expect(got.text).not.toContain(secret);
      }
      const listed = await client.get('/api/contacts?channel=push');
      expect(listed.body.contacts.map((x: { id: string }) => x.id)).toEqual([contactId]);
      const put = await client.put(`/api/contacts/${contactId}`, { name: 'renamed' });
      expect(put.status).toBe(403);
      expect(put.body.error.code).toBe('READONLY_CHANNEL');
      const del = await client.delete(`/api/contacts/${contactId}`);
      expect(del.status).toBe(403);
      expect(del.body.error.code).toBe('READONLY_CHANNEL');
    },
    CLI_TIMEOUT,
  );

  it(
    'refuses what the database does not hold: exit 1, a message on stderr, nothing on stdout, nothing changed',
    async () => {
      const { accountId, client } = await c.newAccount('errors');
      const { keyId } = await c.newKey(accountId, ['contacts:read']);
      const accountsBefore = await countAccounts();
      const cases: [string, string[]][] = [
        ['unknown account (keys)', ['keys', 'create', '--account', UNKNOWN_ID]],
        [
          'unknown account (subscription)',
          ['accounts', 'set-subscription', '--account', UNKNOWN_ID, '--status', 'inactive'],
        ],
        [
          'unknown account (push)',
          [
            'push',
            'register',
            '--account',
            UNKNOWN_ID,
            '--name',
            'x',
            '--subscription',
            JSON.stringify(PUSH_SUBSCRIPTION),
          ],
        ],
        ['unknown key', ['keys', 'revoke', '--key', UNKNOWN_ID]],
      ];
      const results = await Promise.all(cases.map(([, args]) => cli(db.url, args)));
      for (const [i, [what]] of cases.entries()) expectRefused(what, results[i]!, 1, UNKNOWN_ID);

      expect(await countAccounts()).toBe(accountsBefore);
      expect((await client.get('/api/account')).body.data.subscription_status).toBe('active');
      const key = await c.app.get(AccountsRepository).findKey(keyId);
      expect(key?.revokedAt).toBeNull();
    },
    CLI_TIMEOUT,
  );

  it(
    'agents list shows who serves which region and when each was last seen',
    async () => {
      const store = c.app.get(AgentsStore);
      const now = Date.now();
      const heartbeat = (agent_id: string, regions: string[]) => ({
        agent_id,
        version: '0.1.0',
        regions: regions as never,
        ipv4: ['198.51.100.7'],
        ipv6: [],
        in_flight: 2,
        max_in_flight: 500,
        icmp: true,
        sent_at: now,
      });
      await store.record(heartbeat('agent-eu', ['eu-west-1', 'eu-central-1']), now - 5_000);
      await store.record(heartbeat('agent-old', ['eu-west-1']), now - 3_600_000);
      const result = await cli(db.url, ['agents', 'list']);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^\{"agents":\[.*\]\}\n$/); // one line of JSON
      const listing = json(result) as {
        agents: { agent_id: string; regions: string[]; status: string; last_seen_at: number; max_in_flight: number }[];
        regions: { id: string; agents: number; online: number }[];
      };
      const agents = listing.agents.filter((a) => a.agent_id.startsWith('agent-'));
      expect(agents.map((a) => [a.agent_id, a.status, a.last_seen_at, a.max_in_flight])).toEqual([
        ['agent-eu', 'online', Math.floor((now - 5_000) / 1000), 500],
        ['agent-old', 'stale', Math.floor((now - 3_600_000) / 1000), 500],
      ]);
      expect(listing.regions.find((r) => r.id === 'eu-west-1')).toEqual({ id: 'eu-west-1', agents: 2, online: 1 });
      expect(listing.regions.find((r) => r.id === 'eu-central-1')).toEqual({
        id: 'eu-central-1',
        agents: 1,
        online: 1,
      });
      expect(listing.regions).toHaveLength(15);
    },
    CLI_TIMEOUT,
  );

  it(
    'users create, list, reset-password and disable: one-time set-password URLs the server takes',
    async () => {
      const { accountId } = await c.newAccount('people');
      const created = await cli(db.url, ['users', 'create', '--account', accountId, '--email', 'Ops@Example.com']);
      expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
      const user = json(created) as Record<string, unknown>;
      expect(user).toEqual({
        user_id: expect.stringMatching(/^[0-9a-f]{24}$/),
        account_id: accountId,
        email: 'Ops@Example.com',
        name: 'Ops',
        role: 'admin',
        disabled: false,
        created_at: expect.any(Number),
        last_login_at: null,
        set_password_url: expect.stringMatching(/^http:\/\/localhost:8080\/set-password\?token=[A-Za-z0-9_-]{43}$/),
      });
      const userId = user.user_id as string;
      const setPassword = async (url: unknown, password: string) =>
        c.client().post('/auth/set-password', { token: tokenOfUrl(url as string), password });
      const first = await setPassword(user.set_password_url, 'first password');
      expect(first.status).toBe(204);
      const session = await sessionFrom(c.baseUrl, first);
      expect(session.me).toMatchObject({ account_id: accountId, user: { id: userId, role: 'admin' } });

      const viewer = json(
        await cli(db.url, [
          'users',
          'create',
          '--account',
          accountId,
          '--email',
          'look@example.com',
          '--role',
          'viewer',
        ]),
      ) as Record<string, unknown>;
      expect(viewer.role).toBe('viewer');
      const listed = json(await cli(db.url, ['users', 'list', '--account', accountId])) as { users: unknown[] };
      expect(listed.users).toEqual([
        expect.objectContaining({ user_id: userId, email: 'Ops@Example.com', role: 'admin', disabled: false }),
        expect.objectContaining({ user_id: viewer.user_id, role: 'viewer' }),
      ]);
      expect(JSON.stringify(listed)).not.toMatch(/scrypt|password/);

      const reset = json(await cli(db.url, ['users', 'reset-password', '--user', userId])) as Record<string, unknown>;
      expect(reset).toEqual({ user_id: userId, set_password_url: expect.stringMatching(/\/set-password\?token=/) });
      expect((await setPassword(reset.set_password_url, 'second password')).status).toBe(204);
      // A password change ends the sessions the user had.
      expect((await session.client.get('/api/me')).status).toBe(401);
      const again = await signIn(c.baseUrl, 'ops@example.com', 'second password');

      expect(json(await cli(db.url, ['users', 'disable', '--user', userId]))).toEqual({
        user_id: userId,
        disabled: true,
      });
      expect((await again.client.get('/api/me')).status).toBe(401);
      expect(
        (await c.client().post('/auth/login', { email: 'ops@example.com', password: 'second password' })).status,
      ).toBe(401);

      expectRefused(
        'a taken email',
        await cli(db.url, ['users', 'create', '--account', accountId, '--email', 'OPS@example.com']),
        1,
        'already exists',
      );
      expectRefused(
        'an unknown account',
        await cli(db.url, ['users', 'list', '--account', UNKNOWN_ID]),
        1,
        'no account',
      );
      expectRefused('an unknown user', await cli(db.url, ['users', 'disable', '--user', UNKNOWN_ID]), 1, 'no user');
      expectRefused('an unknown user', await cli(db.url, ['users', 'reset-password', '--user', 'nope']), 1, 'no user');
      expectRefused(
        'a bad role',
        await cli(db.url, ['users', 'create', '--account', accountId, '--email', 'a@example.com', '--role', 'owner']),
        2,
        '--role',
      );
      expectRefused(
        'a bad email',
        await cli(db.url, ['users', 'create', '--account', accountId, '--email', 'nope']),
        2,
        '--email',
      );
    },
    CLI_TIMEOUT,
  );

  it(
    'works while no server runs, and the next server start honours what it did',
    async () => {
      const { accountId, apiKey: fullKey } = await c.newAccount('offline');
      const revokedKey = await c.newKey(accountId, ['contacts:read']);
      expect((await revokedKey.client.get('/api/contacts')).status).toBe(200);
      await c.close();

      const [[newAccountId, , newAccountKey], [, narrowKey], revoked, inactive] = await Promise.all([
        cliOk(db.url, ['accounts', 'create', '--name', 'made offline'], ACCOUNT_LINE),
        cliOk(db.url, ['keys', 'create', '--account', accountId, '--permissions', 'contacts:read'], KEY_LINE),
        cli(db.url, ['keys', 'revoke', '--key', revokedKey.keyId]),
        cli(db.url, ['accounts', 'set-subscription', '--account', accountId, '--status', 'inactive']),
      ]);
      expect(revoked).toEqual({ code: 0, stdout: '{"revoked":true}\n', stderr: '' });
      expect(inactive.code).toBe(0);

      c = await startCoordinator(db.url);
      const made = await c.client(newAccountKey).get('/api/account');
      expect(made.status).toBe(200);
      expect(made.body.data).toMatchObject({ id: newAccountId, name: 'made offline' });
      const narrow = c.client(narrowKey);
      expect((await narrow.get('/api/contacts')).status).toBe(200);
      expect((await narrow.get('/api/monitors')).status).toBe(403);
      expect((await c.client(revokedKey.client.apiKey).get('/api/contacts')).status).toBe(401);
      expect((await c.client(fullKey).get('/api/account')).body.data.subscription_status).toBe('inactive');
    },
    CLI_TIMEOUT,
  );
});

describe('admin CLI usage mistakes', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url);
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  it(
    'bad flags, unknown permissions, bad statuses and missing flags exit 2 with a message and change nothing',
    async () => {
      const { accountId, client } = await c.newAccount('usage');
      const accountsBefore = await c.app.get(AccountsRepository).countAccounts();
      const cases: [string, string[], string][] = [
        ['bad flag', ['accounts', 'create', '--nmae', 'typo'], 'nmae'],
        [
          'unknown permission',
          ['keys', 'create', '--account', accountId, '--permissions', 'monitors:read,monitors:delete'],
          'monitors:delete',
        ],
        ['bad status', ['accounts', 'set-subscription', '--account', accountId, '--status', 'paused'], '--status'],
        ['missing flag', ['accounts', 'create'], '--name'],
        [
          'subscription over plain http',
          [
            'push',
            'register',
            '--account',
            accountId,
            '--name',
            'x',
            '--subscription',
            JSON.stringify({ ...PUSH_SUBSCRIPTION, endpoint: 'http://push.example.com/x' }),
          ],
          'endpoint',
        ],
      ];
      const [results, badUrl] = await Promise.all([
        Promise.all(cases.map(([, args]) => cli(db.url, args))),
        cli('mysql://db.example.com/picket', ['accounts', 'create', '--name', 'x']),
      ]);
      for (const [i, [what, , word]] of cases.entries()) expectRefused(what, results[i]!, 2, word);
      expectRefused('DATABASE_URL not supported', badUrl, 1, 'DATABASE_URL');

      expect(await c.app.get(AccountsRepository).countAccounts()).toBe(accountsBefore);
      expect((await client.get('/api/account')).body.data.subscription_status).toBe('active');
      expect((await client.get('/api/contacts')).body.pagination.total).toBe(0);
      const dataSource = c.app.get<symbol, DataSource>(DATA_SOURCE);
      expect(await dataSource.manager.countBy(ApiKeyEntity, { accountId })).toBe(1);
    },
    CLI_TIMEOUT,
  );
});

describe.each(testDatabases())('first start on $name', (kind) => {
  const created: TestDatabase[] = [];
  const fresh = async () => {
    const db = await kind.create();
    created.push(db);
    return db;
  };

  afterAll(async () => {
    for (const db of created) await db.drop();
  });

  it(
    'npm start on an empty database creates the account "default" and prints its key once',
    async () => {
      const db = await fresh();
      const port = await freePort();
      let keyId: string | undefined;
      let apiKey: string | undefined;
      const child = spawn(NPM, ['start', '-s'], {
        cwd: ROOT,
        env: childEnv({ DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
      try {
        const deadline = Date.now() + 120_000;
        while (!/listening on/.test(output)) {
          if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        const keys = output.match(/pkt_[0-9a-f]{64}/g) ?? [];
        expect(keys.length).toBe(1);
        const accountId = /account id: ([0-9a-f]{24})/.exec(output)?.[1];
        expect(accountId).toMatch(/^[0-9a-f]{24}$/);
        // The key's id is printed too: what `keys list` shows and `keys revoke` takes.
        keyId = /key id: ([0-9a-f]{24})/.exec(output)?.[1];
        expect(keyId).toMatch(/^[0-9a-f]{24}$/);
        apiKey = keys[0];
        const client = new ApiClient(`http://127.0.0.1:${port}`, keys[0]);
        const account = await client.get('/api/account');
        expect(account.status).toBe(200);
        expect(account.body.data).toMatchObject({ id: accountId, name: 'default', subscription_status: 'active' });
        expect((await client.get('/api/contacts')).status).toBe(200);
        expect((await client.post('/api/monitors', {})).status).toBe(422);
        // The dashboard's setup URL, on the listen address, makes the first admin of "default".
        const setupUrls = output.match(/http:\/\/\S+\/setup\?token=\S+/g) ?? [];
        expect(setupUrls).toEqual([
          expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:${port}/setup\\?token=`)),
        ]);
        const setup = await new ApiClient(`http://127.0.0.1:${port}`).post('/auth/setup', {
          token: tokenOfUrl(setupUrls[0]!),
          email: 'first@example.com',
          name: 'First',
          password: 'first admin password',
        });
        expect(setup.status).toBe(204);
        const admin = await sessionFrom(`http://127.0.0.1:${port}`, setup);
        expect(admin.me.account_id).toBe(accountId);
      } finally {
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
        await exited;
      }

      // A second start on the same database creates no second account.
      const again = await startCoordinator(db.url);
      try {
        expect(await again.app.get(AccountsRepository).countAccounts()).toBe(1);
        expect((await again.app.get(AccountsRepository).findKeyByHash(hashApiKey(apiKey!)))?.id).toBe(keyId);
      } finally {
        await again.close();
      }
    },
    CLI_TIMEOUT,
  );

  it('BOOTSTRAP_API_KEY becomes the key of "default", once, and later starts add no account', async () => {
    const db = await fresh();
    const key = `pkt_${randomBytes(32).toString('hex')}`;
    const logger = new CapturingLogger();
    const first = await startCoordinator(db.url, { env: { BOOTSTRAP_API_KEY: key }, logger });
    let accountId: string;
    try {
      expect(await first.app.get(AccountsRepository).countAccounts()).toBe(1);
      // The log names the key by its id (never the key itself), for `keys list` and `keys revoke`.
      const keyId = (await first.app.get(AccountsRepository).findKeyByHash(hashApiKey(key)))?.id;
      expect(logger.lines.filter((line) => line.includes(`key id ${String(keyId)}`))).toHaveLength(1);
      expect(logger.lines.join('\n')).not.toContain(key);
      const account = await first.client(key).get('/api/account');
      expect(account.status).toBe(200);
      expect(account.body.data).toMatchObject({ name: 'default', subscription_status: 'active' });
      accountId = account.body.data.id;
      expect((await first.client(key).get('/api/monitors')).status).toBe(200);
    } finally {
      await first.close();
    }

    const otherKey = `pkt_${randomBytes(32).toString('hex')}`;
    const envs: Record<string, string>[] = [{ BOOTSTRAP_API_KEY: key }, { BOOTSTRAP_API_KEY: otherKey }, {}];
    for (const env of envs) {
      const next = await startCoordinator(db.url, { env });
      try {
        expect(await next.app.get(AccountsRepository).countAccounts()).toBe(1);
        const account = await next.client(key).get('/api/account');
        expect(account.status).toBe(200);
        expect(account.body.data.id).toBe(accountId);
        // A different preset key on a database that is not empty is not registered.
        expect((await next.client(otherKey).get('/api/account')).status).toBe(401);
      } finally {
        await next.close();
      }
    }
  });

  it('two servers starting together on an empty database create one "default" account', async () => {
    const db = await fresh();
    const servers = await Promise.all([startCoordinator(db.url), startCoordinator(db.url)]);
    try {
      for (const server of servers) expect(await server.app.get(AccountsRepository).countAccounts()).toBe(1);
    } finally {
      for (const server of servers) await server.close();
    }
  });

  it('an empty database started without BOOTSTRAP_API_KEY gets one "default" account with one full key', async () => {
    const db = await fresh();
    const first = await startCoordinator(db.url);
    try {
      expect(await first.app.get(AccountsRepository).countAccounts()).toBe(1);
      const rows: { name: string; permissions: string; revoked_at: unknown }[] = await first.app
        .get<symbol, DataSource>(DATA_SOURCE)
        .query('SELECT a.name, k.permissions, k.revoked_at FROM accounts a JOIN api_keys k ON k.account_id = a.id');
      expect(rows.length).toBe(1);
      expect(rows[0]!.name).toBe('default');
      expect(rows[0]!.permissions.split(',').sort()).toEqual([...ALL_PERMISSIONS].sort());
      expect(rows[0]!.revoked_at).toBeNull();
    } finally {
      await first.close();
    }
  });
});
