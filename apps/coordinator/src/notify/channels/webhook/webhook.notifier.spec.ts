import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import { testPki } from '../../../../../../test/support/tls.js';
import type { ChannelDetails } from '../../../contacts/channels.js';
import { HttpSender } from '../../http-sender.js';
import { NOTIFICATION_EVENTS, TEST_MONITOR_ID, type NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryClass, DeliveryOutcome } from '../../notifier.js';
import { eventOf, NOW, PICKET_USER_AGENT, T0 } from '../notifier-test-kit.js';
import { createWebhookNotifier, WEBHOOK_LIMITS, webhookBody as webhookBodyOf } from './webhook.notifier.js';

// ---- the fake receiver: Picket's contract as a receiver checks it ------------------------

const SECRET = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;
/** Stands for a credential in the contact URL: it must never reach a detail. */
const URL_TOKEN = 'hunter2-url-token';

const HEX24 = '^[0-9a-f]{24}$';
const validateContract = new Ajv({ allErrors: true }).compile({
  type: 'object',
  additionalProperties: false,
  required: ['event', 'incident_id', 'monitor_id', 'monitor_name', 'monitor_settings', 'timestamp', 'status', 'error'],
  properties: {
    event: { enum: [...NOTIFICATION_EVENTS] },
    incident_id: { anyOf: [{ type: 'string', pattern: HEX24 }, { type: 'null' }] },
    monitor_id: { type: 'string', pattern: HEX24 },
    monitor_name: { type: 'string', maxLength: 100 },
    monitor_settings: { type: 'object' },
    timestamp: { type: 'integer', minimum: 0 },
    status: { enum: ['up', 'down'] },
    error: { type: ['string', 'null'] },
    certificate_expires_at: { type: 'integer', minimum: 0 },
  },
  allOf: [
    {
      if: { properties: { event: { const: 'certificate.expiring' } } },
      then: { required: ['certificate_expires_at'], properties: { incident_id: { type: 'null' } } },
      else: { not: { required: ['certificate_expires_at'] } },
    },
    {
      if: { properties: { event: { const: 'contact.test' } } },
      then: {
        properties: {
          monitor_id: { const: TEST_MONITOR_ID },
          status: { const: 'up' },
          error: { type: 'null' },
          incident_id: { type: 'null' },
        },
      },
    },
    { if: { properties: { status: { const: 'up' } } }, then: { properties: { error: { type: 'null' } } } },
  ],
});

/**
 * What a Standard Webhooks receiver checks (docs/decisions/0011-notification-channels.md §5); `signed` paths
 * verify with SECRET.
 */
function problemsOf(request: RecordedRequest): string[] {
  const problems: string[] = [];
  if (request.method !== 'POST') problems.push(`method ${request.method}`);
  if (request.headers['content-type'] !== 'application/json') problems.push('content-type');
  if (request.raw.length >= WEBHOOK_LIMITS.bodyBytes) problems.push(`body of ${request.raw.length} bytes`);
  if (!/^msg_[^.]+$/.test(String(request.headers['webhook-id']))) problems.push('webhook-id');
  if (!/^\d+$/.test(String(request.headers['webhook-timestamp']))) problems.push('webhook-timestamp');
  if (request.json === undefined) problems.push('body is not JSON');
  else if (!validateContract(request.json)) problems.push(JSON.stringify(validateContract.errors));
  const signature = request.headers['webhook-signature'];
  if (request.url.startsWith('/signed')) {
    try {
      new Webhook(SECRET).verify(request.raw.toString('utf8'), {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(signature),
      });
    } catch (error) {
      problems.push(`signature: ${String(error)}`);
    }
  } else if (signature !== undefined) {
    problems.push('signature without a secret');
  }
  return problems;
}

type Answer = ((res: ServerResponse) => void) | 'hang';
let answer: Answer = (res) => reply(res, 204);
const problems: string[][] = [];

const handler = (request: RecordedRequest, res: ServerResponse) => {
  const found = problemsOf(request);
  problems.push(found);
  if (found.length) return reply(res, 400, { problems: found });
  if (answer === 'hang') return; // never answers: the sender's time limit ends the attempt
  answer(res);
};

let receiver: FakeReceiver;
let plainReceiver: FakeReceiver;
let deps: NotifierDeps;
let impatientDeps: NotifierDeps;

beforeAll(async () => {
  receiver = await new FakeReceiver(handler).start({ https: true });
  plainReceiver = await new FakeReceiver(handler).start({ https: false });
  deps = await testDeps();
  impatientDeps = await testDeps({ http: new HttpSender({ ca: [(await testPki()).ca], timeoutMs: 300 }) });
});

afterAll(async () => {
  await receiver.stop();
  await plainReceiver.stop();
});

beforeEach(() => {
  answer = (res) => reply(res, 204);
  problems.length = 0;
  receiver.requests.length = 0;
  plainReceiver.requests.length = 0;
});

const signedContact = (): ChannelDetails['webhook'] => ({
  url: `${receiver.baseUrl}/signed/hook?token=${URL_TOKEN}`,
  secret: SECRET,
});
const plainContact = (): ChannelDetails['webhook'] => ({
  url: `${receiver.baseUrl}/plain/hook?token=${URL_TOKEN}`,
  secret: null,
});

function deliver(event: NotificationEvent, contact = signedContact(), now = () => Date.now(), via = deps) {
  return createWebhookNotifier(via).deliver(contact, event, testContext(now));
}

function onlyRequest(from = receiver): RecordedRequest {
  expect(from.requests).toHaveLength(1);
  return from.requests[0]!;
}

// ---- tests --------------------------------------------------------------------------------

describe('the fake receiver', () => {
  const request = (path: string, body: unknown, headers: Record<string, string> = {}): RecordedRequest => {
    const raw = Buffer.from(JSON.stringify(body));
    return {
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': '1', ...headers },
      raw,
      json: body,
    };
  };
  const contract = JSON.parse(webhookBodyOf(eventOf('monitor.down'))) as Record<string, unknown>;

  it('accepts the contract and refuses missing fields, stray fields and a missing signature', () => {
    expect(problemsOf(request('/plain', contract))).toEqual([]);
    const { error: _, ...noError } = contract;
    expect(problemsOf(request('/plain', noError)).join()).toMatch(/error/);
    expect(problemsOf(request('/plain', { ...contract, certificate_expires_at: 1 })).join()).toMatch(/not/);
    expect(problemsOf(request('/signed', contract)).join()).toMatch(/signature/);
    expect(problemsOf(request('/plain', contract, { 'webhook-signature': 'v1,x' }))).toEqual([
      'signature without a secret',
    ]);
  });
});

describe('webhook notifier: the happy path', () => {
  it.each(NOTIFICATION_EVENTS)('delivers %s as the §5 contract, signed', async (type) => {
    const outcome = await deliver(eventOf(type));
    expect(outcome).toEqual({ class: 'ok', status: 204, detail: 'HTTP 204' });
    expect(problems).toEqual([[]]);
    const request = onlyRequest();
    expect(request.url).toBe(`/signed/hook?token=${URL_TOKEN}`);
    expect(request.headers['webhook-id']).toBe('msg_6650a1f0c2e4b0a1b2c3d4e7');
    expect(request.headers['user-agent']).toBe(PICKET_USER_AGENT);
  });

  it('renders each event with its own fields', async () => {
    for (const type of NOTIFICATION_EVENTS) await deliver(eventOf(type));
    const [down, reminder, up, cert, test] = receiver.requests.map((r) => r.json as Record<string, unknown>);
    expect(down).toEqual({
      event: 'monitor.down',
      incident_id: '6650a1f0c2e4b0a1b2c3d4e6',
      monitor_id: '6650a1f0c2e4b0a1b2c3d4e5',
      monitor_name: 'API (prod)',
      monitor_settings: { https: { url: 'https://api.example.com/health', check_certificate_expiration: true } },
      timestamp: T0,
      status: 'down',
      error: 'HTTP 503',
    });
    // A reminder tells the same outage again: its incident, still down, at its own time.
    expect(reminder).toEqual({ ...down, event: 'monitor.down.reminder', timestamp: T0 + 600 });
    expect(up).toMatchObject({ event: 'monitor.up', incident_id: down!.incident_id, status: 'up', error: null });
    expect(up!.timestamp).toBe(T0 + 720);
    expect(cert).toMatchObject({
      event: 'certificate.expiring',
      incident_id: null,
      status: 'up',
      certificate_expires_at: T0 + 14 * 86400,
    });
    expect(test).toEqual({
      event: 'contact.test',
      incident_id: null,
      monitor_id: TEST_MONITOR_ID,
      monitor_name: 'Test monitor',
      monitor_settings: {},
      timestamp: T0,
      status: 'up',
      error: null,
    });
    expect(Object.keys(down!)).toEqual([
      'event',
      'incident_id',
      'monitor_id',
      'monitor_name',
      'monitor_settings',
      'timestamp',
      'status',
      'error',
    ]);
  });

  it('stamps each attempt with its own time; id and body stay the same across retries', async () => {
    const first = Date.now() - 60_000;
    const second = Date.now();
    await deliver(eventOf('monitor.down'), signedContact(), () => first);
    await deliver(eventOf('monitor.down'), signedContact(), () => second);
    expect(problems).toEqual([[], []]);
    const [a, b] = receiver.requests;
    expect(a!.headers['webhook-timestamp']).toBe(String(Math.floor(first / 1000)));
    expect(b!.headers['webhook-timestamp']).toBe(String(Math.floor(second / 1000)));
    expect(a!.headers['webhook-id']).toBe(b!.headers['webhook-id']);
    expect(a!.raw.equals(b!.raw)).toBe(true);
    expect(a!.headers['webhook-signature']).not.toBe(b!.headers['webhook-signature']);
  });

  it('sends no signature when the contact has no secret', async () => {
    expect((await deliver(eventOf('monitor.down'), plainContact())).class).toBe('ok');
    expect(problems).toEqual([[]]);
    expect(onlyRequest().headers['webhook-signature']).toBeUndefined();
  });

  it('also delivers to a plain http URL', async () => {
    const outcome = await deliver(eventOf('monitor.up'), { url: `${plainReceiver.baseUrl}/signed/x`, secret: SECRET });
    expect(outcome.class).toBe('ok');
    expect(problems).toEqual([[]]);
    expect(onlyRequest(plainReceiver).json).toMatchObject({ event: 'monitor.up' });
  });

  it('passes hostile and non-ASCII names through JSON untouched, signing the exact bytes', async () => {
    const name = '@everyone <b>& "quoted" \\ Café ☕ 🚀 \u2028 line';
    const outcome = await deliver(eventOf('monitor.down', { monitor: { ...sampleEvent().monitor, name } }));
    expect(outcome.class).toBe('ok');
    expect(problems).toEqual([[]]);
    expect((onlyRequest().json as { monitor_name: string }).monitor_name).toBe(name);
  });

  it('keeps the body under 20 KB: long names and causes are cut, huge settings shortened', async () => {
    const monitor = sampleEvent().monitor;
    const event = eventOf('monitor.down', {
      monitor: {
        ...monitor,
        name: '🚀'.repeat(300),
        settings: {
          https: {
            url: 'https://api.example.com/health',
            check_certificate_expiration: true,
            request_headers: 'X-A: b\n'.repeat(1100),
            request_body: 'é'.repeat(65536),
          },
        },
      },
      error: 'x'.repeat(5000),
    });
    expect((await deliver(event)).class).toBe('ok');
    expect(problems).toEqual([[]]);
    const request = onlyRequest();
    expect(request.raw.length).toBeLessThan(20_000);
    const body = request.json as { monitor_name: string; error: string; monitor_settings: { https: { url: string } } };
    expect(Array.from(body.monitor_name)).toHaveLength(100);
    expect(body.monitor_name.endsWith('…')).toBe(true);
    expect(Array.from(body.error)).toHaveLength(WEBHOOK_LIMITS.error);
    expect(body.monitor_settings.https.url).toBe('https://api.example.com/health');
  });

  it('gives an unusable stored secret the bug class without sending anything', async () => {
    const outcome = await deliver(eventOf('monitor.down'), { ...signedContact(), secret: 'whsec_hunter2!' });
    expect(outcome).toMatchObject({ class: 'bug', status: null });
    expect(outcome.detail).not.toContain('hunter2');
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('webhook notifier: classification (§5: 2xx ok, 410 disable, 413 bug, everything else retry)', () => {
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const modes: {
    mode: string;
    answer: Answer;
    class: DeliveryClass;
    status: number | null;
    retryAfterMs?: number;
    impatient?: boolean;
    url?: string;
  }[] = [
    { mode: '200', answer: (res) => reply(res, 200, 'thanks'), class: 'ok', status: 200 },
    { mode: '204', answer: (res) => reply(res, 204), class: 'ok', status: 204 },
    {
      mode: 'slow 2xx',
      answer: (res) => void wait(200).then(() => reply(res, 202)),
      class: 'ok',
      status: 202,
    },
    {
      mode: '302 (redirects are not followed)',
      answer: (res) => reply(res, 302, undefined, { location: '/elsewhere' }),
      class: 'retry',
      status: 302,
    },
    { mode: '400', answer: (res) => reply(res, 400), class: 'retry', status: 400 },
    { mode: '401', answer: (res) => reply(res, 401), class: 'retry', status: 401 },
    { mode: '404', answer: (res) => reply(res, 404), class: 'retry', status: 404 },
    { mode: '408', answer: (res) => reply(res, 408), class: 'retry', status: 408 },
    { mode: '410', answer: (res) => reply(res, 410), class: 'disable', status: 410 },
    { mode: '413', answer: (res) => reply(res, 413), class: 'bug', status: 413 },
    {
      mode: '429 + Retry-After: 1',
      answer: (res) => reply(res, 429, undefined, { 'retry-after': '1' }),
      class: 'retry',
      status: 429,
      retryAfterMs: 1000,
    },
    { mode: '500', answer: (res) => reply(res, 500, 'boom'), class: 'retry', status: 500 },
    {
      mode: '503 + Retry-After as an HTTP-date',
      answer: (res) => reply(res, 503, undefined, { 'retry-after': new Date(NOW + 30_000).toUTCString() }),
      class: 'retry',
      status: 503,
      retryAfterMs: 30_000,
    },
    { mode: 'hang (timeout)', answer: 'hang', class: 'retry', status: null, impatient: true },
    {
      mode: 'connection refused',
      answer: (res) => reply(res, 204),
      class: 'retry',
      status: null,
      url: `https://127.0.0.1:1/plain/hook?token=${URL_TOKEN}`,
    },
  ];

  it.each(modes)('$mode → $class', async (mode) => {
    answer = mode.answer;
    const contact = mode.url ? { url: mode.url, secret: null } : plainContact();
    const outcome: DeliveryOutcome = await deliver(
      eventOf('monitor.down'),
      contact,
      () => NOW,
      mode.impatient ? impatientDeps : deps,
    );
    expect(outcome.class).toBe(mode.class);
    expect(outcome.status).toBe(mode.status);
    expect(outcome.retryAfterMs).toBe(mode.retryAfterMs);
    expect(outcome.detail).not.toContain(URL_TOKEN);
    expect(outcome.detail).not.toContain('127.0.0.1');
    expect(problems.flat()).toEqual([]);
  });
});
