import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import { AccountsService } from '../../apps/coordinator/src/auth/accounts.service.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import {
  createContact,
  createMonitor,
  expectError,
  expectValidationError,
  MONITOR_FIELDS,
  monitorBody,
  UNKNOWN_ID,
} from '../support/monitor-fixtures.js';
import { SPEC_REGIONS } from '../support/spec-lists.js';

const ALL_REGIONS = [...SPEC_REGIONS];

const GRIN = '\u{1F600}';

describe.each(testDatabases())('monitors API on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const nowSeconds = () => Math.floor(clock.now() / 1000);
  /** Moves the clock on by whole seconds so every write gets its own timestamp. */
  const tick = (seconds = 1) => clock.advance(seconds * 1000);

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock });
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const account = async () => (await c.newAccount('monitors')).client;

  describe('create and read', () => {
    it('creates a monitor with every documented default and returns it with 201', async () => {
      const client = await account();
      tick();
      const created = nowSeconds();
      const res = await client.post('/api/monitors', {
        name: 'Example',
        settings: { https: { url: 'https://example.com/' } },
        regions: ['eu-west-1'],
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
      expect(res.body.status).toBe('ok');
      const m = res.body.data;
      expect(Object.keys(m).sort()).toEqual(MONITOR_FIELDS);
      expect(m.id).toMatch(/^[0-9a-f]{24}$/);
      expect(parseInt(m.id.slice(0, 8), 16)).toBe(created);
      expect(m).toStrictEqual({
        id: m.id,
        name: 'Example',
        active: true,
        check_interval: 300,
        timeout: 30,
        fail_threshold: 2,
        regions: ['eu-west-1'],
        settings: { https: { url: 'https://example.com/', check_certificate_expiration: false } },
        contacts: [],
        notification_rules: { delay_seconds: 0, repeat_interval_seconds: 0, escalation: [] },
        last_status: 'pending',
        last_status_change: created,
        last_checked_at: null,
        created_at: created,
        updated_at: created,
      });

      tick();
      const got = await client.get(`/api/monitors/${m.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toStrictEqual({ status: 'ok', data: m });
    });

    it('keeps every explicitly given value', async () => {
      const client = await account();
      const contact = await createContact(client);
      const m = await createMonitor(client, {
        name: 'Explicit',
        active: false,
        check_interval: 60,
        timeout: 12,
        fail_threshold: 4,
        regions: ['ap-east-1', 'us-west-2'],
        contacts: [contact],
        settings: { tcp: { url: 'tcp://db.example.com:5432' } },
      });
      expect(m).toMatchObject({
        name: 'Explicit',
        active: false,
        check_interval: 60,
        timeout: 12,
        fail_threshold: 4,
        regions: ['ap-east-1', 'us-west-2'],
        contacts: [contact],
        settings: { tcp: { url: 'tcp://db.example.com:5432' } },
        last_status: 'pending',
      });
      expect(m.settings).toStrictEqual({ tcp: { url: 'tcp://db.example.com:5432' } });
      expect((await client.get(`/api/monitors/${m.id}`)).body.data).toStrictEqual(m);
    });

    it('ignores the read-only fields in a create body', async () => {
      const client = await account();
      tick();
      const m = await createMonitor(client, {
        id: UNKNOWN_ID,
        created_at: 1,
        updated_at: 2,
        last_status: 'up',
        last_status_change: 3,
        last_checked_at: 4,
      });
      expect(m.id).not.toBe(UNKNOWN_ID);
      expect(m).toMatchObject({
        created_at: nowSeconds(),
        updated_at: nowSeconds(),
        last_status: 'pending',
        last_status_change: nowSeconds(),
        last_checked_at: null,
      });
    });

    it('refuses unknown fields, a missing name and a missing or non-object body', async () => {
      const client = await account();
      expectValidationError(await client.post('/api/monitors', monitorBody({ colour: 'red' })), 'colour');
      expectValidationError(await client.post('/api/monitors', monitorBody({ name: undefined })), 'name');
      expectValidationError(await client.post('/api/monitors', monitorBody({ settings: undefined })), 'settings');
      expectValidationError(await client.post('/api/monitors', [monitorBody()]), '(body)');
      const empty = await client.post('/api/monitors', {});
      expectValidationError(empty, 'name');
      expect(empty.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'name',
        'regions',
        'settings',
      ]);
      expect((await client.get('/api/monitors')).body.data.pagination.total).toBe(0);
    });
  });

  describe('bounds', () => {
    let client: ApiClient;
    beforeAll(async () => {
      client = await account();
    });

    it.each([
      ['99 letters and an emoji (100 code points)', 'a'.repeat(99) + GRIN],
      ['100 emoji', GRIN.repeat(100)],
      ['100 letters', 'x'.repeat(100)],
      ['a single character', 'z'],
    ])('accepts a name of %s and returns it unchanged', async (_, name) => {
      const m = await createMonitor(client, { name });
      expect(m.name).toBe(name);
      expect((await client.get(`/api/monitors/${m.id}`)).body.data.name).toBe(name);
    });

    it.each([
      ['101 letters', 'a'.repeat(101)],
      ['100 letters and an emoji', 'a'.repeat(100) + GRIN],
      ['101 emoji', GRIN.repeat(101)],
      ['100 emoji each followed by U+FE0F', `${GRIN}\u{FE0F}`.repeat(100)],
      ['nothing', ''],
      ['blanks only', ' \t '],
      ['a control character', 'line\nbreak'],
      ['a NUL', 'nul\u0000'],
      ['a number', 42],
      ['null', null],
    ])('refuses a name of %s', async (_, name) => {
      expectValidationError(await client.post('/api/monitors', monitorBody({ name })), 'name');
    });

    it.each([
      ['check_interval', 10, 600, 9, 601],
      ['timeout', 5, 60, 4, 61],
      ['fail_threshold', 1, 10, 0, 11],
    ])('%s accepts %d and %d and refuses %d and %d', async (field, low, high, below, above) => {
      for (const value of [low, high]) {
        const m = await createMonitor(client, { [field]: value });
        expect(m[field]).toBe(value);
      }
      for (const value of [below, above, low + 0.5, String(low), null, true]) {
        expectValidationError(await client.post('/api/monitors', monitorBody({ [field]: value })), field);
      }
    });

    it('accepts all fifteen regions, in the order given', async () => {
      const reversed = [...ALL_REGIONS].reverse();
      const m = await createMonitor(client, { regions: reversed });
      expect(m.regions).toEqual(reversed);
      expect((await client.get(`/api/monitors/${m.id}`)).body.data.regions).toEqual(reversed);
    });

    it.each([
      ['missing', undefined],
      ['empty', []],
      ['an unknown region', ['us-east-1', 'mars-north-1']],
      ['a region in the wrong case', ['US-EAST-1']],
      ['a duplicate', ['eu-west-1', 'us-east-1', 'eu-west-1']],
      ['a string instead of a list', 'us-east-1'],
      ['a non-string item', [1]],
    ])('refuses regions that are %s', async (_, regions) => {
      expectValidationError(await client.post('/api/monitors', monitorBody({ regions })), 'regions');
    });
  });

  describe('settings', () => {
    let client: ApiClient;
    beforeAll(async () => {
      client = await account();
    });

    it.each([
      ['https', 'https://example.com/health?full=1#x'],
      ['https', 'http://example.com'],
      ['https', 'HTTPS://Example.COM:8443/Path'],
      ['https', 'https://192.0.2.10/'],
      ['https', 'https://[2001:db8::1]:8443/status'],
      ['tcp', 'tcp://db.example.com:5432'],
      ['tcp', 'tcp://192.0.2.1:1'],
      ['tcp', 'tcp://[2001:db8::1]:65535'],
      ['ping', 'ping://example.com'],
      ['ping', 'ping://192.0.2.1'],
      ['ping', 'ping://[2001:db8::1]'],
    ])('accepts %s url %s and returns it exactly as given', async (type, url) => {
      const m = await createMonitor(client, { settings: { [type]: { url } } });
      const expected = type === 'https' ? { url, check_certificate_expiration: false } : { url };
      expect(m.settings).toStrictEqual({ [type]: expected });
      expect((await client.get(`/api/monitors/${m.id}`)).body.data.settings).toStrictEqual({ [type]: expected });
    });

    it.each([
      ['https', 'ftp://example.com/file'],
      ['https', 'example.com'],
      ['https', 'https://'],
      ['https', 'https://user:secret@example.com/'],
      ['https', 'https://user@example.com/'],
      ['https', 'https://exa mple.com/'],
      ['https', 'tcp://example.com:80'],
      ['https', 42],
      ['tcp', 'tcp://example.com'],
      ['tcp', 'tcp://example.com:0'],
      ['tcp', 'tcp://example.com:65536'],
      ['tcp', 'tcp://example.com:80/path'],
      ['tcp', 'tcp://:80'],
      ['tcp', 'tcp://2001:db8::1:80'],
      ['tcp', 'http://example.com:80'],
      ['ping', 'ping://'],
      ['ping', 'ping://example.com:80'],
      ['ping', 'ping://2001:db8::1'],
      ['ping', 'ping://[not-an-ip]'],
      ['ping', 'ping://999.1.1.1'],
      ['ping', 'https://example.com'],
    ])('refuses %s url %j', async (type, url) => {
      const res = await client.post('/api/monitors', monitorBody({ settings: { [type]: { url } } }));
      expectValidationError(res, `settings.${type}.url`);
    });

    it.each([
      ['no type key', {}],
      ['two type keys', { https: { url: 'https://example.com' }, ping: { url: 'ping://example.com' } }],
      ['an unknown type key', { smtp: { url: 'smtp://example.com' } }],
      ['a list', [{ https: { url: 'https://example.com' } }]],
      ['a string', 'https://example.com'],
    ])('refuses settings with %s', async (_, settings) => {
      expectValidationError(await client.post('/api/monitors', monitorBody({ settings })), 'settings');
    });

    it('refuses a type key whose value is not an object, or lacks the url', async () => {
      expectValidationError(
        await client.post('/api/monitors', monitorBody({ settings: { https: 'https://example.com' } })),
        'settings.https',
      );
      expectValidationError(
        await client.post('/api/monitors', monitorBody({ settings: { ping: {} } })),
        'settings.ping.url',
      );
    });

    it('refuses fields that do not belong to the type', async () => {
      expectValidationError(
        await client.post(
          '/api/monitors',
          monitorBody({ settings: { tcp: { url: 'tcp://example.com:22', check_certificate_expiration: true } } }),
        ),
        'settings.tcp.check_certificate_expiration',
      );
      expectValidationError(
        await client.post(
          '/api/monitors',
          monitorBody({ settings: { https: { url: 'https://example.com', retries: 3 } } }),
        ),
        'settings.https.retries',
      );
    });

    it('round-trips every HTTPS assertion field, and returns none that was not set', async () => {
      const https = {
        url: 'https://api.example.com/health',
        check_certificate_expiration: true,
        http_method: 'POST',
        http_statuses: '200-299,301',
        request_headers: 'X-Token: abc123\nAccept: application/json',
        request_body: '{"ping":true}\n',
        response_body: '"status":"ok"',
        follow_redirect: false,
        response_body_absent: 'maintenance',
        json_assertions: [
          { path: '$.status', op: 'eq', value: 'ok' },
          { path: '$.checks[*]', op: 'exists' },
          { path: '$.build', op: 'eq', value: { sha: 'abc', dirty: false } },
        ],
        ignore_tls_errors: true,
      };
      const m = await createMonitor(client, { settings: { https } });
      expect(m.settings).toStrictEqual({ https });
      expect((await client.get(`/api/monitors/${m.id}`)).body.data.settings).toStrictEqual({ https });

      const partial = await createMonitor(client, {
        settings: { https: { url: 'https://example.com', http_method: 'HEAD' } },
      });
      expect(partial.settings).toStrictEqual({
        https: { url: 'https://example.com', check_certificate_expiration: false, http_method: 'HEAD' },
      });
    });

    it.each(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('accepts http_method %s', async (method) => {
      const m = await createMonitor(client, {
        settings: { https: { url: 'https://example.com', http_method: method } },
      });
      expect(m.settings.https.http_method).toBe(method);
    });

    it.each([
      ['http_method', 'FETCH'],
      ['http_method', 'get'],
      ['http_method', 1],
      ['http_statuses', '600'],
      ['http_statuses', '99'],
      ['http_statuses', '299-200'],
      ['http_statuses', '200-299,,301'],
      ['http_statuses', 'ok'],
      ['http_statuses', 200],
      ['request_headers', 'X-A: one\rX-Injected: two'],
      ['request_headers', 'X-A: one\u0000'],
      ['request_headers', 'X-A: bell\u0007'],
      ['request_headers', 'Bad Name: value'],
      ['request_headers', 'no colon here'],
      ['request_headers', ': no name'],
      ['request_headers', Array.from({ length: 51 }, (_, i) => `X-H${i}: v`).join('\n')],
      ['request_headers', ['X-A: one']],
      ['request_body', 'nul\u0000'],
      ['request_body', 7],
      ['response_body', ''],
      ['response_body', false],
      ['follow_redirect', 'yes'],
      ['follow_redirect', 1],
      ['check_certificate_expiration', 'true'],
      ['response_body_absent', ''],
      ['json_assertions', [{ path: 'status', op: 'eq', value: 'ok' }]],
      ['json_assertions', [{ path: '$.a', op: 'lt', value: 'ten' }]],
      ['json_assertions', { path: '$.a', op: 'exists' }],
      ['ignore_tls_errors', 'false'],
    ])('refuses %s = %j', async (field, value) => {
      const res = await client.post(
        '/api/monitors',
        monitorBody({ settings: { https: { url: 'https://example.com', [field]: value } } }),
      );
      expectValidationError(res, `settings.https.${field}`);
    });

    it('accepts CRLF-separated request headers and 50 of them', async () => {
      const fifty = Array.from({ length: 50 }, (_, i) => `X-H${i}: v`).join('\r\n');
      const m = await createMonitor(client, {
        settings: { https: { url: 'https://example.com', request_headers: fifty } },
      });
      expect(m.settings.https.request_headers).toBe(fifty);
    });

    it('refuses framing, hop-by-hop and pseudo-headers and a second Host, naming the line and header', async () => {
      const cases: [string, string][] = [
        ['X-A: 1\nContent-Length: 0', 'line 2: Content-Length may not be set'],
        ['Transfer-Encoding: chunked', 'line 1: Transfer-Encoding may not be set'],
        ['X-A: 1\r\nX-B: 2\r\nconnection: keep-alive', 'line 3: connection may not be set'],
        ['Keep-Alive: timeout=5', 'line 1: Keep-Alive may not be set'],
        ['Proxy-Connection: keep-alive', 'line 1: Proxy-Connection may not be set'],
        ['TE: trailers', 'line 1: TE may not be set'],
        ['Trailer: X-Sum', 'line 1: Trailer may not be set'],
        ['Upgrade: h2c', 'line 1: Upgrade may not be set'],
        ['Expect: 100-continue', 'line 1: Expect may not be set'],
        [':authority: other.example', 'line 1: :authority is an HTTP/2 pseudo-header'],
        ['Host: a.example\nHost: b.example', 'line 2: Host may be given only once'],
        ['Host: a.example, b.example', 'line 1: Host must be a host name or IP address'],
      ];
      for (const [request_headers, message] of cases) {
        const res = await client.post(
          '/api/monitors',
          monitorBody({ settings: { https: { url: 'https://example.com', request_headers } } }),
        );
        expectValidationError(res, 'settings.https.request_headers');
        expect(res.body.error.details).toEqual([
          { field: 'settings.https.request_headers', message: expect.stringContaining(message) },
        ]);
      }
      // One Host naming a virtual host stays allowed.
      const m = await createMonitor(client, {
        settings: { https: { url: 'http://203.0.113.7/', request_headers: 'Host: www.example.com:8080' } },
      });
      expect(m.settings.https.request_headers).toBe('Host: www.example.com:8080');
    });
  });

  describe('contacts', () => {
    it('accepts the account’s own contacts in the order given and refuses anyone else’s', async () => {
      const { client } = await c.newAccount('owner');
      const { client: other } = await c.newAccount('other');
      const first = await createContact(client, 'first');
      const second = await createContact(client, 'second');
      const foreign = await createContact(other, 'foreign');

      const m = await createMonitor(client, { contacts: [second, first] });
      expect(m.contacts).toEqual([second, first]);
      expect((await client.get(`/api/monitors/${m.id}`)).body.data.contacts).toEqual([second, first]);

      expectValidationError(
        await client.post('/api/monitors', monitorBody({ contacts: [first, foreign] })),
        'contacts[1]',
      );
      expectValidationError(await client.post('/api/monitors', monitorBody({ contacts: [UNKNOWN_ID] })), 'contacts[0]');
      expectValidationError(await client.post('/api/monitors', monitorBody({ contacts: ['nope'] })), 'contacts');
      expectValidationError(await client.post('/api/monitors', monitorBody({ contacts: [first, first] })), 'contacts');
      expectValidationError(await client.post('/api/monitors', monitorBody({ contacts: first })), 'contacts');
      expectValidationError(await client.put(`/api/monitors/${m.id}`, { contacts: [foreign] }), 'contacts[0]');
      // Nothing was created or changed by the refused requests.
      const list = await client.get('/api/monitors');
      expect(list.body.data.monitors.map((x: { id: string }) => x.id)).toEqual([m.id]);
      expect(list.body.data.monitors[0].contacts).toEqual([second, first]);
    });

    it('drops a deleted contact from every monitor', async () => {
      const client = await account();
      const keep = await createContact(client, 'keep');
      const gone = await createContact(client, 'gone');
      const a = await createMonitor(client, { contacts: [gone, keep] });
      const b = await createMonitor(client, { contacts: [gone] });
      expect((await client.delete(`/api/contacts/${gone}`)).status).toBe(204);
      expect((await client.get(`/api/monitors/${a.id}`)).body.data.contacts).toEqual([keep]);
      expect((await client.get(`/api/monitors/${b.id}`)).body.data.contacts).toEqual([]);
      expectValidationError(await client.put(`/api/monitors/${b.id}`, { contacts: [gone] }), 'contacts[0]');
    });
  });

  describe('notification rules', () => {
    const DEFAULTS = { delay_seconds: 0, repeat_interval_seconds: 0, escalation: [] };

    it('are returned on every type with the defaults, stored as given, and replaced whole by PUT', async () => {
      const client = await account();
      const a = await createContact(client, 'a');
      const b = await createContact(client, 'b');
      const heartbeat = await client.post('/api/monitors', {
        name: 'beat',
        settings: { heartbeat: { period: 300, grace: 60 } },
      });
      expect(heartbeat.body.data.notification_rules).toEqual(DEFAULTS);
      const dns = await client.post(
        '/api/monitors',
        monitorBody({ settings: { dns: { url: 'dns://example.com', record_type: 'A' } } }),
      );
      expect(dns.body.data.notification_rules).toEqual(DEFAULTS);
      const rules = {
        delay_seconds: 120,
        repeat_interval_seconds: 900,
        escalation: [
          { after_seconds: 600, contacts: [b] },
          { after_seconds: 1800, contacts: [a, b] },
        ],
      };
      const m = await createMonitor(client, { contacts: [a], notification_rules: rules });
      expect(m.notification_rules).toEqual(rules);
      expect((await client.get(`/api/monitors/${m.id}`)).body.data.notification_rules).toEqual(rules);
      // Another field changes nothing of the rules; the rules, given, replace the stored ones whole.
      expect((await client.put(`/api/monitors/${m.id}`, { name: 'renamed' })).body.data.notification_rules).toEqual(
        rules,
      );
      const put = await client.put(`/api/monitors/${m.id}`, { notification_rules: { delay_seconds: 30 } });
      expect(put.body.data.notification_rules).toEqual({ ...DEFAULTS, delay_seconds: 30 });
      expect((await client.get(`/api/monitors/${m.id}`)).body.data.notification_rules).toEqual({
        ...DEFAULTS,
        delay_seconds: 30,
      });
    });

    it('refuses bad rules and other accounts’ contacts, naming the field, and changes nothing', async () => {
      const { client } = await c.newAccount('rules');
      const { client: other } = await c.newAccount('rules other');
      const own = await createContact(client, 'own');
      const foreign = await createContact(other, 'foreign');
      const step = (after_seconds: number, contacts: string[] = []) => ({ after_seconds, contacts });
      const refused = async (notification_rules: unknown, field: string) =>
        expectValidationError(await client.post('/api/monitors', monitorBody({ notification_rules })), field);
      await refused({ delay_seconds: 3601 }, 'notification_rules');
      await refused({ repeat_interval_seconds: 60 }, 'notification_rules');
      await refused({ escalation: [step(300), step(300)] }, 'notification_rules');
      await refused({ escalation: [step(59)] }, 'notification_rules');
      await refused({ escalation: [60, 120, 180, 240, 300, 360].map((s) => step(s)) }, 'notification_rules');
      await refused(
        { escalation: [step(60, [own]), step(120, [own, foreign])] },
        'notification_rules.escalation[1].contacts[1]',
      );
      await refused({ escalation: [step(60, [UNKNOWN_ID])] }, 'notification_rules.escalation[0].contacts[0]');
      const m = await createMonitor(client, {});
      expectValidationError(
        await client.put(`/api/monitors/${m.id}`, { notification_rules: { escalation: [step(60, [foreign])] } }),
        'notification_rules.escalation[0].contacts[0]',
      );
      const list = await client.get('/api/monitors');
      expect(list.body.data.monitors.map((x: { id: string }) => x.id)).toEqual([m.id]);
      expect(list.body.data.monitors[0].notification_rules).toEqual(DEFAULTS);
    });

    it('lists every monitor exactly as its own read shows it (every field, every kind)', async () => {
      // The list reads its rows with its own SQL (docs/decisions/0038-the-monitor-list-in-plain-sql.md);
      // a single read goes through the ORM. Both must give the same monitor.
      const { client } = await c.newAccount('list equals read');
      const first = await createContact(client, 'first');
      const second = await createContact(client, 'second');
      tick();
      const made = [
        await createMonitor(client, {
          name: 'Full https',
          settings: {
            https: {
              url: 'https://example.com/health',
              http_method: 'POST',
              request_body: '{"a":1}',
              request_headers: 'X-One: 1\nX-Two: 2',
              http_statuses: '200-299',
              response_body: 'ok',
              check_certificate_expiration: true,
            },
          },
          regions: ['eu-west-1', 'us-east-1'],
          contacts: [second, first],
          check_interval: 60,
          timeout: 10,
          fail_threshold: 3,
          notification_rules: {
            delay_seconds: 120,
            repeat_interval_seconds: 3600,
            escalation: [{ after_seconds: 600, contacts: [first] }],
          },
        }),
        await createMonitor(client, { name: `Ping ${GRIN}`, settings: { ping: { url: 'ping://host.example.com' } } }),
        (
          await client.post('/api/monitors', {
            name: 'Heartbeat',
            settings: { heartbeat: { period: 300, grace: 60 } },
            contacts: [first],
          })
        ).body.data,
      ];
      expect(made[2].settings.heartbeat.ping_url).toMatch(/^http/);
      tick();
      expect((await client.post(`/api/monitors/${made[1]!.id}/pause`)).status).toBe(200);
      for (const query of [
        '',
        '?order=asc&sort=name',
        '?active=false',
        '?monitor_type=heartbeat',
        '?per_page=1&page=3',
      ]) {
        const listed = await client.get(`/api/monitors${query}`);
        expect(listed.status).toBe(200);
        expect(listed.body.data.monitors.length).toBeGreaterThan(0);
        for (const monitor of listed.body.data.monitors) {
          expect(monitor).toStrictEqual((await client.get(`/api/monitors/${monitor.id}`)).body.data);
        }
      }
      const paused = await client.get('/api/monitors?active=false');
      expect(paused.body.data.monitors.map((m: { id: string }) => m.id)).toEqual([made[1]!.id]);
      expect(paused.body.data.pagination.total).toBe(1);
      const full = (await client.get('/api/monitors?monitor_type=https')).body.data.monitors[0];
      expect(full.contacts).toEqual([second, first]);
      expect(full.regions).toEqual(['eu-west-1', 'us-east-1']);
      expect(full.active).toBe(true);
    });

    it('drops a deleted contact from every escalation step (the step stays)', async () => {
      const client = await account();
      const keep = await createContact(client, 'keep');
      const gone = await createContact(client, 'gone');
      const m = await createMonitor(client, {
        notification_rules: {
          escalation: [
            { after_seconds: 60, contacts: [gone] },
            { after_seconds: 120, contacts: [keep, gone] },
          ],
        },
      });
      expect((await client.delete(`/api/contacts/${gone}`)).status).toBe(204);
      expect((await client.get(`/api/monitors/${m.id}`)).body.data.notification_rules.escalation).toEqual([
        { after_seconds: 60, contacts: [] },
        { after_seconds: 120, contacts: [keep] },
      ]);
      // And the monitor stays writable as it is.
      expect((await client.put(`/api/monitors/${m.id}`, { name: 'still fine' })).status).toBe(200);
    });
  });

  describe('list', () => {
    const NAMES = ['delta', 'Alpha', 'echo', 'charlie', 'Golf', 'bravo', 'foxtrot'];
    let client: ApiClient;
    /** Ids in creation order. */
    let ids: string[];
    let byId: Map<string, any>;

    beforeAll(async () => {
      client = await account();
      ids = [];
      for (const [i, name] of NAMES.entries()) {
        tick(10);
        const settings =
          i % 3 === 0
            ? { https: { url: `https://example.com/${i}` } }
            : i % 3 === 1
              ? { tcp: { url: `tcp://example.com:${1000 + i}` } }
              : { ping: { url: `ping://host${i}.example.com` } };
        ids.push((await createMonitor(client, { name, settings })).id);
      }
      // Update in reverse creation order, so updated_at order differs from created_at order;
      // then pause two (which also moves their updated_at).
      for (const id of [...ids].reverse()) {
        tick(10);
        expect((await client.put(`/api/monitors/${id}`, { timeout: 20 })).status).toBe(200);
      }
      for (const id of [ids[1], ids[4]]) {
        tick(10);
        expect((await client.post(`/api/monitors/${id}/pause`)).status).toBe(200);
      }
      const all = await client.get('/api/monitors?per_page=100');
      byId = new Map(all.body.data.monitors.map((m: { id: string }) => [m.id, m]));
    });

    const listIds = async (query: string): Promise<string[]> => {
      const res = await client.get(`/api/monitors${query}`);
      expect(res.status).toBe(200);
      return res.body.data.monitors.map((m: { id: string }) => m.id);
    };

    it('defaults to page 1, 50 per page, newest first, with exactly the documented envelope', async () => {
      const res = await client.get('/api/monitors');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
      expect(Object.keys(res.body.data).sort()).toEqual(['monitors', 'pagination']);
      expect(res.body.data.pagination).toStrictEqual({
        page: 1,
        per_page: 50,
        total: 7,
        total_pages: 1,
        has_next: false,
        has_prev: false,
      });
      expect(res.body.data.monitors.map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
      for (const m of res.body.data.monitors) {
        expect(Object.keys(m).sort()).toEqual(MONITOR_FIELDS);
        expect((await client.get(`/api/monitors/${m.id}`)).body.data).toStrictEqual(m);
      }
    });

    it('pages through 7 monitors 3 at a time with truthful pagination', async () => {
      const pages = [
        { page: 1, has_next: true, has_prev: false, ids: [ids[6], ids[5], ids[4]] },
        { page: 2, has_next: true, has_prev: true, ids: [ids[3], ids[2], ids[1]] },
        { page: 3, has_next: false, has_prev: true, ids: [ids[0]] },
        { page: 4, has_next: false, has_prev: true, ids: [] },
        { page: 1000, has_next: false, has_prev: true, ids: [] },
      ];
      for (const p of pages) {
        const res = await client.get(`/api/monitors?per_page=3&page=${p.page}`);
        expect(res.status).toBe(200);
        expect(res.body.data.pagination).toStrictEqual({
          page: p.page,
          per_page: 3,
          total: 7,
          total_pages: 3,
          has_next: p.has_next,
          has_prev: p.has_prev,
        });
        expect(res.body.data.monitors.map((m: { id: string }) => m.id)).toEqual(p.ids);
      }
    });

    it('answers the largest page number with an empty page, and refuses one more', async () => {
      const last = await client.get('/api/monitors?page=2147483647');
      expect(last.status).toBe(200);
      expect(last.body.data.monitors).toEqual([]);
      expect(last.body.data.pagination).toStrictEqual({
        page: 2147483647,
        per_page: 50,
        total: 7,
        total_pages: 1,
        has_next: false,
        has_prev: true,
      });
      expectValidationError(await client.get('/api/monitors?page=2147483648'), 'page');
    });

    it('accepts per_page 1 and 100', async () => {
      const one = await client.get('/api/monitors?per_page=1&page=7');
      expect(one.body.data.pagination).toStrictEqual({
        page: 7,
        per_page: 1,
        total: 7,
        total_pages: 7,
        has_next: false,
        has_prev: true,
      });
      expect(one.body.data.monitors.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
      const hundred = await client.get('/api/monitors?per_page=100');
      expect(hundred.body.data.pagination.per_page).toBe(100);
      expect(hundred.body.data.monitors).toHaveLength(7);
    });

    it('reports an empty account truthfully', async () => {
      const empty = await account();
      const res = await empty.get('/api/monitors');
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({
        status: 'ok',
        data: {
          monitors: [],
          pagination: { page: 1, per_page: 50, total: 0, total_pages: 0, has_next: false, has_prev: false },
        },
      });
    });

    it.each([
      ['per_page=101', 'per_page'],
      ['per_page=0', 'per_page'],
      ['per_page=-1', 'per_page'],
      ['per_page=', 'per_page'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=1e2', 'page'],
      ['page=abc', 'page'],
      ['page=1&page=2', 'page'],
      ['sort=id', 'sort'],
      ['sort=NAME', 'sort'],
      ['order=up', 'order'],
      ['active=yes', 'active'],
      ['active=1', 'active'],
      ['monitor_type=smtp', 'monitor_type'],
      ['monitor_type=HTTPS', 'monitor_type'],
      ['colour=red', 'colour'],
    ])('refuses the query %s', async (query, field) => {
      expectValidationError(await client.get(`/api/monitors?${query}`), field);
    });

    it('sorts by name, created_at and updated_at in both directions', async () => {
      const nameOrder = [...ids].sort((a, b) =>
        byId.get(a).name.toLowerCase().localeCompare(byId.get(b).name.toLowerCase()),
      );
      expect(nameOrder.map((id) => byId.get(id).name)).toEqual([
        'Alpha',
        'bravo',
        'charlie',
        'delta',
        'echo',
        'foxtrot',
        'Golf',
      ]);
      expect(await listIds('?sort=name&order=asc')).toEqual(nameOrder);
      expect(await listIds('?sort=name')).toEqual([...nameOrder].reverse());
      expect(await listIds('?sort=name&order=desc')).toEqual([...nameOrder].reverse());

      expect(await listIds('?sort=created_at&order=asc')).toEqual(ids);
      expect(await listIds('?sort=created_at&order=desc')).toEqual([...ids].reverse());
      expect(await listIds('?order=asc')).toEqual(ids);

      // Updated in reverse creation order, then ids[1] and ids[4] paused (last).
      const updatedAsc = [6, 5, 3, 2, 0, 1, 4].map((i) => ids[i] as string);
      const updatedAt = updatedAsc.map((id) => byId.get(id).updated_at);
      expect(updatedAt).toEqual([...updatedAt].sort((a, b) => a - b));
      expect(new Set(updatedAt).size).toBe(7);
      expect(await listIds('?sort=updated_at&order=asc')).toEqual(updatedAsc);
      expect(await listIds('?sort=updated_at&order=desc')).toEqual([...updatedAsc].reverse());
      expect(await listIds('?sort=updated_at&order=asc&per_page=2&page=2')).toEqual(updatedAsc.slice(2, 4));
    });

    it('reads every page of every sort and order, from either end, as one read of the whole list (ties by id)', async () => {
      // A fresh account, every monitor written in the same second: created_at and updated_at all
      // tie, and names tie when lowered, so only the id decides between them.
      const tied = await account();
      const names = ['same', 'Same', 'SAME', 'other', 'Other', 'zed', 'alpha', 'Alpha', 'same', 'mid', 'x'];
      for (const [i, name] of names.entries()) {
        const monitor = await createMonitor(tied, {
          name,
          settings: { tcp: { url: `tcp://example.com:${2000 + i}` } },
        });
        if (i % 4 === 0) expect((await tied.post(`/api/monitors/${monitor.id as string}/pause`)).status).toBe(200);
      }
      const read = async (query: string) => {
        const res = await tied.get(`/api/monitors?${query}`);
        expect(res.status).toBe(200);
        return res.body.data as { monitors: any[]; pagination: { total: number } };
      };
      for (const sort of ['name', 'created_at', 'updated_at'] as const) {
        for (const order of ['asc', 'desc'] as const) {
          for (const filter of ['', '&active=true']) {
            const query = `sort=${sort}&order=${order}${filter}`;
            const whole = await read(`${query}&per_page=100`);
            const key = (m: any) => (sort === 'name' ? (m.name as string).toLowerCase() : (m[sort] as number));
            const sign = order === 'asc' ? 1 : -1;
            const expected = [...whole.monitors].sort((a, b) => {
              const [ka, kb] = [key(a), key(b)];
              return sign * (ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
            });
            expect(whole.monitors.map((m) => m.id)).toEqual(expected.map((m) => m.id));
            expect(whole.pagination.total).toBe(filter === '' ? 11 : 8);
            for (const perPage of [1, 2, 3, 4, 5]) {
              const pages: string[] = [];
              for (let page = 1; page <= Math.ceil(whole.pagination.total / perPage); page++) {
                pages.push(...(await read(`${query}&per_page=${perPage}&page=${page}`)).monitors.map((m) => m.id));
              }
              expect(pages).toEqual(whole.monitors.map((m) => m.id));
            }
          }
        }
      }
      // The count follows a delete.
      const gone = (await read('per_page=1')).monitors[0].id as string;
      expect((await tied.delete(`/api/monitors/${gone}`)).status).toBe(204);
      expect((await read('per_page=1')).pagination.total).toBe(10);
    });

    it('filters by active and monitor_type, with pagination counting the filtered set', async () => {
      const paused = [ids[1], ids[4]];
      const running = ids.filter((id) => !paused.includes(id));
      expect(await listIds('?active=false&order=asc')).toEqual(paused);
      expect(await listIds('?active=true&order=asc')).toEqual(running);
      const https = [ids[0], ids[3], ids[6]];
      const tcp = [ids[1], ids[4]];
      const ping = [ids[2], ids[5]];
      expect(await listIds('?monitor_type=https&order=asc')).toEqual(https);
      expect(await listIds('?monitor_type=tcp&order=asc')).toEqual(tcp);
      expect(await listIds('?monitor_type=ping&order=asc')).toEqual(ping);
      expect(await listIds('?monitor_type=tcp&active=true')).toEqual([]);
      // https monitors are delta (0), charlie (3) and foxtrot (6).
      expect(await listIds('?monitor_type=https&active=true&sort=name&order=asc')).toEqual([ids[3], ids[0], ids[6]]);

      const res = await client.get('/api/monitors?monitor_type=https&per_page=2&page=2');
      expect(res.body.data.pagination).toStrictEqual({
        page: 2,
        per_page: 2,
        total: 3,
        total_pages: 2,
        has_next: false,
        has_prev: true,
      });
      expect(res.body.data.monitors.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
    });
  });

  describe('update', () => {
    let client: ApiClient;
    beforeAll(async () => {
      client = await account();
    });

    const fresh = async (overrides: Record<string, unknown> = {}) => {
      tick();
      return createMonitor(client, overrides);
    };

    it.each([
      ['name', 'Renamed ' + GRIN],
      ['active', false],
      ['check_interval', 600],
      ['timeout', 5],
      ['fail_threshold', 10],
      ['regions', ['sa-east-1', 'af-south-1']],
    ])('PUT with only %s changes only that field and updated_at', async (field, value) => {
      const before = await fresh();
      tick(5);
      const res = await client.put(`/api/monitors/${before.id}`, { [field]: value });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
      const expected = { ...before, [field]: value, updated_at: nowSeconds() };
      expect(res.body.data).toStrictEqual(expected);
      expect((await client.get(`/api/monitors/${before.id}`)).body.data).toStrictEqual(expected);
    });

    it.each([['null'], ['[]'], ['"x"'], ['42']])(
      'PUT with the JSON body %s is 422 and changes nothing',
      async (raw) => {
        const before = await fresh();
        tick(5);
        const res = await client.request('PUT', `/api/monitors/${before.id}`, {
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status).toBe(422);
        expect(res.body.error.details).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
        expect((await client.get(`/api/monitors/${before.id}`)).body.data).toStrictEqual(before);
      },
    );

    it('PUT of a whole GET body succeeds and changes nothing but updated_at', async () => {
      const contact = await createContact(client);
      const before = await fresh({
        name: 'Round trip',
        contacts: [contact],
        regions: ['eu-north-1', 'us-east-2'],
        settings: {
          https: {
            url: 'https://example.com/rt',
            check_certificate_expiration: true,
            http_statuses: '200,204',
            request_headers: 'X-A: 1',
          },
        },
      });
      tick(5);
      const got = (await client.get(`/api/monitors/${before.id}`)).body.data;
      const res = await client.put(`/api/monitors/${before.id}`, got);
      expect(res.status).toBe(200);
      expect(res.body.data).toStrictEqual({ ...before, updated_at: nowSeconds() });
      expect((await client.get(`/api/monitors/${before.id}`)).body.data).toStrictEqual({
        ...before,
        updated_at: nowSeconds(),
      });
    });

    it('ignores read-only fields in a PUT body', async () => {
      const before = await fresh();
      tick();
      const res = await client.put(`/api/monitors/${before.id}`, {
        id: UNKNOWN_ID,
        created_at: 1,
        updated_at: 1,
        last_status: 'down',
        last_status_change: 1,
        last_checked_at: 1,
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toStrictEqual({ ...before, updated_at: nowSeconds() });
      expectError(await client.get(`/api/monitors/${UNKNOWN_ID}`), 404, 'MONITOR_NOT_FOUND');
    });

    it('replaces settings whole, including a change of type', async () => {
      const before = await fresh({
        settings: {
          https: { url: 'https://example.com', http_method: 'POST', request_body: 'x', follow_redirect: false },
        },
      });
      tick();
      const toTcp = await client.put(`/api/monitors/${before.id}`, {
        settings: { tcp: { url: 'tcp://example.com:25' } },
      });
      expect(toTcp.status).toBe(200);
      expect(toTcp.body.data).toStrictEqual({
        ...before,
        settings: { tcp: { url: 'tcp://example.com:25' } },
        updated_at: nowSeconds(),
      });
      expect(await client.get('/api/monitors?monitor_type=tcp')).toMatchObject({
        body: { data: { monitors: [{ id: before.id }] } },
      });

      const toHttps = await client.put(`/api/monitors/${before.id}`, {
        settings: { https: { url: 'https://example.org' } },
      });
      expect(toHttps.body.data.settings).toStrictEqual({
        https: { url: 'https://example.org', check_certificate_expiration: false },
      });
      expect((await client.get(`/api/monitors/${before.id}`)).body.data.settings).toStrictEqual({
        https: { url: 'https://example.org', check_certificate_expiration: false },
      });
    });

    it('replaces arrays rather than merging them', async () => {
      const [a, b, d] = [
        await createContact(client, 'a'),
        await createContact(client, 'b'),
        await createContact(client, 'd'),
      ];
      const before = await fresh({ regions: ['us-east-1', 'eu-west-1'], contacts: [a, b] });
      const put = (body: unknown) => client.put(`/api/monitors/${before.id}`, body);

      expect((await put({ regions: ['ap-east-1'] })).body.data.regions).toEqual(['ap-east-1']);
      expect((await put({ contacts: [d, b] })).body.data.contacts).toEqual([d, b]);
      expect((await client.get(`/api/monitors/${before.id}`)).body.data).toMatchObject({
        regions: ['ap-east-1'],
        contacts: [d, b],
      });
      expect((await put({ contacts: [] })).body.data.contacts).toEqual([]);
      expect((await client.get(`/api/monitors/${before.id}`)).body.data.contacts).toEqual([]);
      // Leaving contacts out keeps them.
      await put({ contacts: [a] });
      expect((await put({ name: 'still a' })).body.data.contacts).toEqual([a]);
    });

    it('refuses invalid values and leaves the monitor untouched', async () => {
      const before = await fresh();
      tick();
      const cases: [Record<string, unknown>, string][] = [
        [{ name: '' }, 'name'],
        [{ name: 'x'.repeat(101) }, 'name'],
        [{ regions: [] }, 'regions'],
        [{ regions: ['nowhere'] }, 'regions'],
        [{ check_interval: 9 }, 'check_interval'],
        [{ timeout: 61 }, 'timeout'],
        [{ fail_threshold: 0 }, 'fail_threshold'],
        [{ active: 'false' }, 'active'],
        [{ settings: {} }, 'settings'],
        [{ settings: { tcp: { url: 'tcp://example.com' } } }, 'settings.tcp.url'],
        [{ name: null }, 'name'],
        [{ colour: 'red' }, 'colour'],
      ];
      for (const [body, field] of cases) {
        expectValidationError(await client.put(`/api/monitors/${before.id}`, body), field);
      }
      expectValidationError(await client.put(`/api/monitors/${before.id}`, ['name']), '(body)');
      expect((await client.get(`/api/monitors/${before.id}`)).body.data).toStrictEqual(before);
    });

    it('reports every problem of a body at once', async () => {
      const before = await fresh();
      const res = await client.put(`/api/monitors/${before.id}`, { name: '', timeout: 0, regions: [] });
      expectValidationError(res, 'name');
      expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'name',
        'regions',
        'timeout',
      ]);
    });

    it('PUT with an empty body changes only updated_at', async () => {
      const before = await fresh();
      tick();
      const res = await client.put(`/api/monitors/${before.id}`, {});
      expect(res.status).toBe(200);
      expect(res.body.data).toStrictEqual({ ...before, updated_at: nowSeconds() });
    });

    it('PUT on a missing monitor is 404 even when the body is invalid', async () => {
      for (const body of [{ name: '' }, { colour: 'red' }, { name: 'fine' }]) {
        expectError(await client.put(`/api/monitors/${UNKNOWN_ID}`, body), 404, 'MONITOR_NOT_FOUND');
        expectError(await client.put('/api/monitors/not-an-id', body), 404, 'MONITOR_NOT_FOUND');
      }
    });
  });

  describe('delete', () => {
    it('answers 204 with no body, then the monitor is gone', async () => {
      const client = await account();
      const contact = await createContact(client);
      const m = await createMonitor(client, { contacts: [contact] });
      const keep = await createMonitor(client);
      const res = await client.delete(`/api/monitors/${m.id}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectError(await client.get(`/api/monitors/${m.id}`), 404, 'MONITOR_NOT_FOUND');
      expectError(await client.delete(`/api/monitors/${m.id}`), 404, 'MONITOR_NOT_FOUND');
      expectError(await client.put(`/api/monitors/${m.id}`, { name: 'back?' }), 404, 'MONITOR_NOT_FOUND');
      const list = await client.get('/api/monitors');
      expect(list.body.data.monitors.map((x: { id: string }) => x.id)).toEqual([keep.id]);
      expect(list.body.data.pagination.total).toBe(1);
      // The contact itself survives the monitor.
      expect((await client.get(`/api/contacts/${contact}`)).status).toBe(200);
    });
  });

  describe('pause and resume', () => {
    it('return exactly id, name, active and updated_at, and change nothing else', async () => {
      const client = await account();
      const before = await createMonitor(client, { name: 'Pausable' });

      tick(3);
      const paused = await client.post(`/api/monitors/${before.id}/pause`);
      expect(paused.status).toBe(200);
      expect(paused.body).toStrictEqual({
        status: 'ok',
        data: { id: before.id, name: 'Pausable', active: false, updated_at: nowSeconds() },
      });
      expect((await client.get(`/api/monitors/${before.id}`)).body.data).toStrictEqual({
        ...before,
        active: false,
        updated_at: nowSeconds(),
      });

      tick(3);
      const again = await client.post(`/api/monitors/${before.id}/pause`);
      expect(again.status).toBe(200);
      expect(again.body.data).toStrictEqual({
        id: before.id,
        name: 'Pausable',
        active: false,
        updated_at: nowSeconds(),
      });

      tick(3);
      const resumed = await client.post(`/api/monitors/${before.id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body).toStrictEqual({
        status: 'ok',
        data: { id: before.id, name: 'Pausable', active: true, updated_at: nowSeconds() },
      });
      expect((await client.get(`/api/monitors/${before.id}`)).body.data).toStrictEqual({
        ...before,
        updated_at: nowSeconds(),
      });
    });

    it('resume answers 402 SUBSCRIPTION_NOT_ACTIVE while the subscription is inactive', async () => {
      const { accountId, client } = await c.newAccount('lapsed');
      const m = await createMonitor(client, { active: false });
      const accounts = c.app.get(AccountsService);
      await accounts.setSubscription(accountId, 'inactive');
      tick();
      expectError(await client.post(`/api/monitors/${m.id}/resume`), 402, 'SUBSCRIPTION_NOT_ACTIVE');
      expect((await client.get(`/api/monitors/${m.id}`)).body.data).toStrictEqual(m);
      // An unknown monitor is still 404, not 402.
      expectError(await client.post(`/api/monitors/${UNKNOWN_ID}/resume`), 404, 'MONITOR_NOT_FOUND');

      await accounts.setSubscription(accountId, 'active');
      const resumed = await client.post(`/api/monitors/${m.id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body.data.active).toBe(true);
    });
  });

  describe('not found', () => {
    it('answers the same 404, byte for byte, for malformed, unknown and foreign ids', async () => {
      const { client } = await c.newAccount('reader');
      const { client: owner } = await c.newAccount('owner');
      const foreign = await createMonitor(owner, { name: 'Not yours' });
      const deleted = await createMonitor(client);
      expect((await client.delete(`/api/monitors/${deleted.id}`)).status).toBe(204);

      const ids = [
        UNKNOWN_ID,
        foreign.id,
        deleted.id,
        'not-an-id',
        foreign.id.toUpperCase(),
        `${foreign.id}0`,
        foreign.id.slice(0, 23),
        'g'.repeat(24),
        '%20',
        'a'.repeat(300),
        'f'.repeat(4000),
      ];
      const operations: [string, (id: string) => string, unknown][] = [
        ['GET', (id) => `/api/monitors/${id}`, undefined],
        ['PUT', (id) => `/api/monitors/${id}`, { name: 'Taken over' }],
        ['PUT', (id) => `/api/monitors/${id}`, { name: '' }],
        ['DELETE', (id) => `/api/monitors/${id}`, undefined],
        ['POST', (id) => `/api/monitors/${id}/pause`, undefined],
        ['POST', (id) => `/api/monitors/${id}/resume`, undefined],
      ];
      let reference: { text: string; type: string | null } | undefined;
      for (const [method, path, json] of operations) {
        for (const id of ids) {
          const res = await client.request(method, path(id), { json });
          expect({ method, id, status: res.status }).toEqual({ method, id, status: 404 });
          reference ??= { text: res.text, type: res.headers.get('content-type') };
          expect({ method, id, text: res.text, type: res.headers.get('content-type') }).toEqual({
            method,
            id,
            ...reference,
          });
        }
      }
      expect(JSON.parse(reference!.text)).toStrictEqual({
        status: 'error',
        error: { code: 'MONITOR_NOT_FOUND', message: expect.any(String) },
      });
      // The other account's monitor is untouched.
      expect((await owner.get(`/api/monitors/${foreign.id}`)).body.data).toStrictEqual(foreign);
    });
  });
});
