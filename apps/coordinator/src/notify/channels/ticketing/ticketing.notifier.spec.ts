import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { LookupFunction } from 'node:net';
import type { ChannelDetails } from '../../../contacts/channels.js';
import { FakeReceiver } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import { HttpSender } from '../../http-sender.js';
import { DEFAULT_ENDPOINTS } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import type { NotificationEvent } from '../../notification-event.js';
import { INCIDENT_EVENTS, NOW, PICKET_USER_AGENT } from '../notifier-test-kit.js';
import { createTicketingNotifier, zendeskBase } from './ticketing.notifier.js';
import { FakeZendesk, ZENDESK_FAKE_RETRY_AFTER_S, type ZendeskMode } from './zendesk.fake.js';

const EMAIL = 'ops@example.com';
const TOKEN = 'zdTok3nAbCdEfGhIjKlMnOpQrStUvWxYz0123456';
const BASIC = Buffer.from(`${EMAIL}/token:${TOKEN}`).toString('base64');

function contact(overrides: Partial<ChannelDetails['ticketing']> = {}): ChannelDetails['ticketing'] {
  return {
    subdomain: 'acme',
    email: EMAIL,
    api_token: TOKEN,
    priority: 'urgent',
    custom_fields: [{ id: 360001234567, value: 'api' }],
    tags: ['Prod API', 'sre'],
    auto_solve_tickets: true,
    ...overrides,
  };
}

const { down, up, expiring, test } = INCIDENT_EVENTS;

const outcomes: DeliveryOutcome[] = [];

afterAll(() => {
  for (const outcome of outcomes) {
    expect(outcome.detail).not.toContain(TOKEN);
    expect(outcome.detail).not.toContain(BASIC);
  }
});

describe('ticketing notifier (Zendesk Tickets API)', () => {
  const fake = new FakeZendesk(EMAIL, TOKEN);
  let notifier: Notifier<'ticketing'>;

  async function deliver(event: NotificationEvent, details = contact()): Promise<DeliveryOutcome> {
    const outcome = await notifier.deliver(
      details,
      event,
      testContext(() => NOW),
    );
    outcomes.push(outcome);
    return outcome;
  }

  /** Opens a ticket for `down` and returns the up event carrying its id as openRef. */
  async function openTicket(): Promise<NotificationEvent> {
    const outcome = await deliver(down);
    expect(outcome.class).toBe('ok');
    return { ...up, openRef: outcome.ref ?? null };
  }

  beforeAll(async () => {
    await fake.start();
    const endpoints = { ...DEFAULT_ENDPOINTS, zendeskApiUrl: fake.baseUrl };
    notifier = createTicketingNotifier(await testDeps({ endpoints }));
  });

  afterAll(() => fake.stop());

  beforeEach(() => fake.reset());

  it('creates a ticket on down, returns its id, and solves it on up', async () => {
    const created = await deliver(down);
    expect(created).toEqual({ class: 'ok', status: 201, detail: 'HTTP 201: ticket 35436 created', ref: '35436' });
    const [post] = fake.requests;
    expect(post?.method).toBe('POST');
    expect(post?.url).toBe('/api/v2/tickets');
    expect(post?.headers.authorization).toBe(`Basic ${BASIC}`);
    expect(post?.headers['user-agent']).toBe(PICKET_USER_AGENT);
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.headers.accept).toBe('application/json');
    expect(post?.headers['idempotency-key']).toBe('6650a1f0c2e4b0a1b2c3d4e5-6650a1f0c2e4b0a1b2c3d4e6-open');
    expect(post?.json).toEqual({
      ticket: {
        subject: '[DOWN] API (prod)',
        comment: {
          body: [
            'API (prod) is DOWN: HTTP 503.',
            'Failing in 2 of 2 regions:',
            '- eu-west-1: down (HTTP 503)',
            '- us-east-1: down (HTTP 503)',
            '',
            'Target: https://api.example.com/health',
            'Since: 2026-01-01T10:00:00Z',
            'Picket incident: 6650a1f0c2e4b0a1b2c3d4e6',
            'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
          ].join('\n'),
          public: false,
        },
        priority: 'urgent',
        type: 'incident',
        tags: ['prod_api', 'sre', 'picket', 'picket_down'],
        custom_fields: [{ id: 360001234567, value: 'api' }],
        external_id: '6650a1f0c2e4b0a1b2c3d4e6',
      },
    });
    expect(fake.openTickets.map((t) => t.id)).toEqual([35436]);

    const solved = await deliver({ ...up, openRef: created.ref ?? null });
    expect(solved).toEqual({ class: 'ok', status: 200, detail: 'HTTP 200: solve accepted' });
    const put = fake.requests[1];
    expect(put?.method).toBe('PUT');
    expect(put?.url).toBe('/api/v2/tickets/35436');
    expect(put?.headers.authorization).toBe(`Basic ${BASIC}`);
    expect(put?.json).toEqual({
      ticket: { status: 'solved', comment: { body: 'Recovered after 12 min: API (prod) is UP again.', public: false } },
    });
    expect(fake.tickets.size).toBe(1);
    expect(fake.openTickets).toEqual([]);
    expect(fake.tickets.get(35436)?.comments).toHaveLength(2);
    expect(fake.problems).toEqual([]);
  });

  it('a retried create opens no second ticket (Idempotency-Key)', async () => {
    const first = await deliver(down);
    const again = await deliver(down);
    expect(again).toEqual(first);
    expect(fake.tickets.size).toBe(1);
    expect(fake.idempotentHits).toBe(1);
    const next = sampleEvent({
      incidentId: '6650a1f0c2e4b0a1b2c3d4e9',
      dedupKey: '6650a1f0c2e4b0a1b2c3d4e5-6650a1f0c2e4b0a1b2c3d4e9',
    });
    expect((await deliver(next)).ref).toBe('35437');
    expect(fake.requests[2]?.headers['idempotency-key']).toBe(`${next.dedupKey}-open`);
    expect(fake.problems).toEqual([]);
  });

  it('sends nothing on up when auto_solve_tickets is off', async () => {
    const recovered = await openTicket();
    expect(await deliver(recovered, contact({ auto_solve_tickets: false }))).toEqual({
      class: 'ok',
      status: null,
      detail: 'auto_solve_tickets is off: nothing sent',
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.openTickets).toHaveLength(1);
  });

  it('sends nothing on up when no ticket was recorded for the outage', async () => {
    expect(await deliver(up)).toEqual({ class: 'ok', status: null, detail: 'no ticket was opened for this outage' });
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a stored reference that is not a ticket id', async () => {
    const outcome = await deliver({ ...up, openRef: '../users/1' });
    expect(outcome.class).toBe('bug');
    expect(fake.requests).toHaveLength(0);
  });

  it('a deleted ticket counts as solved (404)', async () => {
    const recovered = await openTicket();
    fake.tickets.clear();
    expect(await deliver(recovered)).toEqual({
      class: 'ok',
      status: 404,
      detail: 'HTTP 404: the ticket is gone, nothing to solve',
    });
  });

  it('when the account refuses to solve (422), adds the comment alone in the same attempt', async () => {
    const recovered = await openTicket();
    fake.requireAssigneeToSolve = true;
    const outcome = await deliver(recovered);
    expect(outcome).toEqual({
      class: 'ok',
      status: 200,
      detail: 'HTTP 200: recovery noted on ticket 35436; Zendesk refused to solve it (HTTP 422)',
    });
    expect(fake.requests.slice(1).map((r) => r.json)).toEqual([
      {
        ticket: {
          status: 'solved',
          comment: { body: 'Recovered after 12 min: API (prod) is UP again.', public: false },
        },
      },
      { ticket: { comment: { body: 'Recovered after 12 min: API (prod) is UP again.', public: false } } },
    ]);
    const ticket = fake.tickets.get(35436);
    expect(ticket?.status).toBe('new');
    expect(ticket?.comments.map((c) => c.body)).toEqual([
      expect.stringMatching(/^API \(prod\) is DOWN/),
      'Recovered after 12 min: API (prod) is UP again.',
    ]);
  });

  it('a closed ticket that refuses even the comment is reported with its field errors', async () => {
    const recovered = await openTicket();
    fake.tickets.get(35436)!.status = 'closed';
    expect(await deliver(recovered)).toEqual({
      class: 'bug',
      status: 422,
      detail: 'HTTP 422 RecordInvalid: status: Status: closed prevents ticket update',
    });
    expect(fake.requests).toHaveLength(3);
  });

  it('renders a certificate warning and a test', async () => {
    await deliver(expiring, contact({ priority: 'normal', tags: [], custom_fields: [] }));
    await deliver(test, contact({ priority: 'low', tags: [], custom_fields: [] }));
    const [cert, probe] = fake.requests;
    expect(cert?.headers['idempotency-key']).toBe('6650a1f0c2e4b0a1b2c3d4e5-cert-1768478400-open');
    expect(cert?.json).toEqual({
      ticket: {
        subject: '[CERTIFICATE] API (prod): TLS certificate expires on 2026-01-15 (in 14 days)',
        comment: {
          body: [
            'The TLS certificate of API (prod) expires on 2026-01-15 (in 14 days).',
            '- eu-west-1: down (HTTP 503)',
            '- us-east-1: down (HTTP 503)',
            '',
            'Target: https://api.example.com/health',
            'Certificate expires: 2026-01-15T12:00:00Z',
            'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
          ].join('\n'),
          public: false,
        },
        priority: 'normal',
        type: 'incident',
        tags: ['picket', 'picket_certificate'],
        custom_fields: [],
        external_id: '6650a1f0c2e4b0a1b2c3d4e5-cert-1768478400',
      },
    });
    expect(probe?.headers['idempotency-key']).toBe(`test-${test.id}-open`);
    expect((probe?.json as any).ticket).toMatchObject({
      subject: '[TEST] Test ticket from Picket',
      priority: 'low',
      tags: ['picket', 'picket_test'],
      external_id: `test-${test.id}`,
    });
    expect(fake.problems).toEqual([]);
  });

  it('keeps the subject on one line and within 255 code points', async () => {
    const name = `Shop\r\nBcc: victim@example.com ${'🎫'.repeat(400)}`;
    expect((await deliver(sampleEvent({ monitor: { ...down.monitor, name } }))).class).toBe('ok');
    const subject = (fake.requests[0]?.json as any).ticket.subject as string;
    expect(subject).not.toMatch(/[\r\n]/);
    expect(Array.from(subject)).toHaveLength(255);
    expect(fake.problems).toEqual([]);
  });

  it('a wrong token is refused and disables the contact', async () => {
    const outcome = await deliver(down, contact({ api_token: 'revokedToken123' }));
    expect(outcome).toEqual({
      class: 'disable',
      status: 401,
      detail: 'HTTP 401: Zendesk refused the email and API token',
    });
  });

  it('refuses a subdomain that is not one DNS label without sending', async () => {
    for (const subdomain of ['evil.com/x', 'a.b', '-acme', 'ACME', '']) {
      expect(await deliver(down, contact({ subdomain }))).toEqual({
        class: 'disable',
        status: null,
        detail: 'subdomain is not a single DNS label',
      });
    }
    expect(fake.requests).toHaveLength(0);
    expect(zendeskBase('https://{subdomain}.zendesk.com/', 'acme')).toBe('https://acme.zendesk.com');
  });

  it.each<{
    name: string;
    ticket: Record<string, unknown>;
    headers?: Record<string, string>;
    method?: 'POST' | 'PUT';
    path?: string;
    status: number;
    /** Whether the fake counts it as a mistake of the client (a 404 for a deleted ticket is not). */
    mistake?: false;
  }>([
    {
      name: 'password basic auth',
      ticket: {},
      headers: { authorization: `Basic ${Buffer.from(`${EMAIL}:secret`).toString('base64')}` },
      status: 401,
    },
    { name: 'a tag with a space', ticket: { tags: ['two words'] }, status: 422 },
    { name: 'an unknown priority', ticket: { priority: 'critical' }, status: 422 },
    { name: 'a custom field without id', ticket: { custom_fields: [{ value: 'x' }] }, status: 422 },
    { name: 'a comment without body', ticket: { comment: { public: false } }, status: 422 },
    {
      name: 'a PUT to an unknown ticket',
      ticket: { status: 'solved' },
      method: 'PUT',
      path: '/api/v2/tickets/9',
      status: 404,
      mistake: false,
    },
    { name: 'a create without Idempotency-Key', ticket: {}, headers: { 'idempotency-key': '' }, status: 201 },
  ])('the fake answers $name as Zendesk would, noting client mistakes', async (row) => {
    const deps = await testDeps();
    const valid = { subject: 's', comment: { body: 'b', public: false }, priority: 'low', type: 'incident' };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: `Basic ${BASIC}`,
      'idempotency-key': 'k-open',
      ...row.headers,
    };
    if (headers['idempotency-key'] === '') delete headers['idempotency-key'];
    const response = await deps.http.send(
      {
        method: row.method ?? 'POST',
        url: `${fake.baseUrl}${row.path ?? '/api/v2/tickets'}`,
        headers,
        body: JSON.stringify({ ticket: { ...valid, ...row.ticket } }),
      },
      AbortSignal.timeout(5000),
    );
    expect(response.status).toBe(row.status);
    expect(fake.problems.length > 0).toBe(row.mistake ?? true);
  });

  it('the fake replays an Idempotency-Key with the same body and refuses another body', async () => {
    const deps = await testDeps();
    const send = (subject: string) =>
      deps.http.send(
        {
          method: 'POST',
          url: `${fake.baseUrl}/api/v2/tickets`,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            authorization: `Basic ${BASIC}`,
            'idempotency-key': 'same-key',
          },
          body: JSON.stringify({ ticket: { subject, comment: { body: 'b', public: false } } }),
        },
        AbortSignal.timeout(5000),
      );
    const first = await send('one');
    const again = await send('one');
    const other = await send('two');
    expect([first.status, again.status, other.status]).toEqual([201, 201, 400]);
    expect([first.headers['x-idempotency-lookup'], again.headers['x-idempotency-lookup']]).toEqual(['miss', 'hit']);
    expect(again.body).toBe(first.body);
    expect(fake.tickets.size).toBe(1);
  });

  const table: { mode: ZendeskMode; class: DeliveryOutcome['class']; status: number; retryAfterMs?: number }[] = [
    { mode: 'bad-request', class: 'bug', status: 400 },
    { mode: 'unauthorized', class: 'disable', status: 401 },
    { mode: 'forbidden', class: 'disable', status: 403 },
    { mode: 'conflict', class: 'retry', status: 409 },
    { mode: 'record-invalid', class: 'bug', status: 422 },
    { mode: 'throttle', class: 'retry', status: 429, retryAfterMs: ZENDESK_FAKE_RETRY_AFTER_S * 1000 },
    { mode: 'unavailable', class: 'retry', status: 503, retryAfterMs: ZENDESK_FAKE_RETRY_AFTER_S * 1000 },
    { mode: 'server-error', class: 'retry', status: 500 },
  ];
  it.each(table)('fake mode $mode → $class', async (row) => {
    const recovered = await openTicket();
    fake.mode = row.mode;
    for (const event of [down, recovered, expiring, test]) {
      const outcome = await deliver(event);
      expect(outcome.class).toBe(row.class);
      expect(outcome.status).toBe(row.status);
      expect(outcome.retryAfterMs).toBe(row.retryAfterMs);
      expect(outcome.ref).toBeUndefined();
      expect(outcome.detail).not.toContain(TOKEN);
      expect(outcome.detail).not.toMatch(/concurrently|wait before|Maintenance|do not have access/);
    }
  });

  it('names the field errors of RecordInvalid without the token Zendesk echoed', async () => {
    fake.mode = 'record-invalid';
    expect(await deliver(down)).toEqual({
      class: 'bug',
      status: 422,
      detail: 'HTTP 422 RecordInvalid: custom_fields: Field 360001234567 is invalid (token [REDACTED])',
    });
  });
});

describe('ticketing notifier: {subdomain} in the configured base', () => {
  const fake = new FakeZendesk(EMAIL, TOKEN);
  const loopback: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };

  beforeAll(() => fake.start({ https: false }));
  afterAll(() => fake.stop());

  it('substitutes the contact subdomain into the host name', async () => {
    const port = new URL(fake.baseUrl).port;
    fake.expectedHost = `acme.zendesk.test:${port}`;
    const deps = await testDeps({
      http: new HttpSender({ lookup: loopback, timeoutMs: 2000 }),
      endpoints: { ...DEFAULT_ENDPOINTS, zendeskApiUrl: `http://{subdomain}.zendesk.test:${port}` },
    });
    const notifier = createTicketingNotifier(deps);
    const created = await notifier.deliver(
      contact(),
      down,
      testContext(() => NOW),
    );
    expect(created.class).toBe('ok');
    const solved = await notifier.deliver(
      contact(),
      { ...up, openRef: created.ref ?? null },
      testContext(() => NOW),
    );
    expect(solved.class).toBe('ok');
    expect(fake.requests.map((r) => r.headers.host)).toEqual([fake.expectedHost, fake.expectedHost]);
    expect(fake.openTickets).toEqual([]);
    expect(fake.problems).toEqual([]);
  });
});

/** A canned answer of a plain receiver. */
type Answer = { status: number; headers?: Record<string, string>; body?: string };

describe('ticketing notifier: answers the fake does not give', () => {
  const receiver = new FakeReceiver(() => undefined);
  let notifier: Notifier<'ticketing'>;
  let answer: Answer;

  beforeAll(async () => {
    receiver.handler = (_request, response) => {
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.body ?? '');
    };
    await receiver.start();
    notifier = createTicketingNotifier(
      await testDeps({ endpoints: { ...DEFAULT_ENDPOINTS, zendeskApiUrl: receiver.baseUrl } }),
    );
  });
  afterAll(() => receiver.stop());

  it.each<{ answer: Answer; class: DeliveryOutcome['class']; ref?: string }>([
    { answer: { status: 201, body: '{"ticket":{}}' }, class: 'ok', ref: undefined },
    { answer: { status: 201, body: 'not json' }, class: 'ok', ref: undefined },
    { answer: { status: 200, body: '{"ticket":{"id":7}}' }, class: 'ok', ref: '7' },
    { answer: { status: 404, body: '{"error":"InvalidEndpoint"}' }, class: 'disable', ref: undefined },
    { answer: { status: 422, headers: { 'content-type': 'text/plain' }, body: 'nope' }, class: 'bug', ref: undefined },
    { answer: { status: 502 }, class: 'retry', ref: undefined },
    { answer: { status: 301, headers: { location: 'https://acme.zendesk.com/' } }, class: 'bug', ref: undefined },
  ])('HTTP $answer.status $answer.body → $class', async (row) => {
    answer = row.answer;
    const outcome = await notifier.deliver(
      contact(),
      down,
      testContext(() => NOW),
    );
    outcomes.push(outcome);
    expect(outcome.class).toBe(row.class);
    expect(outcome.ref).toBe(row.ref);
  });

  it('a 422 on the comment-only retry is reported, not retried again', async () => {
    answer = { status: 422, body: '{"error":"RecordInvalid","details":{"assignee_id":[{"error":"InvalidValue"}]}}' };
    receiver.requests.length = 0;
    const outcome = await notifier.deliver(
      contact(),
      { ...up, openRef: '12' },
      testContext(() => NOW),
    );
    expect(outcome).toEqual({ class: 'bug', status: 422, detail: 'HTTP 422 RecordInvalid: assignee_id: InvalidValue' });
    expect(receiver.requests).toHaveLength(2);
  });

  it('no answer at all is retried', async () => {
    const closed = new FakeReceiver(() => undefined);
    await closed.start();
    const endpoints = { ...DEFAULT_ENDPOINTS, zendeskApiUrl: closed.baseUrl };
    await closed.stop();
    const dead = createTicketingNotifier(await testDeps({ endpoints }));
    expect(await dead.deliver(contact(), down, testContext())).toEqual({
      class: 'retry',
      status: null,
      detail: 'connection refused',
    });
  });
});
