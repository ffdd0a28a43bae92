import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountsService } from '../../apps/coordinator/src/auth/accounts.service.js';
import type { Permission } from '../../apps/coordinator/src/auth/permissions.js';
import { TransitionWriter } from '../../apps/coordinator/src/transitions/transition.writer.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import {
  createContact,
  createMonitor,
  expectError,
  expectValidationError,
  monitorBody,
  UNKNOWN_ID,
} from '../support/monitor-fixtures.js';
import { SPEC_PERMISSIONS } from '../support/spec-lists.js';

const ALL_PERMISSIONS: Permission[] = [...SPEC_PERMISSIONS];

/** A monitor, a contact and an incident of one account, for routes that need an id. */
interface Fixture {
  monitorId: string;
  contactId: string;
  /** A webhook contact whose receiver accepts everything (the test route delivers for real). */
  webhookContactId: string;
  /** A resolved incident of the monitor. */
  incidentId: string;
  /** A status page showing the monitor. */
  statusPageId: string;
}

interface RouteCase {
  name: string;
  permission: Permission;
  method: string;
  path: (f: Fixture) => string;
  body?: (f: Fixture) => unknown;
  /** The status when the key holds the permission. */
  success: number;
}

/** Every API route that exists today, with the permission it needs. */
const ROUTES: RouteCase[] = [
  { name: 'list monitors', permission: 'monitors:read', method: 'GET', path: () => '/api/monitors', success: 200 },
  {
    name: 'get monitor',
    permission: 'monitors:read',
    method: 'GET',
    path: (f) => `/api/monitors/${f.monitorId}`,
    success: 200,
  },
  {
    name: 'create monitor',
    permission: 'monitors:write',
    method: 'POST',
    path: () => '/api/monitors',
    body: () => monitorBody({ name: 'created by a narrow key' }),
    success: 201,
  },
  {
    name: 'update monitor',
    permission: 'monitors:write',
    method: 'PUT',
    path: (f) => `/api/monitors/${f.monitorId}`,
    body: () => ({ name: 'renamed by a narrow key' }),
    success: 200,
  },
  {
    name: 'delete monitor',
    permission: 'monitors:write',
    method: 'DELETE',
    path: (f) => `/api/monitors/${f.monitorId}`,
    success: 204,
  },
  {
    name: 'pause monitor',
    permission: 'monitors:write',
    method: 'POST',
    path: (f) => `/api/monitors/${f.monitorId}/pause`,
    success: 200,
  },
  {
    name: 'resume monitor',
    permission: 'monitors:write',
    method: 'POST',
    path: (f) => `/api/monitors/${f.monitorId}/resume`,
    success: 200,
  },
  { name: 'list contacts', permission: 'contacts:read', method: 'GET', path: () => '/api/contacts', success: 200 },
  {
    name: 'get contact',
    permission: 'contacts:read',
    method: 'GET',
    path: (f) => `/api/contacts/${f.contactId}`,
    success: 200,
  },
  {
    name: 'create contact',
    permission: 'contacts:write',
    method: 'POST',
    path: () => '/api/contacts',
    body: () => ({ name: 'created by a narrow key', channel: 'email', details: { email: 'narrow@example.com' } }),
    success: 201,
  },
  {
    name: 'update contact',
    permission: 'contacts:write',
    method: 'PUT',
    path: (f) => `/api/contacts/${f.contactId}`,
    body: () => ({ name: 'renamed by a narrow key' }),
    success: 200,
  },
  {
    name: 'delete contact',
    permission: 'contacts:write',
    method: 'DELETE',
    path: (f) => `/api/contacts/${f.contactId}`,
    success: 204,
  },
  {
    name: 'reactivate contact',
    permission: 'contacts:write',
    method: 'POST',
    path: (f) => `/api/contacts/${f.contactId}/reactivate`,
    success: 200,
  },
  {
    name: 'test contact',
    permission: 'contacts:write',
    method: 'POST',
    path: (f) => `/api/contacts/${f.webhookContactId}/test`,
    success: 200,
  },
  { name: 'list incidents', permission: 'incidents:read', method: 'GET', path: () => '/api/incidents', success: 200 },
  {
    name: 'get incident',
    permission: 'incidents:read',
    method: 'GET',
    path: (f) => `/api/incidents/${f.incidentId}`,
    success: 200,
  },
  {
    name: 'comment on incident',
    permission: 'incidents:write',
    method: 'PUT',
    path: (f) => `/api/incidents/${f.incidentId}/comment`,
    body: () => ({ comment: 'written by a narrow key' }),
    success: 200,
  },
  {
    name: 'list status pages',
    permission: 'status_pages:read',
    method: 'GET',
    path: () => '/api/status_pages',
    success: 200,
  },
  {
    name: 'get status page',
    permission: 'status_pages:read',
    method: 'GET',
    path: (f) => `/api/status_pages/${f.statusPageId}`,
    success: 200,
  },
  {
    name: 'create status page',
    permission: 'status_pages:write',
    method: 'POST',
    path: () => '/api/status_pages',
    body: (f) => ({ name: 'created by a narrow key', monitors: [f.monitorId] }),
    success: 201,
  },
  {
    name: 'update status page (PUT)',
    permission: 'status_pages:write',
    method: 'PUT',
    path: (f) => `/api/status_pages/${f.statusPageId}`,
    body: () => ({ name: 'renamed by a narrow key' }),
    success: 200,
  },
  {
    name: 'update status page (PATCH)',
    permission: 'status_pages:write',
    method: 'PATCH',
    path: (f) => `/api/status_pages/${f.statusPageId}`,
    body: () => ({ period: 90 }),
    success: 200,
  },
  {
    name: 'delete status page',
    permission: 'status_pages:write',
    method: 'DELETE',
    path: (f) => `/api/status_pages/${f.statusPageId}`,
    success: 204,
  },
  { name: 'get account', permission: 'account:read', method: 'GET', path: () => '/api/account', success: 200 },
];

/** Headers that must match between two answers (all but the date). */
function comparableHeaders(res: ApiResponse): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    // The rate-limit headers count the account's requests (one more each time), not the resource;
    // X-Request-Id is new for every request.
    if (key !== 'date' && key !== 'x-request-id' && !key.startsWith('x-ratelimit-')) out[key] = value;
  });
  return out;
}

describe.each(testDatabases())('authentication and authorisation on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  const receiver = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));

  beforeAll(async () => {
    db = await kind.create();
    await receiver.start({ https: false });
    // This suite sends well over a hundred bad keys from one address on purpose, to compare their
    // 401s; the per-address budget of failures has its own suite (auth-throttle.spec.ts).
    c = await startCoordinator(db.url, { env: { AUTH_FAILURES_PER_HOUR: '100000' } });
  });

  afterAll(async () => {
    await c?.close();
    await receiver.stop();
    await db?.drop();
  });

  const fixture = async (client: ApiClient): Promise<Fixture> => {
    const monitorId = (await createMonitor(client)).id as string;
    const webhook = await client.post('/api/contacts', {
      name: 'Test hook',
      channel: 'webhook',
      details: { url: `${receiver.baseUrl}/hook` },
    });
    expect(webhook.status).toBe(201);
    // A resolved incident: its duration no longer moves with the clock, so its text can be compared.
    const transitions = c.app.get(TransitionWriter);
    const now = Math.floor(Date.now() / 1000);
    await transitions.write({ monitorId, status: 'down', changedAt: now - 60, reason: 'HTTP 503', evidence: {} });
    await transitions.write({ monitorId, status: 'up', changedAt: now, reason: null, evidence: {} });
    const incidents = await client.get(`/api/incidents?monitor_id=${monitorId}`);
    expect(incidents.body.data.incidents).toHaveLength(1);
    const statusPage = await client.post('/api/status_pages', { name: 'Fixture page', monitors: [monitorId] });
    expect(statusPage.status).toBe(201);
    return {
      monitorId,
      contactId: await createContact(client),
      webhookContactId: webhook.body.contact.id as string,
      incidentId: incidents.body.data.incidents[0].id as string,
      statusPageId: statusPage.body.data.id as string,
    };
  };

  describe('401 UNAUTHORIZED', () => {
    it('answers every missing or bad key with the same 401 and WWW-Authenticate: Bearer', async () => {
      const { accountId, apiKey, client: owner } = await c.newAccount('keys');
      const m = await createMonitor(owner);
      const revokedKey = await c.app.get(AccountsService).createKey(accountId, ALL_PERMISSIONS);
      const revokedClient = c.client(revokedKey.apiKey);
      expect((await revokedClient.get('/api/monitors')).status).toBe(200);
      await c.app.get(AccountsService).revokeKey(revokedKey.keyId);

      const hex = apiKey.slice('pkt_'.length);
      const headers: [string, string | undefined][] = [
        ['no Authorization header', undefined],
        ['an empty header', ''],
        ['the Basic scheme', `Basic ${Buffer.from('user:pass').toString('base64')}`],
        ['another scheme with a valid key', `Token ${apiKey}`],
        ['the key without a scheme', apiKey],
        ['the scheme without a key', 'Bearer'],
        ['the scheme and a blank', 'Bearer '],
        ['a bare prefix', 'Bearer pkt_'],
        ['a short key', 'Bearer pkt_abc123'],
        ['an odd-length key (63 hex)', `Bearer pkt_${hex.slice(1)}`],
        ['a key one character too long', `Bearer ${apiKey}0`],
        ['a key without its prefix', `Bearer ${hex}`],
        ['a key in upper case', `Bearer pkt_${hex.toUpperCase()}`],
        ['a key with a wrong prefix', `Bearer pkx_${hex}`],
        ['a non-hex key', `Bearer pkt_${'z'.repeat(64)}`],
        ['a key followed by more text', `Bearer ${apiKey} ${apiKey}`],
        ['an unknown well-formed key', `Bearer pkt_${randomBytes(32).toString('hex')}`],
        ['a revoked key', `Bearer ${revokedKey.apiKey}`],
      ];
      const requests: [string, string, unknown][] = [
        ['GET', '/api/monitors', undefined],
        ['GET', `/api/monitors/${m.id}`, undefined],
        ['GET', '/api/monitors/not-an-id', undefined],
        ['POST', '/api/monitors', { name: '' }],
        ['DELETE', `/api/monitors/${m.id}`, undefined],
        ['GET', '/api/contacts', undefined],
        ['GET', '/api/account', undefined],
      ];
      const anonymous = c.client();
      let reference: string | undefined;
      for (const [label, authorization] of headers) {
        for (const [method, path, json] of requests) {
          const res = await anonymous.request(method, path, {
            json,
            headers: authorization === undefined ? {} : { authorization },
          });
          const seen = {
            label,
            method,
            path,
            status: res.status,
            challenge: res.headers.get('www-authenticate'),
            type: res.headers.get('content-type'),
          };
          expect(seen).toEqual({
            label,
            method,
            path,
            status: 401,
            challenge: 'Bearer',
            type: 'application/json; charset=utf-8',
          });
          reference ??= res.text;
          expect({ label, text: res.text }).toEqual({ label, text: reference });
        }
      }
      expect(JSON.parse(reference!)).toStrictEqual({
        status: 'error',
        error: { code: 'UNAUTHORIZED', message: expect.any(String) },
      });
      // Nothing was deleted by the refused requests.
      expect((await owner.get(`/api/monitors/${m.id}`)).status).toBe(200);
    });

    it('accepts the scheme in any case, and a revoked key stops working at once', async () => {
      const { accountId, apiKey } = await c.newAccount('schemes');
      for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
        const res = await c.client().get('/api/monitors', { headers: { authorization: `${scheme} ${apiKey}` } });
        expect(res.status).toBe(200);
      }
      const { keyId, client } = await c.newKey(accountId, ['monitors:read']);
      expect((await client.get('/api/monitors')).status).toBe(200);
      await c.app.get(AccountsService).revokeKey(keyId);
      expectError(await client.get('/api/monitors'), 401, 'UNAUTHORIZED');
      // The account's other key is unaffected.
      expect((await c.client(apiKey).get('/api/monitors')).status).toBe(200);
    });
  });

  describe('permissions', () => {
    it.each(ALL_PERMISSIONS)('a key with only %s can use exactly the routes needing it', async (permission) => {
      const { accountId, client: admin } = await c.newAccount(`only ${permission}`);
      const { client } = await c.newKey(accountId, [permission]);
      const shared = await fixture(admin);
      const snapshot = async () => ({
        monitor: (await admin.get(`/api/monitors/${shared.monitorId}`)).text,
        contact: (await admin.get(`/api/contacts/${shared.contactId}`)).text,
        incident: (await admin.get(`/api/incidents/${shared.incidentId}`)).text,
        statusPage: (await admin.get(`/api/status_pages/${shared.statusPageId}`)).text,
        statusPages: (await admin.get('/api/status_pages')).body.data.pagination.total,
        monitors: (await admin.get('/api/monitors')).body.data.pagination.total,
        contacts: (await admin.get('/api/contacts')).body.pagination.total,
        tests: receiver.requests.length,
      });
      const before = await snapshot();

      for (const route of ROUTES.filter((r) => r.permission !== permission)) {
        const res = await client.request(route.method, route.path(shared), { json: route.body?.(shared) });
        expect({ route: route.name, status: res.status, code: res.body?.error?.code }).toEqual({
          route: route.name,
          status: 403,
          code: 'FORBIDDEN',
        });
      }
      // Refused requests changed nothing.
      expect(await snapshot()).toEqual(before);

      for (const route of ROUTES.filter((r) => r.permission === permission)) {
        const own = await fixture(admin);
        const res = await client.request(route.method, route.path(own), { json: route.body?.(own) });
        expect({ route: route.name, status: res.status }).toEqual({ route: route.name, status: route.success });
      }
    });

    it('a key with no permission at all is refused everywhere with 403', async () => {
      const { accountId, client: admin } = await c.newAccount('no permissions');
      const { client } = await c.newKey(accountId, []);
      const f = await fixture(admin);
      for (const route of ROUTES) {
        const res = await client.request(route.method, route.path(f), { json: route.body?.(f) });
        expect({ route: route.name, status: res.status }).toEqual({ route: route.name, status: 403 });
      }
    });
  });

  describe('isolation between accounts', () => {
    it('two accounts never see, change or delete each other’s monitors, contacts and incidents', async () => {
      const a = await c.newAccount('alice');
      const b = await c.newAccount('bob');
      const fa = await fixture(a.client);
      const fb = await fixture(b.client);
      const monitorA = (await a.client.get(`/api/monitors/${fa.monitorId}`)).text;
      const contactA = (await a.client.get(`/api/contacts/${fa.contactId}`)).text;
      const incidentA = (await a.client.get(`/api/incidents/${fa.incidentId}`)).text;
      const deliveries = receiver.requests.length;

      const ids = (res: ApiResponse, key: 'monitors' | 'contacts' | 'incidents') =>
        (key === 'contacts' ? res.body.contacts : res.body.data[key]).map((x: { id: string }) => x.id).sort();
      for (const [client, f] of [
        [a.client, fa],
        [b.client, fb],
      ] as const) {
        expect(ids(await client.get('/api/monitors?per_page=100'), 'monitors')).toEqual([f.monitorId]);
        expect(ids(await client.get('/api/contacts?per_page=100'), 'contacts')).toEqual(
          [f.contactId, f.webhookContactId].sort(),
        );
        expect(ids(await client.get('/api/incidents?per_page=100'), 'incidents')).toEqual([f.incidentId]);
      }
      expect(ids(await b.client.get(`/api/incidents?monitor_id=${fa.monitorId}`), 'incidents')).toEqual([]);

      const operations: [string, (id: string) => string, unknown, string, (f: Fixture) => string][] = [
        ['GET', (id) => `/api/monitors/${id}`, undefined, 'MONITOR_NOT_FOUND', (f) => f.monitorId],
        ['PUT', (id) => `/api/monitors/${id}`, { name: 'mine now' }, 'MONITOR_NOT_FOUND', (f) => f.monitorId],
        ['PUT', (id) => `/api/monitors/${id}`, { name: '' }, 'MONITOR_NOT_FOUND', (f) => f.monitorId],
        ['DELETE', (id) => `/api/monitors/${id}`, undefined, 'MONITOR_NOT_FOUND', (f) => f.monitorId],
        ['POST', (id) => `/api/monitors/${id}/pause`, undefined, 'MONITOR_NOT_FOUND', (f) => f.monitorId],
        ['POST', (id) => `/api/monitors/${id}/resume`, undefined, 'MONITOR_NOT_FOUND', (f) => f.monitorId],
        ['GET', (id) => `/api/contacts/${id}`, undefined, 'CONTACT_NOT_FOUND', (f) => f.contactId],
        ['PUT', (id) => `/api/contacts/${id}`, { name: 'mine now' }, 'CONTACT_NOT_FOUND', (f) => f.contactId],
        ['PUT', (id) => `/api/contacts/${id}`, { name: '' }, 'CONTACT_NOT_FOUND', (f) => f.contactId],
        ['DELETE', (id) => `/api/contacts/${id}`, undefined, 'CONTACT_NOT_FOUND', (f) => f.contactId],
        ['POST', (id) => `/api/contacts/${id}/reactivate`, undefined, 'CONTACT_NOT_FOUND', (f) => f.contactId],
        ['POST', (id) => `/api/contacts/${id}/test`, undefined, 'CONTACT_NOT_FOUND', (f) => f.webhookContactId],
        ['GET', (id) => `/api/incidents/${id}`, undefined, 'INCIDENT_NOT_FOUND', (f) => f.incidentId],
        ['PUT', (id) => `/api/incidents/${id}/comment`, { comment: 'mine' }, 'INCIDENT_NOT_FOUND', (f) => f.incidentId],
        ['PUT', (id) => `/api/incidents/${id}/comment`, { comment: 5 }, 'INCIDENT_NOT_FOUND', (f) => f.incidentId],
      ];
      for (const [method, path, json, code, pick] of operations) {
        const foreignId = pick(fa);
        const foreign = await b.client.request(method, path(foreignId), { json });
        const random = await b.client.request(method, path(UNKNOWN_ID), { json });
        const label = `${method} ${path(':id')}`;
        expect({ label, status: foreign.status, code: foreign.body?.error?.code }).toEqual({
          label,
          status: 404,
          code,
        });
        expect({ label, text: foreign.text, headers: comparableHeaders(foreign) }).toEqual({
          label,
          text: random.text,
          headers: comparableHeaders(random),
        });
      }

      // Bob cannot point his monitor at Alice's contact either.
      expectValidationError(
        await b.client.put(`/api/monitors/${fb.monitorId}`, { contacts: [fa.contactId] }),
        'contacts[0]',
      );
      // Alice's objects are exactly as they were.
      expect((await a.client.get(`/api/monitors/${fa.monitorId}`)).text).toBe(monitorA);
      expect((await a.client.get(`/api/contacts/${fa.contactId}`)).text).toBe(contactA);
      expect((await a.client.get(`/api/incidents/${fa.incidentId}`)).text).toBe(incidentA);
      expect(receiver.requests.length).toBe(deliveries);
    });
  });

  describe('routing errors', () => {
    let client: ApiClient;
    let monitorId: string;
    beforeAll(async () => {
      client = (await c.newAccount('routing')).client;
      monitorId = (await createMonitor(client)).id;
    });

    it.each([
      ['GET', '/api/nope'],
      ['GET', '/api/monitorz'],
      ['POST', '/api/monitors/{id}/explode'],
      ['GET', '/api/monitors/{id}/pause/now'],
      ['GET', '/api'],
      ['DELETE', '/nothing/here'],
    ])('%s %s is 404 NOT_FOUND', async (method, path) => {
      const res = await client.request(method, path.replace('{id}', monitorId));
      expectError(res, 404, 'NOT_FOUND');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });

    it('serves a path with a trailing slash as the path without it', async () => {
      const plain = await client.get('/api/monitors');
      const slashed = await client.get('/api/monitors/');
      expect(slashed.status).toBe(200);
      expect(slashed.text).toBe(plain.text);
      const one = await client.get(`/api/monitors/${monitorId}/`);
      expect(one.status).toBe(200);
      expect(one.body.data.id).toBe(monitorId);
      expect((await client.get('/api/account/')).status).toBe(200);
      const wrong = await client.request('PATCH', `/api/monitors/${monitorId}/`, { json: {} });
      expectError(wrong, 405, 'METHOD_NOT_ALLOWED');
      expect(wrong.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
    });

    it('answers an id with broken percent-encoding like any malformed id: the resource 404', async () => {
      const res = await client.get('/api/monitors/%zz');
      expectError(res, 404, 'MONITOR_NOT_FOUND');
      expect(res.text).toBe((await client.get('/api/monitors/000000000000000000000000')).text);
      expectError(await client.get('/api/contacts/%zz/x'), 404, 'CONTACT_NOT_FOUND');
      expectError(await client.get('/api/%zz'), 404, 'NOT_FOUND');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    });

    it.each([
      ['PATCH', '/api/monitors/{id}', 'DELETE, GET, HEAD, PUT'],
      ['POST', '/api/monitors/{id}', 'DELETE, GET, HEAD, PUT'],
      ['DELETE', '/api/monitors', 'GET, HEAD, POST'],
      ['PUT', '/api/monitors', 'GET, HEAD, POST'],
      ['GET', '/api/monitors/{id}/pause', 'POST'],
      ['DELETE', '/api/monitors/{id}/resume', 'POST'],
      ['PATCH', '/api/contacts/{id}', 'DELETE, GET, HEAD, PUT'],
      ['POST', '/api/account', 'GET, HEAD'],
    ])('%s %s is 405 METHOD_NOT_ALLOWED with Allow: %s', async (method, path, allow) => {
      const before = (await client.get(`/api/monitors/${monitorId}`)).text;
      const json = method === 'GET' ? undefined : { name: 'changed' };
      const res = await client.request(method, path.replace('{id}', monitorId), { json });
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe(allow);
      // The monitor was neither changed nor deleted.
      expect((await client.get(`/api/monitors/${monitorId}`)).text).toBe(before);
    });
  });

  describe('request bodies', () => {
    let client: ApiClient;
    let monitorId: string;
    beforeAll(async () => {
      client = (await c.newAccount('bodies')).client;
      monitorId = (await createMonitor(client)).id;
    });

    /** A JSON object `{"name":"aaa…"}` of exactly `bytes` bytes. */
    const jsonOfSize = (bytes: number) => {
      const shell = '{"name":""}';
      return `{"name":"${'a'.repeat(bytes - shell.length)}"}`;
    };
    const send = (method: string, path: string, raw: string | Buffer, contentType?: string) =>
      client.request(method, path, {
        raw,
        headers: contentType === undefined ? {} : { 'content-type': contentType },
      });
    const JSON_TYPE = 'application/json';

    it('accepts a body of exactly 256 KiB and refuses one byte more with 413', async () => {
      const exact = jsonOfSize(256 * 1024);
      expect(Buffer.byteLength(exact)).toBe(262144);
      // Read and judged: the name is too long, but the body was not too large.
      expectValidationError(await send('POST', '/api/monitors', exact, JSON_TYPE), 'name');
      const over = jsonOfSize(256 * 1024 + 1);
      expectError(await send('POST', '/api/monitors', over, JSON_TYPE), 413, 'PAYLOAD_TOO_LARGE');
      expectError(await send('PUT', `/api/monitors/${monitorId}`, over, JSON_TYPE), 413, 'PAYLOAD_TOO_LARGE');
      const huge = jsonOfSize(2 * 1024 * 1024);
      expectError(await send('POST', '/api/monitors', huge, JSON_TYPE), 413, 'PAYLOAD_TOO_LARGE');
    });

    it.each([
      ['text/plain', 'text/plain'],
      ['text/plain with charset', 'text/plain; charset=utf-8'],
      ['a form', 'application/x-www-form-urlencoded'],
      ['multipart', 'multipart/form-data; boundary=x'],
      ['XML', 'application/xml'],
      ['a look-alike of application/json', 'application/jsonx'],
      ['a JSON-based media type', 'application/merge-patch+json'],
      ['no Content-Type', undefined],
    ])('refuses a JSON body sent as %s with 415', async (_, contentType) => {
      const body = Buffer.from(JSON.stringify(monitorBody()));
      expectError(await send('POST', '/api/monitors', body, contentType), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectError(await send('PUT', `/api/monitors/${monitorId}`, body, contentType), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('accepts application/json with a charset parameter', async () => {
      const res = await send('POST', '/api/monitors', JSON.stringify(monitorBody()), 'application/json; charset=utf-8');
      expect(res.status).toBe(201);
    });

    const depth = (n: number) => `{"name":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;

    it.each([
      ['truncated JSON', '{"name":'],
      ['a trailing comma', '{"name":"x",}'],
      ['single quotes', "{'name':'x'}"],
      ['a bare word', 'monitor'],
      ['two documents', '{}{}'],
      ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
      ['an overlong UTF-8 sequence', Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d])],
      ['nesting 33 levels deep', depth(33)],
      ['nesting 1000 levels deep', depth(1000)],
      ['a __proto__ key', '{"__proto__":{"admin":true},"name":"x"}'],
      ['a nested __proto__ key', '{"settings":{"https":{"__proto__":{"url":"https://x.example"}}}}'],
      ['constructor.prototype', '{"constructor":{"prototype":{"admin":true}}}'],
    ])('refuses %s with 400 INVALID_JSON', async (_, raw) => {
      expectError(await send('POST', '/api/monitors', raw, JSON_TYPE), 400, 'INVALID_JSON');
      expectError(await send('PUT', `/api/monitors/${monitorId}`, raw, JSON_TYPE), 400, 'INVALID_JSON');
    });

    it('reads a body nested exactly 32 levels deep (and judges it)', async () => {
      expectValidationError(await send('POST', '/api/monitors', depth(32), JSON_TYPE), 'name');
    });

    it('created nothing and changed nothing with refused bodies', async () => {
      const list = await client.get('/api/monitors?per_page=100');
      // The fixture monitor plus the one created with a charset parameter.
      expect(list.body.data.pagination.total).toBe(2);
      const m = list.body.data.monitors.find((x: { id: string }) => x.id === monitorId);
      expect(m.name).toBe('Example site');
    });
  });
});
