import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { completeDetails } from '../../apps/coordinator/src/contacts/channels.js';
import { ContactsService } from '../../apps/coordinator/src/contacts/contacts.service.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { expectError, UNKNOWN_ID } from '../support/monitor-fixtures.js';
import { SPEC_PERMISSIONS } from '../support/spec-lists.js';
import { testPki } from '../support/tls.js';

/** The placeholder monitor of contact.test events (docs/decisions/0011-notification-channels.md §5). */
const TEST_MONITOR_ID = '000000000000000000000000';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
/** A credential embedded in the webhook URL, as many receivers do: never shown in an answer. */
const URL_TOKEN = 'Tok3nInTheUrl9f8e7d6c5b4a';

/**
 * POST /api/contacts/{id}/test against real destinations on 127.0.0.1: a webhook receiver
 * that can answer anything, a Web Push service (https, test CA), and email without an SMTP
 * relay. The test is synchronous: 200 when the destination accepted, 422 naming why not.
 */
describe.each(testDatabases())('POST /api/contacts/{id}/test on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let dir: string;
  let accountId: string;
  let api: ApiClient;
  const hooks = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));
  const pushService = new FakeReceiver((_req, res) => reply(res, 201));

  beforeAll(async () => {
    db = await kind.create();
    dir = mkdtempSync(join(tmpdir(), 'picket-contact-test-'));
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, (await testPki()).ca);
    await hooks.start({ https: false });
    await pushService.start({ https: true });
    c = await startCoordinator(db.url, { env: { NOTIFY_CA_FILE: caFile } });
    ({ accountId, client: api } = await c.newAccount('contact tests'));
  });

  afterAll(async () => {
    await c?.close();
    await hooks.stop();
    await pushService.stop();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    hooks.requests.length = 0;
    pushService.requests.length = 0;
    hooks.handler = (_req, res) => reply(res, 200, { ok: true });
    pushService.handler = (_req, res) => reply(res, 201);
  });

  // ---- helpers ---------------------------------------------------------------------------

  async function test(id: string, client: ApiClient = api): Promise<ApiResponse> {
    return client.post(`/api/contacts/${id}/test`);
  }

  async function createContact(body: Record<string, unknown>, client: ApiClient = api): Promise<string> {
    const res = await client.post('/api/contacts', body);
    expect(res.status).toBe(201);
    return res.body.contact.id as string;
  }

  const webhookContact = (path: string, extra: Record<string, unknown> = {}, client: ApiClient = api) =>
    createContact(
      { name: 'Ops webhook', channel: 'webhook', details: { url: `${hooks.baseUrl}${path}`, ...extra } },
      client,
    );

  /**
   * A 422 CONTACT_TEST_FAILED (not VALIDATION_ERROR: the contact is valid, the destination said
   * no) whose message names `<class>: <reason>`, without `details`.
   */
  function expectRefusal(res: ApiResponse, cls: string): string {
    expectError(res, 422, 'CONTACT_TEST_FAILED');
    expect(res.body.error.details).toBeUndefined();
    const message = res.body.error.message as string;
    expect(message.startsWith(`Test notification not delivered: ${cls}: `)).toBe(true);
    return message;
  }

  // ---- webhook ---------------------------------------------------------------------------

  describe('a webhook contact', () => {
    it('gets one signed contact.test, and the answer says it was delivered', async () => {
      const path = '/hooks/signed';
      const id = await webhookContact(path, { secret: SECRET });
      const res = await test(id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', data: { message: expect.any(String) } });
      expect(res.body.data.message).toContain('Ops webhook');

      expect(hooks.requests).toHaveLength(1);
      const request = hooks.requests[0]!;
      expect({ method: request.method, url: request.url }).toEqual({ method: 'POST', url: path });
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.json).toStrictEqual({
        event: 'contact.test',
        incident_id: null,
        monitor_id: TEST_MONITOR_ID,
        monitor_name: expect.any(String),
        monitor_settings: expect.any(Object),
        timestamp: expect.any(Number),
        status: 'up',
        error: null,
      });
      const webhookId = request.headers['webhook-id'] as string;
      expect(webhookId).toMatch(/^msg_[0-9a-f]{24}$/);
      expect(request.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

      const headers = {
        'webhook-id': webhookId,
        'webhook-timestamp': request.headers['webhook-timestamp'] as string,
        'webhook-signature': request.headers['webhook-signature'] as string,
      };
      expect(new Webhook(SECRET).verify(request.raw.toString('utf8'), headers)).toEqual(request.json);
      const otherSecret = `whsec_${randomBytes(32).toString('base64')}`;
      expect(() => new Webhook(otherSecret).verify(request.raw.toString('utf8'), headers)).toThrow();

      // Every test is a new event: a new webhook-id.
      expect((await test(id)).status).toBe(200);
      expect(hooks.requests).toHaveLength(2);
      expect(hooks.requests[1]!.headers['webhook-id']).not.toBe(webhookId);
    });

    it('is sent unsigned when the contact has no secret', async () => {
      const id = await webhookContact('/hooks/unsigned');
      expect((await test(id)).status).toBe(200);
      expect(hooks.requests).toHaveLength(1);
      expect(hooks.requests[0]!.headers['webhook-signature']).toBeUndefined();
      expect(hooks.requests[0]!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/);
      expect((hooks.requests[0]!.json as { monitor_id: string }).monitor_id).toBe(TEST_MONITOR_ID);
    });

    it('accepts any 2xx', async () => {
      const id = await webhookContact('/hooks/2xx');
      for (const status of [200, 202, 204]) {
        hooks.handler = (_req, res) => reply(res, status);
        expect({ status, answer: (await test(id)).status }).toEqual({ status, answer: 200 });
      }
    });

    it('answers 422 naming disable and HTTP 410 when the receiver says the endpoint is gone', async () => {
      const id = await webhookContact('/hooks/gone');
      hooks.handler = (_req, res) => reply(res, 410, { error: 'gone: do not show me to users' });
      const res = await test(id);
      const message = expectRefusal(res, 'disable');
      expect(message).toContain('HTTP 410');
      expect(res.text).not.toContain('do not show me');
      expect(hooks.requests).toHaveLength(1);
    });

    it.each([
      [500, 'HTTP 500'],
      [503, 'HTTP 503'],
      [429, 'HTTP 429'],
      [302, 'HTTP 302'],
    ])('answers 422 naming retry when the receiver answers %i (sent once, not retried)', async (status, detail) => {
      const id = await webhookContact(`/hooks/${status}`);
      hooks.handler = (_req, res) => reply(res, status, { error: 'provider body' }, { 'retry-after': '1' });
      const res = await test(id);
      expect(expectRefusal(res, 'retry')).toContain(detail);
      expect(res.text).not.toContain('provider body');
      expect(hooks.requests).toHaveLength(1);
    });

    it('answers 422 naming bug when the receiver refuses the body as too large (413)', async () => {
      const id = await webhookContact('/hooks/413');
      hooks.handler = (_req, res) => reply(res, 413);
      expect(expectRefusal(await test(id), 'bug')).toContain('HTTP 413');
    });

    it('answers 422 naming retry when nothing listens at the address', async () => {
      const gone = await new FakeReceiver((_req, res) => reply(res, 200)).start({ https: false });
      const url = `${gone.baseUrl}/hooks/down`;
      await gone.stop();
      const id = await createContact({ name: 'Dead end', channel: 'webhook', details: { url } });
      expect(expectRefusal(await test(id), 'retry')).toContain('connection refused');
      expect(gone.requests).toHaveLength(0);
    });

    it('changes nothing on the contact, however often it fails, and works on an inactive contact', async () => {
      const id = await webhookContact('/hooks/state');
      const before = (await api.get(`/api/contacts/${id}`)).text;
      hooks.handler = (_req, res) => reply(res, 410);
      for (let i = 0; i < 6; i++) expectRefusal(await test(id), 'disable');
      // Six permanent failures would deactivate a contact through the outbox; a test never does.
      expect((await api.get(`/api/contacts/${id}`)).text).toBe(before);

      expect((await api.put(`/api/contacts/${id}`, { active: false })).status).toBe(200);
      hooks.handler = (_req, res) => reply(res, 200);
      expect((await test(id)).status).toBe(200);
      const after = (await api.get(`/api/contacts/${id}`)).body.contact;
      expect({ active: after.active, error: after.error }).toEqual({ active: false, error: null });
    });

    it('never answers with the secret or the token of the URL, delivered or not', async () => {
      const path = `/hooks/${URL_TOKEN}?token=${URL_TOKEN}`;
      const id = await webhookContact(path, { secret: SECRET });
      const answers = [await test(id)];
      expect(answers[0]!.status).toBe(200);
      expect(hooks.requests[0]!.url).toBe(path);
      for (const status of [410, 500, 413, 302]) {
        hooks.handler = (_req, res) => reply(res, status, { echo: `${URL_TOKEN} ${SECRET}` }, { location: path });
        answers.push(await test(id));
      }
      const dead = await new FakeReceiver((_req, res) => reply(res, 200)).start({ https: false });
      await dead.stop();
      const deadId = await createContact({
        name: 'Dead end',
        channel: 'webhook',
        details: { url: `${dead.baseUrl}${path}`, secret: SECRET },
      });
      answers.push(await test(deadId));
      expect(answers.map((res) => res.status)).toEqual([200, 422, 422, 422, 422, 422]);
      for (const res of answers) {
        for (const leak of [URL_TOKEN, SECRET, SECRET.slice('whsec_'.length), '127.0.0.1', '/hooks/']) {
          expect({ leak, found: res.text.includes(leak) }).toEqual({ leak, found: false });
        }
      }
    });
  });

  // ---- other channels --------------------------------------------------------------------

  describe('other channels', () => {
    it('email without an SMTP relay configured: 422 naming config', async () => {
      const id = await createContact({ name: 'Ops mail', channel: 'email', details: { email: 'ops@example.com' } });
      const res = await test(id);
      expect(expectRefusal(res, 'config')).toContain('SMTP');
      expect(res.body.error.message).toContain('configuration');
      // The server's own configuration never counts against the contact.
      const contact = (await api.get(`/api/contacts/${id}`)).body.contact;
      expect({ active: contact.active, error: contact.error }).toEqual({ active: true, error: null });
    });

    it('push: a VAPID-signed, encrypted message to the subscription endpoint; a gone subscription is 422', async () => {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const contact = await c.app.get(ContactsService).insert(
        accountId,
        'Laptop browser',
        'push',
        completeDetails('push', {
          endpoint: `${pushService.baseUrl}/push/send/abc`,
          keys: {
            p256dh: ecdh.getPublicKey().toString('base64url'),
            auth: randomBytes(16).toString('base64url'),
          },
        }),
      );
      const res = await test(contact.id);
      expect(res.status).toBe(200);
      expect(res.body.data.message).toContain('Laptop browser');
      expect(pushService.requests).toHaveLength(1);
      const request = pushService.requests[0]!;
      expect({ method: request.method, url: request.url }).toEqual({ method: 'POST', url: '/push/send/abc' });
      expect(request.headers['content-encoding']).toBe('aes128gcm');
      expect(request.headers.authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/);
      expect(request.headers.ttl).toMatch(/^\d+$/);
      expect(request.raw.length).toBeGreaterThan(0);
      expect(request.raw.toString('utf8')).not.toContain('Picket');

      pushService.handler = (_req, res) => reply(res, 410);
      expect(expectRefusal(await test(contact.id), 'disable')).toContain('410');
    });
  });

  // ---- who may test what -------------------------------------------------------------------

  describe('access', () => {
    it('answers the same 404 for another account’s, unknown and malformed ids, and sends nothing', async () => {
      const stranger = await c.newAccount('stranger');
      const foreign = await webhookContact('/hooks/foreign', {}, stranger.client);
      const reference = await test(UNKNOWN_ID);
      expectError(reference, 404, 'CONTACT_NOT_FOUND');
      for (const id of [foreign, 'nope', foreign.toUpperCase(), `${foreign}0`, '%zz']) {
        const res = await test(id);
        expectError(res, 404, 'CONTACT_NOT_FOUND');
        expect({ id, text: res.text }).toEqual({ id, text: reference.text });
      }
      expect(hooks.requests).toHaveLength(0);
      expect((await test(foreign, stranger.client)).status).toBe(200);
      expect(hooks.requests).toHaveLength(1);
    });

    it('needs contacts:write: contacts:read and every other permission get 403, and nothing is sent', async () => {
      const id = await webhookContact('/hooks/permissions');
      const others = await c.newKey(
        accountId,
        SPEC_PERMISSIONS.filter((p) => p !== 'contacts:write'),
      );
      expectError(await test(id, others.client), 403, 'FORBIDDEN');
      expectError(await test(UNKNOWN_ID, others.client), 403, 'FORBIDDEN');
      expect(hooks.requests).toHaveLength(0);

      const writer = await c.newKey(accountId, ['contacts:write']);
      expect((await test(id, writer.client)).status).toBe(200);
      expect(hooks.requests).toHaveLength(1);
      expectError(await test(id, c.client()), 401, 'UNAUTHORIZED');
    });
  });
});
