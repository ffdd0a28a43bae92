import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import type { DataSource } from 'typeorm';
import { PERMISSIONS } from '../../apps/coordinator/src/auth/permissions.js';
import { openDataSource, parseDatabaseUrl } from '../../apps/coordinator/src/database/data-source.js';
import { migrate } from '../../apps/coordinator/src/database/migrate.js';
import { ENTITIES } from '../../apps/coordinator/src/entities.js';
import { ContactEntity } from '../../apps/coordinator/src/contacts/contact.entity.js';
import { DATA_SOURCE } from '../../apps/coordinator/src/database/database.js';
import { RateLimitStore } from '../../apps/coordinator/src/rate-limit/rate-limit.store.js';
import { keyIdOf } from '../../apps/coordinator/src/secrets/secret-box.js';
import { keyFilePath } from '../../apps/coordinator/src/secrets/secrets-keys.js';
import { StatusPageEntity } from '../../apps/coordinator/src/status-pages/status-page.entity.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { TEST_SECRETS_KEY, testDatabases, withTestSecretsKey, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { runCli, type CliResult } from '../support/processes.js';

/**
 * Secrets at rest (docs/decisions/0020-secrets-at-rest.md), end to end on every test database:
 * contact secrets are sealed in the table and still reach the receiver; rows from before the
 * upgrade deliver and are sealed at the next start; a rotation with SECRETS_KEY_PREVIOUS and
 * `secrets rotate`; a wrong key stops the start; status-page passwords are stored as hashes;
 * the embedded database's folder and files are owner-only.
 */
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const ROUTING_KEY = `R0UTE${randomBytes(12).toString('hex')}`;
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
const newKey = () => randomBytes(32).toString('base64');

/** `npm run -s cli -- <args>` as an operator runs it. */
function cli(env: Record<string, string>, args: string[]): Promise<CliResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['DATABASE_URL', 'SECRETS_KEY', 'SECRETS_KEY_PREVIOUS']) delete childEnv[key];
  return runCli(args, { ...childEnv, ...env });
}

describe.each(testDatabases())('secrets at rest on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator | undefined;
  let api: ApiClient;
  let apiKey: string;
  const hooks = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));
  const pagerDuty = new FakeReceiver((_req, res) =>
    reply(res, 202, { status: 'success', message: 'Event processed', dedup_key: 'x' }),
  );
  /** The key that sealed what is stored so far (the test key on PostgreSQL, the key file on SQLite). */
  let currentKey: string;
  const contacts: { webhook: string; paging: string } = { webhook: '', paging: '' };

  const start = async (env: Record<string, string> = {}) => {
    c = await startCoordinator(db.url, { env: { PAGERDUTY_EVENTS_URL: `${pagerDuty.baseUrl}/v2/enqueue`, ...env } });
    api = c.client(apiKey);
  };
  const stop = async () => {
    await c?.close();
    c = undefined;
  };
  const dataSource = () => c!.app.get<symbol, DataSource>(DATA_SOURCE);
  const contactRows = async () => dataSource().query<Record<string, unknown>[]>('SELECT * FROM contacts ORDER BY id');

  /** Sends a test notification through each contact and checks each receiver got the right secret. */
  const expectDelivered = async () => {
    hooks.requests.length = 0;
    pagerDuty.requests.length = 0;
    expect((await api.post(`/api/contacts/${contacts.webhook}/test`)).status).toBe(200);
    expect((await api.post(`/api/contacts/${contacts.paging}/test`)).status).toBe(200);
    const request = hooks.requests[0]!;
    const headers = {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    };
    expect(new Webhook(WEBHOOK_SECRET).verify(request.raw.toString('utf8'), headers)).toEqual(request.json);
    expect((pagerDuty.requests[0]!.json as { routing_key: string }).routing_key).toBe(ROUTING_KEY);
  };

  /** No secret in any column of any contact row, and every secret sealed with `keyId`. */
  const expectSealed = async (keyId: string) => {
    const rows = await contactRows();
    expect(rows).toHaveLength(2);
    const raw = JSON.stringify(rows);
    expect(raw).not.toContain(WEBHOOK_SECRET);
    expect(raw).not.toContain(WEBHOOK_SECRET.slice('whsec_'.length, 30));
    expect(raw).not.toContain(ROUTING_KEY);
    for (const row of rows) {
      expect(row.sealed_secrets).toMatch(new RegExp(`^v1:${keyId}:`));
      expect(row.secrets_key_id).toBe(keyId);
      expect(String(row.details)).toContain('"[REDACTED]"');
    }
  };

  beforeAll(async () => {
    db = await kind.create();
    await hooks.start({ https: false });
    await pagerDuty.start({ https: false });
    await start();
    ({ apiKey } = await c!.newAccount('secrets'));
    api = c!.client(apiKey);
    currentKey =
      kind.name === 'postgres' ? TEST_SECRETS_KEY : readFileSync(keyFilePath(db.url.slice('sqlite:'.length)), 'utf8');
  }, 60_000);

  afterAll(async () => {
    await stop();
    await hooks.stop();
    await pagerDuty.stop();
    await db?.drop();
  });

  it('seals contact secrets in the table, shows [REDACTED], and delivers the real ones', async () => {
    const webhook = await api.post('/api/contacts', {
      name: 'Hook',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/in`, secret: WEBHOOK_SECRET },
    });
    expect(webhook.status).toBe(201);
    expect(webhook.body.contact.details.secret).toBe('[REDACTED]');
    const paging = await api.post('/api/contacts', {
      name: 'Pager',
      channel: 'paging',
      details: { integration_key: ROUTING_KEY },
    });
    expect(paging.status).toBe(201);
    contacts.webhook = webhook.body.contact.id as string;
    contacts.paging = paging.body.contact.id as string;
    expect((await api.get(`/api/contacts/${contacts.paging}`)).body.contact.details.integration_key).toBe('[REDACTED]');

    await expectSealed(keyIdOf(Buffer.from(currentKey, 'base64')));
    await expectDelivered();
    // A PUT keeping the secret ([REDACTED]) re-seals it, still the same secret.
    const kept = await api.put(`/api/contacts/${contacts.webhook}`, {
      name: 'Hook 2',
      details: { secret: '[REDACTED]' },
    });
    expect(kept.status).toBe(200);
    await expectSealed(keyIdOf(Buffer.from(currentKey, 'base64')));
    await expectDelivered();
  });

  it('a plaintext row from before the upgrade still delivers, and is sealed at the next start', async () => {
    // What the previous version stored: the details whole, nothing sealed.
    const manager = dataSource().manager;
    await manager.update(
      ContactEntity,
      { id: contacts.webhook },
      { details: { url: `${hooks.baseUrl}/in`, secret: WEBHOOK_SECRET }, sealedSecrets: null, secretsKeyId: null },
    );
    await manager.update(
      ContactEntity,
      { id: contacts.paging },
      {
        details: {
          integration_key: ROUTING_KEY,
          severity_mapping: { critical: 'critical', high: 'error', medium: 'warning', low: 'info' },
          auto_resolve_incidents: true,
        },
        sealedSecrets: null,
        secretsKeyId: null,
      },
    );
    expect(JSON.stringify(await contactRows())).toContain(ROUTING_KEY);
    await expectDelivered();
    expect((await api.get(`/api/contacts/${contacts.webhook}`)).body.contact.details.secret).toBe('[REDACTED]');

    await stop();
    await start();
    await expectSealed(keyIdOf(Buffer.from(currentKey, 'base64')));
    await expectDelivered();
  });

  it('a wrong SECRETS_KEY stops the start, naming SECRETS_KEY, and sends nothing', async () => {
    await stop();
    hooks.requests.length = 0;
    await expect(start({ SECRETS_KEY: newKey() })).rejects.toThrow(/not the configured SECRETS_KEY/);
    expect(hooks.requests).toHaveLength(0);
    await start();
  });

  it('rotates: the new key with SECRETS_KEY_PREVIOUS delivers, `secrets rotate` re-seals, the old key can go', async () => {
    const next = newKey();
    await stop();
    await start({ SECRETS_KEY: next, SECRETS_KEY_PREVIOUS: currentKey });
    // Still sealed with the previous key, and readable.
    await expectSealed(keyIdOf(Buffer.from(currentKey, 'base64')));
    await expectDelivered();

    const result = await cli(
      withTestSecretsKey({ DATABASE_URL: db.url, SECRETS_KEY: next, SECRETS_KEY_PREVIOUS: currentKey }),
      ['secrets', 'rotate'],
    );
    // (stderr may say that the launcher built first; the command's own messages would start `picket cli:`.)
    expect({ code: result.code, refused: result.stderr.includes('picket cli:') }).toEqual({ code: 0, refused: false });
    const nextId = keyIdOf(Buffer.from(next, 'base64'));
    expect(JSON.parse(result.stdout)).toEqual({ key_id: nextId, resealed: 2, sealed_by_key: { [nextId]: 2 } });
    await expectSealed(nextId);

    await stop();
    await start({ SECRETS_KEY: next });
    await expectDelivered();
    // The old key alone no longer opens them: the start is refused.
    await stop();
    await expect(start({ SECRETS_KEY: currentKey })).rejects.toThrow(/sealed with key id [0-9a-f]{16}.*SECRETS_KEY/s);
    currentKey = next;
    await start({ SECRETS_KEY: next });
  }, 120_000);

  describe('status-page basic auth', () => {
    let pageId: string;
    const view = (authorization?: string) =>
      fetch(`${c!.baseUrl}/status/${pageId}.json`, { headers: authorization ? { authorization } : {} });

    beforeAll(async () => {
      const monitor = await api.post('/api/monitors', {
        name: 'Site',
        settings: { https: { url: 'https://x.example/' } },
        regions: ['eu-west-1'],
      });
      expect(monitor.status).toBe(201);
      const page = await api.post('/api/status_pages', {
        name: 'Locked',
        monitors: [monitor.body.data.id],
        basic_auth: 'viewer:p4ss:word',
      });
      expect(page.status).toBe(201);
      expect(page.body.data.basic_auth).toBe('[REDACTED]');
      pageId = page.body.data.id as string;
    });

    const storedPassword = async () =>
      (await dataSource().manager.findOneByOrFail(StatusPageEntity, { id: pageId })).basicAuth ?? '';

    it('stores a salted scrypt hash, lets the right password in and keeps the wrong one out', async () => {
      const stored = await storedPassword();
      expect(stored).toMatch(/^scrypt\$/);
      expect(stored).not.toContain('p4ss');
      expect((await view(basic('viewer:p4ss:word'))).status).toBe(200);
      expect((await view(basic('viewer:p4ss:wor'))).status).toBe(401);
      expect((await view()).status).toBe(401);
      expect((await api.get(`/api/status_pages/${pageId}`)).body.data.basic_auth).toBe('[REDACTED]');
    });

    it('a verified view from the same address reads no failure budget; failures are still charged', async () => {
      const store = c!.app.get(RateLimitStore);
      const reads = jest.spyOn(store, 'tatOf');
      const charges = jest.spyOn(store, 'admit');
      try {
        // The last test's failure from this address: the first right view reads the budget, the next ones do not.
        expect((await view(basic('viewer:p4ss:word'))).status).toBe(200);
        expect(reads).toHaveBeenCalledTimes(1);
        reads.mockClear();
        for (let i = 0; i < 3; i++) expect((await view(basic('viewer:p4ss:word'))).status).toBe(200);
        expect(reads).not.toHaveBeenCalled();
        expect(charges).not.toHaveBeenCalled();
        expect((await view(basic('viewer:nope'))).status).toBe(401);
        // After a failure from this address its budget is read again before the next 200.
        expect((await view(basic('viewer:p4ss:word'))).status).toBe(200);
        expect(reads).toHaveBeenCalledWith('auth_failure', expect.stringMatching(/^basic_auth:/));
        expect(charges).toHaveBeenCalledWith(
          'auth_failure',
          expect.stringMatching(/^basic_auth:/),
          expect.any(Number),
          expect.any(Number),
        );
      } finally {
        reads.mockRestore();
        charges.mockRestore();
      }
    });

    it('a changed password takes effect at once: the remembered one is forgotten', async () => {
      expect((await api.patch(`/api/status_pages/${pageId}`, { basic_auth: 'viewer:n3w' })).status).toBe(200);
      expect((await view(basic('viewer:p4ss:word'))).status).toBe(401);
      expect((await view(basic('viewer:n3w'))).status).toBe(200);
    });

    it('a plain password from before the upgrade still works, and is hashed at the next start', async () => {
      await dataSource().manager.update(StatusPageEntity, { id: pageId }, { basicAuth: 'viewer:0ld' });
      await stop();
      await start({ SECRETS_KEY: currentKey });
      const stored = await storedPassword();
      expect(stored).toMatch(/^scrypt\$/);
      expect(stored).not.toContain('0ld');
      expect((await view(basic('viewer:0ld'))).status).toBe(200);
      expect((await view(basic('viewer:n3w'))).status).toBe(401);
    });
  });
});

describe.each(testDatabases())('upgrading from the version before sealing, on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator | undefined;
  const hooks = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));

  beforeAll(async () => {
    db = await kind.create();
    await hooks.start({ https: false });
  });
  afterAll(async () => {
    await c?.close();
    await hooks.stop();
    await db?.drop();
  });

  it('a contact and a page password stored in plain text are sealed and hashed by the first start, and still work', async () => {
    // The schema of the version before: every migration but the one that adds the sealed columns.
    const target = parseDatabaseUrl(db.url);
    if (!target) throw new Error('bad test url');
    const old = await openDataSource(target, ENTITIES);
    const applied = await migrate(old);
    const sealing = applied.indexOf('SealedSecrets1765620000000');
    expect(sealing).toBeGreaterThan(0);
    // Back to the schema before it: undo it and every migration after it (they ran after it anyway).
    for (let i = sealing; i < applied.length; i++) await old.undoLastMigration();
    const [yes, no] = kind.name === 'postgres' ? ['true', 'false'] : ['1', '0'];
    const [accountId, contactId, monitorId, pageId] = ['a', 'c', 'b', 'd'].map((x) => x.repeat(24)) as [
      string,
      string,
      string,
      string,
    ];
    const details = JSON.stringify({ url: `${hooks.baseUrl}/old`, secret: WEBHOOK_SECRET });
    await old.query(
      `INSERT INTO "accounts" ("id", "name", "subscription_status", "created_at") VALUES ('${accountId}', 'old', 'active', 1)`,
    );
    await old.query(
      `INSERT INTO "contacts" ("id", "account_id", "name", "channel", "details", "active", "down_alerts_only", "error", "consecutive_failures", "created_at", "updated_at") ` +
        `VALUES ('${contactId}', '${accountId}', 'Old hook', 'webhook', '${details}', ${yes}, ${no}, 'null', 0, 1, 1)`,
    );
    await old.query(
      `INSERT INTO "status_pages" ("id", "account_id", "name", "monitors", "period", "show_incident_reasons", "basic_auth", "created_at", "updated_at") ` +
        // Its monitor was deleted since: the page shows none, but still asks for the password.
        `VALUES ('${pageId}', '${accountId}', 'Old page', '["${monitorId}"]', 30, ${no}, 'viewer:0ld-pass', 1, 1)`,
    );
    await old.destroy();

    c = await startCoordinator(db.url);
    const dataSource = c.app.get<symbol, DataSource>(DATA_SOURCE);
    const [row] = await dataSource.query<Record<string, unknown>[]>(`SELECT * FROM contacts`);
    expect(JSON.stringify(row)).not.toContain(WEBHOOK_SECRET);
    expect(row?.sealed_secrets).toMatch(/^v1:[0-9a-f]{16}:/);
    const [page] = await dataSource.query<{ basic_auth: string }[]>(`SELECT basic_auth FROM status_pages`);
    expect(page?.basic_auth).toMatch(/^scrypt\$/);

    const { client } = await c.newKey(accountId, PERMISSIONS);
    expect((await client.get(`/api/contacts/${contactId}`)).body.contact.details.secret).toBe('[REDACTED]');
    expect((await client.post(`/api/contacts/${contactId}/test`)).status).toBe(200);
    const request = hooks.requests[0]!;
    const headers = {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    };
    expect(new Webhook(WEBHOOK_SECRET).verify(request.raw.toString('utf8'), headers)).toEqual(request.json);
    const view = (authorization: string) =>
      fetch(`${c!.baseUrl}/status/${pageId}.json`, { headers: { authorization } });
    expect((await view(basic('viewer:0ld-pass'))).status).toBe(200);
    expect((await view(basic('viewer:0ld-pas'))).status).toBe(401);
  }, 60_000);
});

describe('the embedded database and its key, owner-only', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const mode = (path: string) => statSync(path).mode & 0o777;

  it('creates the data folder 0700, and the database, its -wal and -shm, and the key file 0600', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picket-modes-'));
    dirs.push(dir);
    const file = join(dir, 'var', 'data', 'picket.db');
    const c = await startCoordinator(`sqlite:${file}`);
    try {
      await c.newAccount('modes'); // a write, so the write-ahead log exists
      expect(mode(join(dir, 'var', 'data'))).toBe(0o700);
      for (const each of [file, `${file}-wal`, `${file}-shm`, `${file}.key`]) {
        expect(`${each}: ${existsSync(each)} ${mode(each).toString(8)}`).toBe(`${each}: true 600`);
      }
    } finally {
      await c.close();
    }
  });

  it('tightens a database file an older version left 0644', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'picket-modes-'));
    dirs.push(dir);
    const file = join(dir, 'picket.db');
    closeSync(openSync(file, 'w', 0o644));
    expect(mode(file)).toBe(0o644);
    const c = await startCoordinator(`sqlite:${file}`);
    try {
      expect(mode(file)).toBe(0o600);
    } finally {
      await c.close();
    }
  });
});
