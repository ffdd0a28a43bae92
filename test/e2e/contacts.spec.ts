import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '#runtime';
import { completeDetails } from '../../apps/coordinator/src/contacts/channels.js';
import type { ContactEntity } from '../../apps/coordinator/src/contacts/contact.entity.js';
import { ContactsRepository } from '../../apps/coordinator/src/contacts/contacts.repository.js';
import { ContactsService } from '../../apps/coordinator/src/contacts/contacts.service.js';
import { ApiClient, type ApiResponse, type RequestOptions } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { SPEC_WRITABLE_CHANNELS } from '../support/spec-lists.js';

/**
 * The contacts API end to end, over real HTTP, against every test database: listing,
 * per-channel create/get/update validation and defaults, secret redaction and merging,
 * the read-only push channel, reactivate, delete, and account isolation
 * (docs/decisions/0002-wire-conventions.md, docs/decisions/0006-contacts.md).
 */

const REDACTED = '[REDACTED]';
const CONTACT_FIELDS = ['active', 'channel', 'created_at', 'details', 'down_alerts_only', 'error', 'id', 'name'];
const REACTIVATE_FIELDS = ['active', 'channel', 'down_alerts_only', 'id', 'name'];
const PAGINATION_FIELDS = ['has_next', 'has_prev', 'page', 'per_page', 'total', 'total_pages'];
const DEFAULT_SEVERITY_MAPPING = { critical: 'critical', high: 'error', medium: 'warning', low: 'info' };

type ApiChannel =
  'email' | 'webhook' | 'chatone' | 'chattwo' | 'chatthree' | 'paging' | 'incidentmgmt' | 'alerting' | 'ticketing';

const API_CHANNELS: readonly ApiChannel[] = SPEC_WRITABLE_CHANNELS;

/** A secret no response may ever contain; distinct per use so a leak is unambiguous. */
function secret(label: string): string {
  return `sk-${label}-${randomBytes(12).toString('hex')}`;
}

/** A Standard Webhooks secret over `bytes` random bytes. */
function whsec(bytes: number): string {
  return `whsec_${randomBytes(bytes).toString('base64')}`;
}

interface ChannelCase {
  /** Minimal valid details: only the required fields. */
  details: Record<string, unknown>;
  required: string[];
  /** The details every response shows for `details`: defaults filled in, secrets redacted. */
  shown: Record<string, unknown>;
}

/** Minimal valid details per channel; `secrets` collects every secret value used. */
function channelCases(secrets: string[]): Record<ApiChannel, ChannelCase> {
  const s = (label: string) => {
    const value = secret(label);
    secrets.push(value);
    return value;
  };
  return {
    email: { details: { email: 'ops@example.com' }, required: ['email'], shown: { email: 'ops@example.com' } },
    webhook: {
      details: { url: 'https://hooks.example.com/picket' },
      required: ['url'],
      shown: { url: 'https://hooks.example.com/picket', secret: null },
    },
    chatone: {
      details: { webhook_url: 'https://chat-one.example.com/services/T0/B0/x' },
      required: ['webhook_url'],
      shown: { webhook_url: 'https://chat-one.example.com/services/T0/B0/x' },
    },
    chattwo: {
      details: { webhook_url: 'https://chat-two.example.com/api/webhooks/1/abc' },
      required: ['webhook_url'],
      shown: { webhook_url: 'https://chat-two.example.com/api/webhooks/1/abc' },
    },
    chatthree: {
      details: { webhook_url: 'https://chat-three.example.com/workflows/1' },
      required: ['webhook_url'],
      shown: { webhook_url: 'https://chat-three.example.com/workflows/1' },
    },
    paging: {
      details: { integration_key: s('paging') },
      required: ['integration_key'],
      shown: { integration_key: REDACTED, severity_mapping: DEFAULT_SEVERITY_MAPPING, auto_resolve_incidents: true },
    },
    incidentmgmt: {
      details: { webhook_url: 'https://api.incidents.example.com/v2/alert_events/http/01', bearer_token: s('im') },
      required: ['webhook_url', 'bearer_token'],
      shown: {
        webhook_url: 'https://api.incidents.example.com/v2/alert_events/http/01',
        bearer_token: REDACTED,
        auto_resolve_incidents: true,
      },
    },
    alerting: {
      details: { api_key: s('alerting') },
      required: ['api_key'],
      shown: {
        api_key: REDACTED,
        priority: 'P3',
        responders: [],
        tags: [],
        auto_close_alerts: true,
        eu_instance: false,
      },
    },
    ticketing: {
      details: { subdomain: 'acme', email: 'agent@acme.example.com', api_token: s('ticketing') },
      required: ['subdomain', 'email', 'api_token'],
      shown: {
        subdomain: 'acme',
        email: 'agent@acme.example.com',
        api_token: REDACTED,
        priority: 'normal',
        custom_fields: [],
        tags: [],
        auto_solve_tickets: true,
      },
    },
  };
}

/** An ApiClient that keeps every response text, so no secret can slip out unnoticed. */
class RecordingClient extends ApiClient {
  constructor(
    baseUrl: string,
    apiKey: string,
    private readonly seen: string[],
  ) {
    super(baseUrl, apiKey);
  }

  override async request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>> {
    const response = await super.request<T>(method, path, options);
    this.seen.push(response.text);
    return response;
  }
}

function fieldsOf(response: ApiResponse): string[] {
  return (response.body?.error?.details ?? []).map((d: { field: string }) => d.field).sort();
}

function expectValidationError(response: ApiResponse, fields: string[]): void {
  expect(response.status).toBe(422);
  expect(response.body.status).toBe('error');
  expect(response.body.error.code).toBe('VALIDATION_ERROR');
  expect(fieldsOf(response)).toEqual([...fields].sort());
}

function expectContactShape(contact: Record<string, unknown>): void {
  expect(Object.keys(contact).sort()).toEqual(CONTACT_FIELDS);
  expect(contact.id).toMatch(/^[0-9a-f]{24}$/);
}

describe.each(testDatabases())('contacts API on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 12, 0, 0));
  /** Every response body any test received, and every secret any test sent. */
  const seen: string[] = [];
  const secrets: string[] = [];
  const cases = channelCases(secrets);

  let repo: ContactsRepository;

  async function account(name: string): Promise<{ accountId: string; client: RecordingClient }> {
    const { accountId, apiKey } = await c.newAccount(name);
    return { accountId, client: new RecordingClient(c.baseUrl, apiKey, seen) };
  }

  async function stored(accountId: string, id: string): Promise<ContactEntity> {
    const entity = await repo.findOne(accountId, id);
    if (!entity) throw new Error(`contact ${id} is not stored`);
    return entity;
  }

  async function create(client: ApiClient, body: Record<string, unknown>): Promise<Record<string, any>> {
    const response = await client.post('/api/contacts', body);
    expect(response.status).toBe(201);
    return response.body.contact;
  }

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock });
    repo = c.app.get(ContactsRepository);
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  describe('per channel', () => {
    let client: RecordingClient;
    let accountId: string;
    beforeAll(async () => {
      ({ client, accountId } = await account('channels'));
    });

    it.each(API_CHANNELS)('%s: create, get, list, round-trip and required fields', async (channel) => {
      const { details, required, shown } = cases[channel];

      // Every required field, left out alone and all together, is named.
      for (const field of required) {
        const partial = { ...details };
        delete partial[field];
        expectValidationError(await client.post('/api/contacts', { name: 'x', channel, details: partial }), [
          `details.${field}`,
        ]);
      }
      expectValidationError(
        await client.post('/api/contacts', { name: 'x', channel, details: {} }),
        required.map((f) => `details.${f}`),
      );
      expectValidationError(await client.post('/api/contacts', { name: 'x', channel }), ['details']);

      clock.advance(1000);
      const response = await client.post('/api/contacts', { name: `${channel} contact`, channel, details });
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Object.keys(response.body).sort()).toEqual(['contact', 'status']);
      expect(response.body.status).toBe('ok');
      const contact = response.body.contact;
      expectContactShape(contact);
      expect(contact).toEqual({
        id: contact.id,
        name: `${channel} contact`,
        channel,
        details: shown,
        active: true,
        down_alerts_only: false,
        created_at: Math.floor(clock.now() / 1000),
        error: null,
      });
      const storedDetails = (await stored(accountId, contact.id)).details;
      expect(storedDetails).toEqual({ ...shown, ...details });

      const got = await client.get(`/api/contacts/${contact.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ status: 'ok', contact });

      const listed = await client.get(`/api/contacts?channel=${channel}`);
      expect(listed.status).toBe(200);
      expect(listed.body.contacts).toContainEqual(contact);
      for (const item of listed.body.contacts) expect(item.channel).toBe(channel);

      // A whole GET body goes back unchanged: same channel accepted, read-only fields ignored.
      const roundTrip = await client.put(`/api/contacts/${contact.id}`, got.body.contact);
      expect(roundTrip.status).toBe(200);
      expect(roundTrip.body).toEqual({ status: 'ok', contact });
      expect((await stored(accountId, contact.id)).details).toEqual(storedDetails);

      // The channel cannot change.
      const other = channel === 'email' ? 'webhook' : 'email';
      expectValidationError(await client.put(`/api/contacts/${contact.id}`, { channel: other }), ['channel']);
      expectValidationError(await client.put(`/api/contacts/${contact.id}`, { ...got.body.contact, channel: 'push' }), [
        'channel',
      ]);
      expect((await client.get(`/api/contacts/${contact.id}`)).body.contact).toEqual(contact);
    });

    it('keeps optional fields that are given instead of their defaults', async () => {
      const alerting = await create(client, {
        name: 'alerting, all fields',
        channel: 'alerting',
        active: false,
        down_alerts_only: true,
        details: {
          api_key: secrets[secrets.push(secret('alerting-full')) - 1],
          priority: 'P1',
          responders: [{ type: 'team', id: 'ops' }],
          tags: ['prod', 'web'],
          auto_close_alerts: false,
          eu_instance: true,
        },
      });
      expect(alerting.active).toBe(false);
      expect(alerting.down_alerts_only).toBe(true);
      expect(alerting.details).toEqual({
        api_key: REDACTED,
        priority: 'P1',
        responders: [{ type: 'team', id: 'ops' }],
        tags: ['prod', 'web'],
        auto_close_alerts: false,
        eu_instance: true,
      });

      const ticketing = await create(client, {
        name: 'ticketing, all fields',
        channel: 'ticketing',
        details: {
          subdomain: 'acme-2',
          email: 'agent@acme.example.com',
          api_token: secrets[secrets.push(secret('ticketing-full')) - 1],
          priority: 'urgent',
          custom_fields: [{ id: 360001, value: 'uptime' }],
          tags: ['picket'],
          auto_solve_tickets: false,
        },
      });
      expect(ticketing.details).toEqual({
        subdomain: 'acme-2',
        email: 'agent@acme.example.com',
        api_token: REDACTED,
        priority: 'urgent',
        custom_fields: [{ id: 360001, value: 'uptime' }],
        tags: ['picket'],
        auto_solve_tickets: false,
      });

      const paging = await create(client, {
        name: 'paging, all fields',
        channel: 'paging',
        details: {
          integration_key: secrets[secrets.push(secret('paging-full')) - 1],
          severity_mapping: { critical: 'error', high: 'error', medium: 'info', low: 'info' },
          auto_resolve_incidents: false,
        },
      });
      expect(paging.details).toEqual({
        integration_key: REDACTED,
        severity_mapping: { critical: 'error', high: 'error', medium: 'info', low: 'info' },
        auto_resolve_incidents: false,
      });

      const incidents = await create(client, {
        name: 'incidentmgmt, all fields',
        channel: 'incidentmgmt',
        details: {
          webhook_url: 'https://api.incidents.example.com/v2/alert_events/http/02',
          bearer_token: secrets[secrets.push(secret('im-full')) - 1],
          auto_resolve_incidents: false,
        },
      });
      expect(incidents.details).toEqual({
        webhook_url: 'https://api.incidents.example.com/v2/alert_events/http/02',
        bearer_token: REDACTED,
        auto_resolve_incidents: false,
      });
    });

    it('ignores the read-only id, created_at and error on create', async () => {
      const contact = await create(client, {
        id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
        created_at: 1,
        error: { code: 'X', message: 'y', failed_at: 1, consecutive_failures: 9 },
        name: 'read-only fields',
        channel: 'email',
        details: { email: 'ro@example.com' },
      });
      expect(contact.id).not.toBe('aaaaaaaaaaaaaaaaaaaaaaaa');
      expect(contact.created_at).toBe(Math.floor(clock.now() / 1000));
      expect(contact.error).toBeNull();
      expect((await stored(accountId, contact.id)).consecutiveFailures).toBe(0);
    });

    it('refuses invalid values of optional fields and unknown details fields', async () => {
      const alerting = cases.alerting.details;
      expectValidationError(
        await client.post('/api/contacts', {
          name: 'x',
          channel: 'alerting',
          details: { ...alerting, priority: 'P9' },
        }),
        ['details.priority'],
      );
      expectValidationError(
        await client.post('/api/contacts', {
          name: 'x',
          channel: 'ticketing',
          details: { ...cases.ticketing.details, priority: 'P3' },
        }),
        ['details.priority'],
      );
      expectValidationError(
        await client.post('/api/contacts', {
          name: 'x',
          channel: 'paging',
          details: { ...cases.paging.details, severity_mapping: { critical: 'fatal' } },
        }),
        ['details.severity_mapping'],
      );
      expectValidationError(
        await client.post('/api/contacts', { name: 'x', channel: 'email', details: { email: 'not an address' } }),
        ['details.email'],
      );
      expectValidationError(
        await client.post('/api/contacts', {
          name: 'x',
          channel: 'email',
          details: { email: 'ops@example.com', url: 'https://example.com' },
        }),
        ['details.url'],
      );
      expectValidationError(await client.post('/api/contacts', { name: 'x', channel: 'sms', details: {} }), [
        'channel',
      ]);
      // Every problem at once, top level and details together.
      expectValidationError(
        await client.post('/api/contacts', {
          channel: 'ticketing',
          details: { subdomain: 'Not A Subdomain' },
          extra: 1,
        }),
        ['details.api_token', 'details.email', 'details.subdomain', 'extra', 'name'],
      );
      expectValidationError(await client.post('/api/contacts', { name: 'x', channel: 'email', details: null }), [
        'details',
      ]);
      expectValidationError(await client.post('/api/contacts', ['not', 'an', 'object']), ['(body)']);
      expectValidationError(
        await client.post('/api/contacts', { channel: 'email', details: { email: 'a@b.example' } }),
        ['name'],
      );
    });

    it.each(['chatone', 'chattwo', 'chatthree', 'incidentmgmt'] as const)(
      '%s: webhook_url must be https',
      async (channel) => {
        const { details } = cases[channel];
        const plain = { ...details, webhook_url: 'http://chat.example.com/hook' };
        expectValidationError(await client.post('/api/contacts', { name: 'x', channel, details: plain }), [
          'details.webhook_url',
        ]);
        const contact = await create(client, { name: `${channel} https`, channel, details });
        expectValidationError(
          await client.put(`/api/contacts/${contact.id}`, { details: { webhook_url: 'http://chat.example.com/hook' } }),
          ['details.webhook_url'],
        );
        expect((await stored(accountId, contact.id)).details.webhook_url).toBe(details.webhook_url);
      },
    );

    it('webhook: url may be http, secret must be whsec_ + base64 of 24..64 bytes', async () => {
      const plainUrl = await create(client, {
        name: 'plain webhook',
        channel: 'webhook',
        details: { url: 'http://hooks.internal.example.com/in' },
      });
      expect(plainUrl.details).toEqual({ url: 'http://hooks.internal.example.com/in', secret: null });

      for (const bytes of [24, 64]) {
        const value = whsec(bytes);
        secrets.push(value);
        const contact = await create(client, {
          name: `signed ${bytes}`,
          channel: 'webhook',
          details: { url: 'https://hooks.example.com/signed', secret: value },
        });
        expect(contact.details).toEqual({ url: 'https://hooks.example.com/signed', secret: REDACTED });
        expect((await stored(accountId, contact.id)).details.secret).toBe(value);
      }
      const wrong = [whsec(23), whsec(65), randomBytes(32).toString('base64')];
      secrets.push(...wrong);
      for (const bad of [...wrong, `whsec_${'!'.repeat(40)}`, 'whsec_', REDACTED, 42]) {
        expectValidationError(
          await client.post('/api/contacts', {
            name: 'bad secret',
            channel: 'webhook',
            details: { url: 'https://hooks.example.com/signed', secret: bad },
          }),
          ['details.secret'],
        );
      }
      const explicitNull = await create(client, {
        name: 'null secret',
        channel: 'webhook',
        details: { url: 'https://hooks.example.com/x', secret: null },
      });
      expect(explicitNull.details).toEqual({ url: 'https://hooks.example.com/x', secret: null });
    });
  });

  describe('secrets', () => {
    let client: RecordingClient;
    let accountId: string;
    beforeAll(async () => {
      ({ client, accountId } = await account('secrets'));
    });

    const SECRET_CASES: { channel: ApiChannel; field: string; details: () => Record<string, unknown> }[] = [
      {
        channel: 'webhook',
        field: 'secret',
        details: () => ({ url: 'https://hooks.example.com/s', secret: whsec(32) }),
      },
      { channel: 'paging', field: 'integration_key', details: () => ({ integration_key: secret('pg') }) },
      {
        channel: 'incidentmgmt',
        field: 'bearer_token',
        details: () => ({ webhook_url: 'https://api.incidents.example.com/x', bearer_token: secret('im') }),
      },
      { channel: 'alerting', field: 'api_key', details: () => ({ api_key: secret('al') }) },
      {
        channel: 'ticketing',
        field: 'api_token',
        details: () => ({ subdomain: 'acme', email: 'a@acme.example.com', api_token: secret('tk') }),
      },
    ];

    it.each(SECRET_CASES)(
      '$channel: $field is redacted everywhere, kept by [REDACTED], replaced by a new value',
      async ({ channel, field, details: makeDetails }) => {
        const details = makeDetails();
        const original = details[field] as string;
        secrets.push(original);

        const created = await client.post('/api/contacts', { name: `${channel} secret`, channel, details });
        expect(created.status).toBe(201);
        expect(created.body.contact.details[field]).toBe(REDACTED);
        expect(created.text).not.toContain(original);
        const id: string = created.body.contact.id;
        expect((await stored(accountId, id)).details[field]).toBe(original);

        const got = await client.get(`/api/contacts/${id}`);
        expect(got.body.contact.details[field]).toBe(REDACTED);
        expect(got.text).not.toContain(original);

        const listed = await client.get(`/api/contacts?channel=${channel}`);
        const item = listed.body.contacts.find((x: { id: string }) => x.id === id);
        expect(item.details[field]).toBe(REDACTED);
        expect(listed.text).not.toContain(original);

        // [REDACTED] keeps the stored secret, while other fields change.
        const kept = await client.put(`/api/contacts/${id}`, {
          name: `${channel} renamed`,
          details: { [field]: REDACTED },
        });
        expect(kept.status).toBe(200);
        expect(kept.body.contact.name).toBe(`${channel} renamed`);
        expect(kept.body.contact.details[field]).toBe(REDACTED);
        expect(kept.text).not.toContain(original);
        const afterKeep = await stored(accountId, id);
        expect(afterKeep.details[field]).toBe(original);
        expect(afterKeep.name).toBe(`${channel} renamed`);

        // A new value replaces it.
        const replacement = channel === 'webhook' ? whsec(40) : secret(`${channel}-new`);
        secrets.push(replacement);
        const replaced = await client.put(`/api/contacts/${id}`, { details: { [field]: replacement } });
        expect(replaced.status).toBe(200);
        expect(replaced.body.contact.details[field]).toBe(REDACTED);
        expect(replaced.text).not.toContain(replacement);
        expect((await stored(accountId, id)).details[field]).toBe(replacement);

        // The redaction marker is not a value of its own on create.
        expectValidationError(
          await client.post('/api/contacts', { name: 'x', channel, details: { ...makeDetails(), [field]: REDACTED } }),
          [`details.${field}`],
        );
      },
    );

    it('webhook: a null secret on PUT removes signing; [REDACTED] without a stored secret is refused', async () => {
      const value = whsec(32);
      secrets.push(value);
      const contact = await create(client, {
        name: 'unsign me',
        channel: 'webhook',
        details: { url: 'https://hooks.example.com/u', secret: value },
      });
      const cleared = await client.put(`/api/contacts/${contact.id}`, { details: { secret: null } });
      expect(cleared.status).toBe(200);
      expect(cleared.body.contact.details).toEqual({ url: 'https://hooks.example.com/u', secret: null });
      expect((await stored(accountId, contact.id)).details.secret ?? null).toBeNull();
      expectValidationError(await client.put(`/api/contacts/${contact.id}`, { details: { secret: REDACTED } }), [
        'details.secret',
      ]);
    });

    it('PUT details merges field by field and validates the merged result whole', async () => {
      const apiKey = secret('merge');
      secrets.push(apiKey);
      const contact = await create(client, {
        name: 'merge me',
        channel: 'alerting',
        details: { api_key: apiKey, tags: ['prod'], responders: [{ type: 'user', id: 'u1' }] },
      });

      const merged = await client.put(`/api/contacts/${contact.id}`, { details: { eu_instance: true } });
      expect(merged.status).toBe(200);
      expect(merged.body.contact.details).toEqual({
        api_key: REDACTED,
        priority: 'P3',
        responders: [{ type: 'user', id: 'u1' }],
        tags: ['prod'],
        auto_close_alerts: true,
        eu_instance: true,
      });
      const before = await stored(accountId, contact.id);
      expect(before.details.api_key).toBe(apiKey);

      // One bad field refuses the whole PUT, and nothing stored changes (not even the name).
      expectValidationError(
        await client.put(`/api/contacts/${contact.id}`, {
          name: 'should not stick',
          active: false,
          details: { priority: 'P9' },
        }),
        ['details.priority'],
      );
      expectValidationError(await client.put(`/api/contacts/${contact.id}`, { details: { surprise: 1 } }), [
        'details.surprise',
      ]);
      const after = await stored(accountId, contact.id);
      expect(after).toEqual(before);
      expect((await client.get(`/api/contacts/${contact.id}`)).body.contact).toEqual(merged.body.contact);

      // The merge result of a ticketing contact is checked whole too.
      const ticket = await create(client, { name: 'zd', channel: 'ticketing', details: cases.ticketing.details });
      expectValidationError(await client.put(`/api/contacts/${ticket.id}`, { details: { email: 'nope' } }), [
        'details.email',
      ]);
      const ok = await client.put(`/api/contacts/${ticket.id}`, { details: { priority: 'high' } });
      expect(ok.status).toBe(200);
      expect(ok.body.contact.details).toEqual({ ...cases.ticketing.shown, priority: 'high' });
    });

    it('PUT changes only the supplied top-level fields', async () => {
      const contact = await create(client, { name: 'flags', channel: 'email', details: { email: 'f@example.com' } });
      const updated = await client.put(`/api/contacts/${contact.id}`, { active: false, down_alerts_only: true });
      expect(updated.status).toBe(200);
      expect(updated.body.contact).toEqual({ ...contact, active: false, down_alerts_only: true });
      const renamed = await client.put(`/api/contacts/${contact.id}`, { name: 'flags renamed' });
      expect(renamed.body.contact).toEqual({
        ...contact,
        name: 'flags renamed',
        active: false,
        down_alerts_only: true,
      });
      expectValidationError(await client.put(`/api/contacts/${contact.id}`, { name: '' }), ['name']);
      expectValidationError(await client.put(`/api/contacts/${contact.id}`, { nickname: 'x' }), ['nickname']);
      expectValidationError(await client.put(`/api/contacts/${contact.id}`, { active: 'yes' }), ['active']);
    });
  });

  describe('push (read-only) contacts', () => {
    let client: RecordingClient;
    let accountId: string;
    let pushId: string;
    const endpoint = `https://fcm.googleapis.com/fcm/send/${randomBytes(24).toString('hex')}`;
    const keys = { p256dh: `BP${randomBytes(40).toString('base64url')}`, auth: randomBytes(16).toString('base64url') };

    beforeAll(async () => {
      ({ client, accountId } = await account('push'));
      secrets.push(endpoint, keys.p256dh, keys.auth);
      const entity = await c.app
        .get(ContactsService)
        .insert(accountId, 'My browser', 'push', completeDetails('push', { endpoint, keys }));
      pushId = entity.id;
    });

    it('cannot be created through the API', async () => {
      expectValidationError(
        await client.post('/api/contacts', { name: 'sneaky', channel: 'push', details: { endpoint, keys } }),
        ['channel'],
      );
      expectValidationError(await client.post('/api/contacts', { name: 'sneaky', channel: 'push', details: {} }), [
        'channel',
      ]);
      const listed = await client.get('/api/contacts?channel=push');
      expect(listed.body.contacts.map((x: { id: string }) => x.id)).toEqual([pushId]);
    });

    it('is listed and gettable with its subscription redacted', async () => {
      const got = await client.get(`/api/contacts/${pushId}`);
      expect(got.status).toBe(200);
      const contact = got.body.contact;
      expectContactShape(contact);
      expect(contact).toMatchObject({
        id: pushId,
        name: 'My browser',
        channel: 'push',
        active: true,
        down_alerts_only: false,
        error: null,
      });
      expect(contact.details.endpoint).toBe(REDACTED);
      expect(contact.details.keys).toBe(REDACTED);
      for (const value of [endpoint, keys.p256dh, keys.auth]) expect(got.text).not.toContain(value);

      const listed = await client.get('/api/contacts');
      expect(listed.status).toBe(200);
      expect(listed.body.contacts).toContainEqual(contact);
      const filtered = await client.get('/api/contacts?channel=push');
      expect(filtered.body.contacts).toEqual([contact]);
      for (const value of [endpoint, keys.p256dh, keys.auth]) expect(listed.text).not.toContain(value);
    });

    it('PUT and DELETE answer 403 READONLY_CHANNEL, whatever the body, and change nothing', async () => {
      const before = await stored(accountId, pushId);
      const bodies: unknown[] = [
        { name: 'renamed' },
        { active: false },
        { details: { endpoint: 'https://evil.example.com/x' } },
        { name: '', details: 'not an object', bogus: true },
        {},
      ];
      for (const body of bodies) {
        const response = await client.put(`/api/contacts/${pushId}`, body);
        expect(response.status).toBe(403);
        expect(response.body.status).toBe('error');
        expect(response.body.error.code).toBe('READONLY_CHANNEL');
      }
      const raw = await client.request('PUT', `/api/contacts/${pushId}`, {
        raw: '{"name":',
        headers: { 'content-type': 'application/json' },
      });
      // An unreadable body is refused before any handler runs.
      expect(raw.status).toBe(400);
      expect(raw.body.error.code).toBe('INVALID_JSON');
      const deleted = await client.delete(`/api/contacts/${pushId}`);
      expect(deleted.status).toBe(403);
      expect(deleted.body.error.code).toBe('READONLY_CHANNEL');
      const deletedWithBody = await client.request('DELETE', `/api/contacts/${pushId}`, { json: { bogus: 1 } });
      expect(deletedWithBody.status).toBe(403);
      expect(deletedWithBody.body.error.code).toBe('READONLY_CHANNEL');

      expect(await stored(accountId, pushId)).toEqual(before);
      expect((await client.get(`/api/contacts/${pushId}`)).status).toBe(200);
    });

    it('can be reactivated', async () => {
      const entity = await stored(accountId, pushId);
      entity.active = false;
      entity.error = { code: 'GONE', message: 'subscription expired', failed_at: 1, consecutive_failures: 5 };
      entity.consecutiveFailures = 5;
      await repo.save(entity);
      const response = await client.post(`/api/contacts/${pushId}/reactivate`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        status: 'ok',
        data: { contact: { id: pushId, name: 'My browser', channel: 'push', active: true, down_alerts_only: false } },
      });
      const after = await stored(accountId, pushId);
      expect(after.active).toBe(true);
      expect(after.error).toBeNull();
      expect(after.consecutiveFailures).toBe(0);
    });
  });

  describe('reactivate and delete', () => {
    let client: RecordingClient;
    let accountId: string;
    beforeAll(async () => {
      ({ client, accountId } = await account('lifecycle'));
    });

    it('reactivate turns a deactivated contact back on and clears error and the failure counter', async () => {
      const contact = await create(client, {
        name: 'flaky hook',
        channel: 'webhook',
        down_alerts_only: true,
        details: { url: 'https://hooks.example.com/flaky' },
      });
      const entity = await stored(accountId, contact.id);
      const error = { code: 'HTTP_410', message: 'Gone', failed_at: 1772366400, consecutive_failures: 5 };
      entity.active = false;
      entity.error = error;
      entity.consecutiveFailures = 5;
      await repo.save(entity);

      const broken = await client.get(`/api/contacts/${contact.id}`);
      expect(broken.body.contact).toEqual({ ...contact, active: false, error });

      const response = await client.post(`/api/contacts/${contact.id}/reactivate`);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['data', 'status']);
      expect(Object.keys(response.body.data)).toEqual(['contact']);
      expect(Object.keys(response.body.data.contact).sort()).toEqual(REACTIVATE_FIELDS);
      expect(response.body).toEqual({
        status: 'ok',
        data: {
          contact: { id: contact.id, name: 'flaky hook', channel: 'webhook', active: true, down_alerts_only: true },
        },
      });

      const healed = await client.get(`/api/contacts/${contact.id}`);
      expect(healed.body.contact).toEqual({ ...contact, active: true, error: null });
      const after = await stored(accountId, contact.id);
      expect(after.consecutiveFailures).toBe(0);
      expect(after.error).toBeNull();
      expect(after.active).toBe(true);

      // Reactivating an active contact is harmless.
      const again = await client.post(`/api/contacts/${contact.id}/reactivate`);
      expect(again.status).toBe(200);
      expect(again.body.data.contact.active).toBe(true);
    });

    it('DELETE answers 204 with no body, then 404, and the contact leaves every monitor', async () => {
      const doomed = await create(client, { name: 'doomed', channel: 'email', details: { email: 'd@example.com' } });
      const kept = await create(client, { name: 'kept', channel: 'email', details: { email: 'k@example.com' } });
      const monitorIds: string[] = [];
      for (const contacts of [[doomed.id, kept.id], [kept.id, doomed.id], [doomed.id]]) {
        const monitor = await client.post('/api/monitors', {
          name: 'site',
          settings: { https: { url: 'https://example.com' } },
          regions: ['eu-west-1'],
          contacts,
        });
        expect(monitor.status).toBe(201);
        expect(monitor.body.data.contacts).toEqual(contacts);
        monitorIds.push(monitor.body.data.id);
      }

      const deleted = await client.delete(`/api/contacts/${doomed.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');

      const gone = await client.get(`/api/contacts/${doomed.id}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ status: 'error', error: { code: 'CONTACT_NOT_FOUND', message: expect.any(String) } });
      expect(await repo.findOne(accountId, doomed.id)).toBeNull();
      const listed = (await client.get('/api/contacts')).body.contacts.map((x: { id: string }) => x.id);
      expect(listed).toContain(kept.id);
      expect(listed).not.toContain(doomed.id);

      const expected = [[kept.id], [kept.id], []];
      for (const [i, id] of monitorIds.entries()) {
        const monitor = await client.get(`/api/monitors/${id}`);
        expect(monitor.status).toBe(200);
        expect(monitor.body.data.contacts).toEqual(expected[i]);
      }

      for (const [method, path] of [
        ['DELETE', `/api/contacts/${doomed.id}`],
        ['PUT', `/api/contacts/${doomed.id}`],
        ['POST', `/api/contacts/${doomed.id}/reactivate`],
      ] as const) {
        const response = await client.request(method, path, method === 'PUT' ? { json: { name: 'x' } } : {});
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('CONTACT_NOT_FOUND');
      }
    });
  });

  describe('account isolation and 404s', () => {
    let owner: RecordingClient;
    let ownerId: string;
    let stranger: RecordingClient;
    let contact: Record<string, any>;
    let pushId: string;

    beforeAll(async () => {
      ({ client: owner, accountId: ownerId } = await account('owner'));
      ({ client: stranger } = await account('stranger'));
      const token = secret('isolation');
      secrets.push(token);
      contact = await create(owner, {
        name: 'private',
        channel: 'alerting',
        details: { api_key: token },
      });
      const push = await c.app.get(ContactsService).insert(
        ownerId,
        'owner browser',
        'push',
        completeDetails('push', {
          endpoint: 'https://push.example.com/ep/1',
          keys: { p256dh: 'p256', auth: 'auth' },
        }),
      );
      pushId = push.id;
    });

    it('another account sees none of them and gets the same 404 as for unknown or malformed ids', async () => {
      const unknownId = `${'0'.repeat(8)}${randomBytes(8).toString('hex')}`;
      const malformed = ['nope', contact.id.toUpperCase(), contact.id.slice(1), `${contact.id}0`, 'g'.repeat(24)];
      const ids = [contact.id, pushId, unknownId, ...malformed];

      const listed = await stranger.get('/api/contacts');
      expect(listed.status).toBe(200);
      expect(listed.body.contacts).toEqual([]);
      expect(listed.body.pagination.total).toBe(0);
      const searched = await stranger.get('/api/contacts?search=private&channel=alerting');
      expect(searched.body.contacts).toEqual([]);

      const requests: [string, (id: string) => string, RequestOptions][] = [
        ['GET', (id) => `/api/contacts/${id}`, {}],
        ['PUT', (id) => `/api/contacts/${id}`, { json: { name: 'hijacked', active: false } }],
        ['PUT', (id) => `/api/contacts/${id}`, { json: { details: { priority: 'P9' }, bogus: 1 } }],
        ['DELETE', (id) => `/api/contacts/${id}`, {}],
        ['POST', (id) => `/api/contacts/${id}/reactivate`, {}],
      ];
      let reference: string | undefined;
      for (const [method, path, options] of requests) {
        for (const id of ids) {
          const response = await stranger.request(method, path(id), options);
          expect({ method, id, status: response.status }).toEqual({ method, id, status: 404 });
          expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
          reference ??= response.text;
          expect({ method, id, text: response.text }).toEqual({ method, id, text: reference });
        }
      }
      expect(JSON.parse(reference!)).toEqual({
        status: 'error',
        error: { code: 'CONTACT_NOT_FOUND', message: expect.any(String) },
      });

      // The owner's contacts are untouched.
      const mine = await owner.get(`/api/contacts/${contact.id}`);
      expect(mine.status).toBe(200);
      expect(mine.body.contact).toEqual(contact);
      expect((await owner.get(`/api/contacts/${pushId}`)).status).toBe(200);
      const ownList = await owner.get('/api/contacts');
      expect(ownList.body.pagination.total).toBe(2);
    });

    it('the owner gets the same 404 bytes for unknown and malformed ids', async () => {
      const a = await owner.get(`/api/contacts/${'f'.repeat(24)}`);
      const b = await owner.get('/api/contacts/not-an-id');
      const d = await owner.delete(`/api/contacts/${'0'.repeat(24)}`);
      const stranger404 = await stranger.get(`/api/contacts/${contact.id}`);
      expect([a.status, b.status, d.status]).toEqual([404, 404, 404]);
      expect(b.text).toBe(a.text);
      expect(d.text).toBe(a.text);
      expect(stranger404.text).toBe(a.text);
    });
  });

  describe('list', () => {
    let client: RecordingClient;
    const ids = new Map<string, string>();

    const SEARCHABLE: [string, ApiChannel][] = [
      ['Alpha Ops', 'email'],
      ['alpha dev', 'webhook'],
      ['ALPHAbet', 'chatone'],
      ['Beta', 'email'],
      ['100% uptime', 'email'],
      ['100 percent', 'email'],
      ['snake_case', 'email'],
      ['snakeXcase', 'email'],
      ['back\\slash', 'email'],
      ['backslash', 'email'],
      ['Équipe Ops', 'email'],
      ['ÜBER-Team', 'email'],
    ];
    /** Created in this order, one second apart; sorted by name they come out differently. */
    const SORTABLE = ['Charlie', 'alpha', 'Echo', 'bravo', 'delta'];
    /** Lower-cased with Unicode rules, "äb" comes before "äpfel" (SQLite's own LOWER would not fold Ä). */
    const UNICODE_SORTABLE = ['Äpfel', 'äb'];

    beforeAll(async () => {
      ({ client } = await account('lister'));
      for (const [name, channel] of SEARCHABLE) {
        clock.advance(1000);
        const contact = await create(client, { name, channel, details: cases[channel].details });
        ids.set(name, contact.id);
      }
      for (const name of SORTABLE) {
        clock.advance(1000);
        const contact = await create(client, { name, channel: 'chattwo', details: cases.chattwo.details });
        ids.set(name, contact.id);
      }
      for (const name of UNICODE_SORTABLE) {
        clock.advance(1000);
        await create(client, { name, channel: 'chatthree', details: cases.chatthree.details });
      }
    });

    async function names(query: string): Promise<string[]> {
      const response = await client.get(`/api/contacts?${query}`);
      expect(response.status).toBe(200);
      expect(response.body.pagination.total).toBe(response.body.contacts.length);
      return response.body.contacts.map((x: { name: string }) => x.name);
    }

    const sorted = (list: string[]) => [...list].sort();

    it('returns top-level contacts and pagination, newest first by default', async () => {
      const response = await client.get('/api/contacts');
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['contacts', 'pagination', 'status']);
      expect(response.body.status).toBe('ok');
      const all = [...SEARCHABLE.map(([n]) => n), ...SORTABLE, ...UNICODE_SORTABLE];
      expect(response.body.contacts.map((x: { name: string }) => x.name)).toEqual([...all].reverse());
      for (const contact of response.body.contacts) expectContactShape(contact);
      expect(Object.keys(response.body.pagination).sort()).toEqual(PAGINATION_FIELDS);
      expect(response.body.pagination).toEqual({
        page: 1,
        per_page: 50,
        total: all.length,
        total_pages: 1,
        has_next: false,
        has_prev: false,
      });
    });

    it('searches names case-insensitively (Unicode too), with % _ and \\ taken literally', async () => {
      const cases: [string, string[]][] = [
        ['alpha', ['Alpha Ops', 'alpha dev', 'ALPHAbet', 'alpha']],
        ['ALPHA', ['Alpha Ops', 'alpha dev', 'ALPHAbet', 'alpha']],
        ['pHa D', ['alpha dev']],
        ['%', ['100% uptime']],
        ['100%', ['100% uptime']],
        ['0%', ['100% uptime']],
        ['100', ['100% uptime', '100 percent']],
        ['_', ['snake_case']],
        ['e_c', ['snake_case']],
        ['k\\s', ['back\\slash']],
        ['\\', ['back\\slash']],
        ['backslash', ['backslash']],
        ['équipe', ['Équipe Ops']],
        ['ÉQUIPE OPS', ['Équipe Ops']],
        ['über-team', ['ÜBER-Team']],
        ['Über', ['ÜBER-Team']],
        ['ops', ['Alpha Ops', 'Équipe Ops']],
        ['zzz', []],
      ];
      for (const [search, expected] of cases) {
        const found = sorted(await names(`search=${encodeURIComponent(search)}`));
        expect({ search, names: found }).toEqual({ search, names: sorted(expected) });
      }
      // An empty search matches everything.
      expect((await names('search=')).length).toBe(SEARCHABLE.length + SORTABLE.length + UNICODE_SORTABLE.length);
    });

    it('filters by channel, alone and with search', async () => {
      expect(sorted(await names('channel=email'))).toEqual(
        sorted(SEARCHABLE.filter(([, ch]) => ch === 'email').map(([n]) => n)),
      );
      expect(await names('channel=chatone')).toEqual(['ALPHAbet']);
      expect(sorted(await names('channel=chattwo'))).toEqual(sorted(SORTABLE));
      expect(await names('channel=paging')).toEqual([]);
      expect(await names('channel=push')).toEqual([]);
      expect(await names('channel=webhook&search=ALPHA')).toEqual(['alpha dev']);
      expectValidationError(await client.get('/api/contacts?channel=sms'), ['channel']);
    });

    it('sorts by name (case-insensitive) or created_at, in either order', async () => {
      const byName = ['alpha', 'bravo', 'Charlie', 'delta', 'Echo'];
      expect(await names('channel=chattwo&sort=name&order=asc')).toEqual(byName);
      expect(await names('channel=chattwo&sort=name&order=desc')).toEqual([...byName].reverse());
      expect(await names('channel=chattwo&sort=name')).toEqual([...byName].reverse());
      expect(await names('channel=chattwo&sort=created_at&order=asc')).toEqual(SORTABLE);
      expect(await names('channel=chattwo&sort=created_at&order=desc')).toEqual([...SORTABLE].reverse());
      expect(await names('channel=chattwo&order=asc')).toEqual(SORTABLE);
      expect(await names('channel=chattwo')).toEqual([...SORTABLE].reverse());
      expect(await names('channel=chatthree&sort=name&order=asc')).toEqual(['äb', 'Äpfel']);
      expect(await names('channel=chatthree&sort=created_at&order=asc')).toEqual(UNICODE_SORTABLE);
      expectValidationError(await client.get('/api/contacts?sort=updated_at'), ['sort']);
      expectValidationError(await client.get('/api/contacts?sort=email'), ['sort']);
      expectValidationError(await client.get('/api/contacts?order=up'), ['order']);
      expectValidationError(await client.get('/api/contacts?order=ASC'), ['order']);
    });
  });

  describe('pagination', () => {
    let client: RecordingClient;
    const TOTAL = 57;
    const created: string[] = [];

    beforeAll(async () => {
      ({ client } = await account('pager'));
      for (let i = 0; i < TOTAL; i++) {
        clock.advance(1000);
        const contact = await create(client, {
          name: `contact ${String(i).padStart(2, '0')}`,
          channel: 'email',
          details: { email: `c${i}@example.com` },
        });
        created.push(contact.id);
      }
    }, 60_000);

    function page(response: ApiResponse): { ids: string[]; pagination: unknown } {
      expect(response.status).toBe(200);
      return { ids: response.body.contacts.map((x: { id: string }) => x.id), pagination: response.body.pagination };
    }

    it('defaults to 50 per page and pages through everything once', async () => {
      const newestFirst = [...created].reverse();
      const first = page(await client.get('/api/contacts'));
      expect(first.ids).toEqual(newestFirst.slice(0, 50));
      expect(first.pagination).toEqual({
        page: 1,
        per_page: 50,
        total: TOTAL,
        total_pages: 2,
        has_next: true,
        has_prev: false,
      });
      const second = page(await client.get('/api/contacts?page=2'));
      expect(second.ids).toEqual(newestFirst.slice(50));
      expect(second.pagination).toEqual({
        page: 2,
        per_page: 50,
        total: TOTAL,
        total_pages: 2,
        has_next: false,
        has_prev: true,
      });
    });

    it('honours per_page up to 100 and pages past the end', async () => {
      const all = page(await client.get('/api/contacts?per_page=100&order=asc'));
      expect(all.ids).toEqual(created);
      expect(all.pagination).toEqual({
        page: 1,
        per_page: 100,
        total: TOTAL,
        total_pages: 1,
        has_next: false,
        has_prev: false,
      });

      const small = page(await client.get('/api/contacts?per_page=20&page=3&order=asc'));
      expect(small.ids).toEqual(created.slice(40, 57));
      expect(small.pagination).toEqual({
        page: 3,
        per_page: 20,
        total: TOTAL,
        total_pages: 3,
        has_next: false,
        has_prev: true,
      });

      const past = await client.get('/api/contacts?per_page=20&page=4');
      expect(past.status).toBe(200);
      expect(past.body).toEqual({
        status: 'ok',
        contacts: [],
        pagination: { page: 4, per_page: 20, total: TOTAL, total_pages: 3, has_next: false, has_prev: true },
      });
      const farPast = page(await client.get('/api/contacts?page=1000000'));
      expect(farPast.ids).toEqual([]);
      expect(farPast.pagination).toEqual({
        page: 1000000,
        per_page: 50,
        total: TOTAL,
        total_pages: 2,
        has_next: false,
        has_prev: true,
      });
    });

    it('refuses per_page outside 1..100 and page below 1', async () => {
      expectValidationError(await client.get('/api/contacts?per_page=101'), ['per_page']);
      expectValidationError(await client.get('/api/contacts?per_page=0'), ['per_page']);
      expectValidationError(await client.get('/api/contacts?per_page=ten'), ['per_page']);
      expectValidationError(await client.get('/api/contacts?page=0'), ['page']);
      expectValidationError(await client.get('/api/contacts?page=-1'), ['page']);
      expectValidationError(await client.get('/api/contacts?page=0&per_page=101'), ['page', 'per_page']);
    });
  });

  it('never returned a secret in any response', () => {
    expect(seen.length).toBeGreaterThan(100);
    expect(secrets.length).toBeGreaterThan(10);
    for (const text of seen) {
      for (const value of secrets) {
        if (text.includes(value)) throw new Error(`a response contained the secret ${value}: ${text.slice(0, 500)}`);
      }
    }
  });
});
