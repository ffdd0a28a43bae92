import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ChannelDetails } from '../../../contacts/channels.js';
import { FakeReceiver } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import { DEFAULT_ENDPOINTS } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import type { NotificationEvent } from '../../notification-event.js';
import { INCIDENT_EVENTS, NOW, PICKET_USER_AGENT } from '../notifier-test-kit.js';
import { createAlertingNotifier } from './alerting.notifier.js';
import { FakeOpsgenie, OPSGENIE_FAKE_RETRY_AFTER_S, type OpsgenieMode } from './opsgenie.fake.js';

const API_KEY = 'f3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const TEAM = '4513b7ea-3b91-438f-b7e4-e3e54af9147c';

function contact(overrides: Partial<ChannelDetails['alerting']> = {}): ChannelDetails['alerting'] {
  return {
    api_key: API_KEY,
    priority: 'P1',
    responders: [{ type: 'team', id: TEAM }],
    tags: ['prod', 'api'],
    auto_close_alerts: true,
    eu_instance: false,
    ...overrides,
  };
}

const { down, up, expiring, test } = INCIDENT_EVENTS;

describe('alerting notifier (Opsgenie Alert API v2)', () => {
  const us = new FakeOpsgenie(API_KEY);
  const eu = new FakeOpsgenie(API_KEY);
  let notifier: Notifier<'alerting'>;
  const outcomes: DeliveryOutcome[] = [];

  async function deliver(event: NotificationEvent, details = contact()): Promise<DeliveryOutcome> {
    const outcome = await notifier.deliver(
      details,
      event,
      testContext(() => NOW),
    );
    outcomes.push(outcome);
    return outcome;
  }

  beforeAll(async () => {
    await Promise.all([us.start(), eu.start()]);
    const endpoints = { ...DEFAULT_ENDPOINTS, opsgenieApiUrl: us.baseUrl, opsgenieEuApiUrl: `${eu.baseUrl}/` };
    notifier = createAlertingNotifier(await testDeps({ endpoints }));
  });

  afterAll(async () => {
    await Promise.all([us.stop(), eu.stop()]);
    for (const outcome of outcomes) expect(outcome.detail).not.toContain(API_KEY);
  });

  beforeEach(() => {
    us.reset();
    eu.reset();
  });

  it('creates an alert on down and closes it by alias on up', async () => {
    expect(await deliver(down)).toEqual({ class: 'ok', status: 202, detail: 'HTTP 202: create accepted' });
    const [create] = us.requests;
    expect(create?.method).toBe('POST');
    expect(create?.url).toBe('/v2/alerts');
    expect(create?.headers.authorization).toBe(`GenieKey ${API_KEY}`);
    expect(create?.headers['user-agent']).toBe(PICKET_USER_AGENT);
    expect(create?.headers['content-type']).toBe('application/json');
    expect(create?.json).toEqual({
      message: 'DOWN: API (prod), HTTP 503',
      alias: '6650a1f0c2e4b0a1b2c3d4e5-6650a1f0c2e4b0a1b2c3d4e6',
      description: [
        'API (prod) is DOWN: HTTP 503.',
        'Failing in 2 of 2 regions.',
        '',
        'Target: https://api.example.com/health',
        '- eu-west-1: down (HTTP 503)',
        '- us-east-1: down (HTTP 503)',
        '',
        'Since 2026-01-01T10:00:00Z',
        '',
        'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
      ].join('\n'),
      responders: [{ type: 'team', id: TEAM }],
      tags: ['prod', 'api', 'picket', 'down'],
      details: {
        event: 'monitor.down',
        severity: 'critical',
        monitor_id: '6650a1f0c2e4b0a1b2c3d4e5',
        monitor: 'API (prod)',
        target: 'https://api.example.com/health',
        error: 'HTTP 503',
        incident_id: '6650a1f0c2e4b0a1b2c3d4e6',
        started_at: '2026-01-01T10:00:00Z',
        regions: 'eu-west-1: down (HTTP 503); us-east-1: down (HTTP 503)',
        link: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
      },
      entity: 'api.example.com',
      priority: 'P1',
      source: 'Picket',
    });
    expect([...us.open.keys()]).toEqual([down.dedupKey]);

    expect(await deliver(up)).toEqual({ class: 'ok', status: 202, detail: 'HTTP 202: close accepted' });
    const close = us.requests[1];
    expect(close?.url).toBe(`/v2/alerts/${down.dedupKey}/close?identifierType=alias`);
    expect(close?.headers.authorization).toBe(`GenieKey ${API_KEY}`);
    expect(close?.json).toEqual({ source: 'Picket', note: 'API (prod) is UP again after 12 min.' });
    expect(us.opened).toBe(1);
    expect(us.closed).toEqual([{ alias: down.dedupKey, note: 'API (prod) is UP again after 12 min.' }]);
    expect(us.open.size).toBe(0);
    expect(us.problems).toEqual([]);
    expect(eu.requests).toHaveLength(0);
  });

  it('a repeated alias is counted by Opsgenie, not duplicated', async () => {
    await deliver(down);
    await deliver(down);
    expect(us.opened).toBe(1);
    expect(us.open.get(down.dedupKey!)?.count).toBe(2);
  });

  it('uses the EU base when eu_instance is set', async () => {
    const details = contact({ eu_instance: true });
    expect((await deliver(down, details)).class).toBe('ok');
    expect((await deliver(up, details)).class).toBe('ok');
    expect(us.requests).toHaveLength(0);
    expect(eu.requests.map((r) => r.url)).toEqual([
      '/v2/alerts',
      `/v2/alerts/${down.dedupKey}/close?identifierType=alias`,
    ]);
    expect(eu.opened).toBe(1);
    expect(eu.open.size).toBe(0);
    expect(eu.problems).toEqual([]);
  });

  it('sends nothing on up when auto_close_alerts is off', async () => {
    await deliver(down);
    expect(await deliver(up, contact({ auto_close_alerts: false }))).toEqual({
      class: 'ok',
      status: null,
      detail: 'auto_close_alerts is off: nothing sent',
    });
    expect(us.requests).toHaveLength(1);
    expect(us.open.size).toBe(1);
  });

  it('URL-encodes the alias in the close path', async () => {
    const odd = { dedupKey: 'odd/key with spaces?&#' };
    await deliver(sampleEvent(odd));
    await deliver({ ...up, ...odd });
    expect(us.requests[1]?.url).toBe('/v2/alerts/odd%2Fkey%20with%20spaces%3F%26%23/close?identifierType=alias');
    expect(us.opened).toBe(1);
    expect(us.open.size).toBe(0);
    expect(us.problems).toEqual([]);
  });

  it('keeps every field within Opsgenie limits', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `team-${i}-${'t'.repeat(40)}`);
    const event = sampleEvent({
      monitor: { ...down.monitor, name: `Checkout ${'🛒'.repeat(200)}` },
      error: `HTTP 503 ${'e'.repeat(20_000)}`,
      regions: down.regions.map((r) => ({ ...r, error: 'x'.repeat(5000) })),
    });
    expect((await deliver(event, contact({ tags: twenty }))).class).toBe('ok');
    const body = us.requests[0]?.json as any;
    expect(Array.from(body.message as string)).toHaveLength(130);
    expect(body.tags).toEqual(twenty);
    const total = Object.entries(body.details as Record<string, string>).reduce(
      (sum, [k, v]) => sum + Array.from(k).length + Array.from(v).length,
      0,
    );
    expect(total).toBeLessThanOrEqual(8000);
    expect(Array.from(body.description as string).length).toBeLessThanOrEqual(15_000);
    expect(us.problems).toEqual([]);
  });

  it('renders a certificate warning and a test', async () => {
    await deliver(expiring, contact({ priority: 'P3', responders: [], tags: [] }));
    await deliver(test, contact({ priority: 'P5', responders: [], tags: [] }));
    const [cert, probe] = us.requests.map((r) => r.json as any);
    expect(cert.message).toBe('TLS certificate expires on 2026-01-15 (in 14 days): API (prod)');
    expect(cert.alias).toBe(expiring.dedupKey);
    expect(cert.tags).toEqual(['picket', 'certificate']);
    expect(cert.details.certificate_expires_at).toBe('2026-01-15T12:00:00Z');
    expect(cert.details.severity).toBe('medium');
    expect(cert.priority).toBe('P3');
    expect(probe.message).toBe('Test alert from Picket');
    expect(probe.alias).toBe(`test-${test.id}`);
    expect(probe.entity).toBe('Picket');
    expect(probe.priority).toBe('P5');
    expect(probe.tags).toEqual(['picket', 'test']);
    expect(us.problems).toEqual([]);
  });

  it('a wrong key is refused and disables the contact', async () => {
    const outcome = await deliver(down, contact({ api_key: 'wrong-key-0123' }));
    expect(outcome).toEqual({ class: 'disable', status: 401, detail: 'HTTP 401: Opsgenie refused the API key' });
    expect(outcome.detail).not.toContain('wrong-key-0123');
  });

  it.each<{
    name: string;
    body: Record<string, unknown>;
    headers?: Record<string, string>;
    path?: string;
    status: number;
  }>([
    { name: 'a Bearer header', body: {}, headers: { authorization: `Bearer ${API_KEY}` }, status: 401 },
    { name: 'a message of 131 characters', body: { message: 'm'.repeat(131) }, status: 422 },
    { name: 'priority P6', body: { priority: 'P6' }, status: 422 },
    { name: '21 tags', body: { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, status: 422 },
    { name: 'a tag of 51 characters', body: { tags: ['t'.repeat(51)] }, status: 422 },
    {
      name: 'details over 8000 characters',
      body: { details: { a: 'x'.repeat(4000), b: 'y'.repeat(4000) } },
      status: 422,
    },
    { name: 'a details value that is not a string', body: { details: { n: 1 } }, status: 422 },
    { name: 'an unknown responder type', body: { responders: [{ type: 'group', id: 'x' }] }, status: 422 },
    { name: 'plain text', body: {}, headers: { 'content-type': 'text/plain' }, status: 415 },
    { name: 'a close by id', body: { message: undefined, alias: undefined }, path: '/v2/alerts/k/close', status: 422 },
  ])('the fake refuses $name as Opsgenie does', async (row) => {
    const deps = await testDeps();
    const valid = { message: 'm', alias: 'k', priority: 'P3', source: 'Picket' };
    const response = await deps.http.send(
      {
        method: 'POST',
        url: `${us.baseUrl}${row.path ?? '/v2/alerts'}`,
        headers: { 'content-type': 'application/json', authorization: `GenieKey ${API_KEY}`, ...row.headers },
        body: JSON.stringify({ ...valid, ...row.body }),
      },
      AbortSignal.timeout(5000),
    );
    expect(response.status).toBe(row.status);
    expect(us.problems).not.toEqual([]);
    expect(us.open.size).toBe(0);
  });

  const table: { mode: OpsgenieMode; class: DeliveryOutcome['class']; status: number; retryAfterMs?: number }[] = [
    { mode: 'bad-request', class: 'bug', status: 400 },
    { mode: 'unauthorized', class: 'disable', status: 401 },
    { mode: 'payment-required', class: 'disable', status: 402 },
    { mode: 'forbidden', class: 'disable', status: 403 },
    { mode: 'not-found', class: 'disable', status: 404 },
    { mode: 'unsupported-media-type', class: 'bug', status: 415 },
    { mode: 'unprocessable', class: 'bug', status: 422 },
    { mode: 'throttle', class: 'retry', status: 429 },
    { mode: 'server-error', class: 'retry', status: 500 },
    { mode: 'unavailable', class: 'retry', status: 503, retryAfterMs: OPSGENIE_FAKE_RETRY_AFTER_S * 1000 },
  ];
  it.each(table)('fake mode $mode → $class', async (row) => {
    for (const region of [false, true]) {
      (region ? eu : us).mode = row.mode;
      for (const event of [down, up, expiring, test]) {
        const outcome = await deliver(event, contact({ eu_instance: region }));
        expect(outcome.class).toBe(row.class);
        expect(outcome.status).toBe(row.status);
        expect(outcome.retryAfterMs).toBe(row.retryAfterMs);
        expect(outcome.detail).not.toContain(API_KEY);
      }
    }
  });
});

/** A canned answer of a plain receiver. */
type Answer = { status: number; headers?: Record<string, string>; body?: string };

describe('alerting notifier: answers the fake does not give', () => {
  const receiver = new FakeReceiver(() => undefined);
  let notifier: Notifier<'alerting'>;
  let answer: Answer;

  beforeAll(async () => {
    receiver.handler = (_request, response) => {
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.body ?? '');
    };
    await receiver.start();
    const endpoints = { ...DEFAULT_ENDPOINTS, opsgenieApiUrl: receiver.baseUrl, opsgenieEuApiUrl: receiver.baseUrl };
    notifier = createAlertingNotifier(await testDeps({ endpoints }));
  });
  afterAll(() => receiver.stop());

  it.each<{ answer: Answer; class: DeliveryOutcome['class']; retryAfterMs?: number }>([
    { answer: { status: 429, headers: { 'retry-after': '60' } }, class: 'retry', retryAfterMs: 60_000 },
    {
      answer: { status: 429, headers: { 'retry-after': 'Thu, 01 Jan 2026 10:00:30 GMT' } },
      class: 'retry',
      retryAfterMs: 30_000,
    },
    { answer: { status: 502 }, class: 'retry', retryAfterMs: undefined },
    { answer: { status: 504 }, class: 'retry', retryAfterMs: undefined },
    { answer: { status: 409 }, class: 'bug', retryAfterMs: undefined },
    { answer: { status: 302, headers: { location: 'https://example.com/' } }, class: 'bug', retryAfterMs: undefined },
  ])('HTTP $answer.status → $class', async (row) => {
    answer = row.answer;
    const outcome = await notifier.deliver(
      contact(),
      down,
      testContext(() => NOW),
    );
    expect(outcome.class).toBe(row.class);
    expect(outcome.retryAfterMs).toBe(row.retryAfterMs);
  });

  it('no answer at all is retried', async () => {
    const closed = new FakeReceiver(() => undefined);
    await closed.start();
    const endpoints = { ...DEFAULT_ENDPOINTS, opsgenieApiUrl: closed.baseUrl, opsgenieEuApiUrl: closed.baseUrl };
    await closed.stop();
    const dead = createAlertingNotifier(await testDeps({ endpoints }));
    expect(await dead.deliver(contact(), down, testContext())).toEqual({
      class: 'retry',
      status: null,
      detail: 'connection refused',
    });
  });
});
