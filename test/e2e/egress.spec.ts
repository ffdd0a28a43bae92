import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { waitFor } from '../support/wait.js';

const monitor = (settings: Record<string, unknown>) => ({ name: 'guarded', settings, regions: ['eu-west-1'] });

/** docs/decisions/0010-egress-policy.md: a target written as a forbidden IP literal is refused when saved (422). */
describe.each([
  [
    'strict',
    [
      ...['http://127.0.0.1/', 'https://[::ffff:10.0.0.1]/x', 'tcp://[::1]:22', 'ping://192.168.1.1'],
      // 6to4 and Teredo, even carrying a public IPv4 (8.8.8.8): refused outright under strict.
      ...['https://[2002:808:808::1]/', 'tcp://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]:443', 'ping://[2002:101:101::]'],
    ],
    ['http://8.8.8.8/', 'http://[2001:4860:4860::8888]/'],
  ],
  [
    'private-allowed',
    ['http://169.254.169.254/latest', 'ping://[fd00:ec2::254]', 'https://[2002:a9fe:a9fe::]/'],
    ['http://127.0.0.1/', 'tcp://10.0.0.1:22', 'https://[2002:808:808::1]/', 'ping://[2001::f7f7:f7f7]'],
  ],
] as const)('EGRESS_POLICY=%s', (policy, refused, accepted) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, { env: { EGRESS_POLICY: policy } });
    api = (await c.newAccount()).client;
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const settingsFor = (url: string) => {
    const type = url.startsWith('tcp') ? 'tcp' : url.startsWith('ping') ? 'ping' : 'https';
    return { type, settings: { [type]: { url } } };
  };

  it.each(refused)('refuses a monitor of %s with 422 naming the field', async (url) => {
    const { type, settings } = settingsFor(url);
    const res = await api.post('/api/monitors', monitor(settings));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual([
      {
        field: `settings.${type}.url`,
        message: expect.stringMatching(/^is blocked by egress policy \(destination_not_allowed\): /),
      },
    ]);
  });

  it.each(accepted)('accepts a monitor of %s', async (url) => {
    expect((await api.post('/api/monitors', monitor(settingsFor(url).settings))).status).toBe(201);
  });

  it('judges host names only at connect time', async () => {
    expect((await api.post('/api/monitors', monitor({ https: { url: 'http://localhost/' } }))).status).toBe(201);
  });

  it('refuses a dns monitor whose own resolver is forbidden, on create and on update (0024)', async () => {
    const blocked = policy === 'strict' ? '[::1]:5353' : '169.254.169.254';
    const dns = (resolver: string) => monitor({ dns: { url: 'dns://example.com', resolver } });
    const detail = {
      field: 'settings.dns.resolver',
      message: expect.stringMatching(/^is blocked by egress policy \(destination_not_allowed\): /),
    };
    const created = await api.post('/api/monitors', dns(blocked));
    expect(created.status).toBe(422);
    expect(created.body.error.details).toEqual([detail]);
    const ok = await api.post('/api/monitors', dns('9.9.9.9'));
    expect(ok.status).toBe(201);
    const id = ok.body.data.id as string;
    const updated = await api.put(`/api/monitors/${id}`, {
      settings: { dns: { url: 'dns://example.com', resolver: blocked } },
    });
    expect(updated.status).toBe(422);
    expect(updated.body.error.details).toEqual([detail]);
    expect((await api.get(`/api/monitors/${id}`)).body.data.settings.dns.resolver).toBe('9.9.9.9');
  });

  it('refuses a contact whose URL is a forbidden literal, on create and on update', async () => {
    const blocked = refused[0].startsWith('http') ? refused[0] : 'http://169.254.169.254/';
    const created = await api.post('/api/contacts', { name: 'hook', channel: 'webhook', details: { url: blocked } });
    expect(created.status).toBe(422);
    expect(created.body.error.details).toEqual([
      {
        field: 'details.url',
        message: expect.stringMatching(/^is blocked by egress policy \(destination_not_allowed\): /),
      },
    ]);
    const ok = await api.post('/api/contacts', {
      name: 'hook',
      channel: 'webhook',
      details: { url: 'https://example.com/h' },
    });
    expect(ok.status).toBe(201);
    const id = ok.body.contact.id as string;
    const updated = await api.put(`/api/contacts/${id}`, { details: { url: blocked } });
    expect(updated.status).toBe(422);
    expect((await api.get(`/api/contacts/${id}`)).body.contact.details.url).toBe('https://example.com/h');
  });
});

/** docs/decisions/0010-egress-policy.md: a check the guard refuses is BLOCKED, its error led by the stable reason. */
describe('a refused check, as the API reports it', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, { env: { EGRESS_POLICY: 'strict', CHECKS_ENABLED: 'true' } });
    api = (await c.newAccount()).client;
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  it('is status blocked, phase connect, error "destination_not_allowed: …" in the history', async () => {
    // A name is saved (judged only when connecting); localhost resolves to loopback only, so nothing connects.
    const created = await api.post('/api/monitors', {
      ...monitor({ tcp: { url: 'tcp://localhost:9' } }),
      check_interval: 10,
      timeout: 5,
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const check = await waitFor('a blocked check', async () => {
      await c.app.get(ResultsWriter).flush();
      const [first] = (await api.get(`/api/monitors/${id}/checks`)).body.data.checks as Record<string, unknown>[];
      return first;
    });
    expect(check).toMatchObject({
      status: 'blocked',
      phase: 'connect',
      error: expect.stringMatching(/^destination_not_allowed: blocked by egress policy: (127\.0\.0\.1|::1)$/),
    });
  });
});
