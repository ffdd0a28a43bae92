import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '#runtime';
import { Dispatcher } from '../../apps/coordinator/src/notify/dispatcher.js';
import { TransitionWriter } from '../../apps/coordinator/src/transitions/transition.writer.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { createMonitor, expectError, UNKNOWN_ID } from '../support/monitor-fixtures.js';
import { SPEC_PERMISSIONS } from '../support/spec-lists.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
/** A credential in the webhook URL, as many receivers use: never in a delivery's reason. */
const URL_TOKEN = 'Tok3nInTheUrl0a1b2c3d4e5f';

/**
 * GET /api/contacts/{id}/deliveries against a running coordinator: a webhook receiver on
 * 127.0.0.1 fails, then succeeds; the delivery log shows every attempt newest first, paged
 * like the other lists, and the contact's `error` follows from the first failed attempt on.
 * The dispatcher is driven by hand (DISPATCH_ENABLED=false) on a manual clock.
 */
describe.each(testDatabases())('GET /api/contacts/{id}/deliveries on $name', (kind) => {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
  let db: TestDatabase;
  let c: RunningCoordinator;
  let accountId: string;
  let api: ApiClient;
  /** The statuses the receiver answers, in turn; 200 once they run out. */
  let answers: number[] = [];
  const hooks = new FakeReceiver((_req, res) => reply(res, answers.shift() ?? 200, { detail: 'provider body' }));

  beforeAll(async () => {
    db = await kind.create();
    await hooks.start({ https: false });
    c = await startCoordinator(db.url, { clock, env: { DISPATCH_ENABLED: 'false' } });
    c.app.get(Dispatcher).random = () => 0.5; // no jitter: retries on the exact schedule
    ({ accountId, client: api } = await c.newAccount('deliveries'));
  });

  afterAll(async () => {
    await c?.close();
    await hooks.stop();
    await db?.drop();
  });

  beforeEach(() => {
    hooks.requests.length = 0;
    answers = [];
  });

  const seconds = () => Math.floor(clock.now() / 1000);
  const deliveries = (id: string, query = '', client: ApiClient = api): Promise<ApiResponse> =>
    client.get(`/api/contacts/${id}/deliveries${query}`);
  const contactOf = async (id: string) => (await api.get(`/api/contacts/${id}`)).body.contact;

  async function webhookContact(client: ApiClient = api): Promise<string> {
    const res = await client.post('/api/contacts', {
      name: 'Ops hook',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/hooks/${URL_TOKEN}?token=${URL_TOKEN}`, secret: SECRET },
    });
    expect(res.status).toBe(201);
    return res.body.contact.id as string;
  }

  async function transition(monitorId: string, status: 'down' | 'up'): Promise<void> {
    await c.app.get(TransitionWriter).write({
      monitorId,
      status,
      changedAt: seconds(),
      reason: status === 'down' ? 'HTTP 503' : null,
      evidence: {},
    });
  }

  it('lists every attempt newest first, through failures and the success, and the error follows', async () => {
    const contactId = await webhookContact();
    const monitorId = (await createMonitor(api, { contacts: [contactId] })).id as string;
    expect((await deliveries(contactId)).body).toEqual({
      status: 'ok',
      data: {
        deliveries: [],
        pagination: { page: 1, per_page: 50, total: 0, total_pages: 0, has_next: false, has_prev: false },
      },
    });

    // Two failures: the first attempt, and the retry at once; the next is 5 s away.
    answers = [503, 503];
    const downAt = seconds();
    await transition(monitorId, 'down');
    await c.app.get(Dispatcher).runOnce();
    expect(hooks.requests).toHaveLength(2);
    const contact = await contactOf(contactId);
    expect(contact.active).toBe(true);
    expect(contact.error).toEqual({
      code: 'DELIVERY_RETRYING',
      message: expect.stringContaining('HTTP 503'),
      failed_at: downAt,
      consecutive_failures: 0,
    });

    let res = await deliveries(contactId);
    expect(res.status).toBe(200);
    const failure = {
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      notification_id: expect.stringMatching(/^[0-9a-f]{24}$/),
      event: 'monitor.down',
      monitor_id: monitorId,
      attempted_at: downAt,
      outcome: 'retry',
      status_code: 503,
      reason: expect.stringContaining('HTTP 503'),
      duration_ms: expect.any(Number),
    };
    expect(res.body.data.deliveries).toEqual([failure, failure]);
    expect(res.body.data.pagination).toMatchObject({ total: 2 });

    // The retry succeeds: the error clears; then the recovery is delivered at once.
    clock.advance(10_000);
    await c.app.get(Dispatcher).runOnce();
    expect((await contactOf(contactId)).error).toBeNull();
    clock.advance(60_000);
    const upAt = seconds();
    await transition(monitorId, 'up');
    await c.app.get(Dispatcher).runOnce();
    expect(hooks.requests).toHaveLength(4);

    res = await deliveries(contactId);
    const list = res.body.data.deliveries as Record<string, unknown>[];
    expect(list.map((d) => [d.event, d.outcome, d.status_code, d.attempted_at])).toEqual([
      ['monitor.up', 'ok', 200, upAt],
      ['monitor.down', 'ok', 200, downAt + 10],
      ['monitor.down', 'retry', 503, downAt],
      ['monitor.down', 'retry', 503, downAt],
    ]);
    expect(list[0]!.notification_id).not.toBe(list[1]!.notification_id);
    expect(new Set(list.slice(1).map((d) => d.notification_id)).size).toBe(1);
    expect(res.body.data.pagination).toEqual({
      page: 1,
      per_page: 50,
      total: 4,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    // As the OpenAPI document says.
    const doc = (await c.client().get('/api/openapi.json')).body;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: 'picket:openapi', components: doc.components });
    const validate = ajv.compile({ $ref: 'picket:openapi#/components/schemas/DeliveryListResponse' });
    expect({ valid: validate(res.body), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
    const declared = doc.paths['/api/contacts/{id}/deliveries'].get;
    expect(declared['x-permission']).toBe('contacts:read');

    // Nothing of the URL, its token, the secret or the provider's answer is shown.
    for (const leak of [URL_TOKEN, SECRET, '127.0.0.1', '/hooks/', 'provider body']) {
      expect({ leak, found: res.text.includes(leak) }).toEqual({ leak, found: false });
    }

    // Paged like the other lists.
    const second = await deliveries(contactId, '?per_page=1&page=2');
    expect(second.body.data.deliveries).toEqual([list[1]]);
    expect(second.body.data.pagination).toEqual({
      page: 2,
      per_page: 1,
      total: 4,
      total_pages: 4,
      has_next: true,
      has_prev: true,
    });
    const oldest = await deliveries(contactId, '?order=asc&per_page=2');
    expect((oldest.body.data.deliveries as Record<string, unknown>[]).map((d) => d.outcome)).toEqual([
      'retry',
      'retry',
    ]);
    const past = await deliveries(contactId, '?page=9');
    expect(past.body.data).toEqual({
      deliveries: [],
      pagination: { page: 9, per_page: 50, total: 4, total_pages: 1, has_next: false, has_prev: true },
    });
  });

  it("answers another account's, unknown and malformed ids with the same 404", async () => {
    const stranger = await c.newAccount('stranger');
    const foreign = await webhookContact(stranger.client);
    const unknown = await deliveries(UNKNOWN_ID);
    expectError(unknown, 404, 'CONTACT_NOT_FOUND');
    for (const id of [foreign, 'nope', 'FFFFFFFFFFFFFFFFFFFFFFFF']) {
      const res = await deliveries(id);
      expect({ id, status: res.status, text: res.text }).toEqual({ id, status: 404, text: unknown.text });
    }
    expect((await deliveries(foreign, '', stranger.client)).status).toBe(200);
  });

  it('needs contacts:read, like the other contact reads', async () => {
    const id = await webhookContact();
    const reader = await c.newKey(accountId, ['contacts:read']);
    expect((await deliveries(id, '', reader.client)).status).toBe(200);
    const others = await c.newKey(
      accountId,
      SPEC_PERMISSIONS.filter((p) => p !== 'contacts:read'),
    );
    expectError(await deliveries(id, '', others.client), 403, 'FORBIDDEN');
    expectError(await deliveries(id, '', c.client()), 401, 'UNAUTHORIZED');
  });

  it('refuses invalid or unknown query parameters with 422', async () => {
    const id = await webhookContact();
    for (const query of ['?per_page=0', '?per_page=101', '?page=0', '?order=up', '?event=monitor.down']) {
      expectError(await deliveries(id, query), 422, 'VALIDATION_ERROR');
    }
  });
});
