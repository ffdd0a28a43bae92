import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ChannelDetails } from '../../../contacts/channels.js';
import { FakeReceiver } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import { DEFAULT_ENDPOINTS, type NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import type { NotificationEvent } from '../../notification-event.js';
import { INCIDENT_EVENTS, NOW, PICKET_USER_AGENT } from '../notifier-test-kit.js';
import { FakePagerDuty, type PagerDutyMode } from './pagerduty.fake.js';
import { createPagingNotifier, PAGERDUTY_MIN_BACKOFF_MS } from './paging.notifier.js';

const KEY = 'R0ut1ngKeyAbcdefGhijklmnopQrstuv';
const OTHER_KEY = 'abcdef0123456789ABCDEF0123456789';

function contact(overrides: Partial<ChannelDetails['paging']> = {}): ChannelDetails['paging'] {
  return {
    integration_key: KEY,
    severity_mapping: { critical: 'critical', high: 'error', medium: 'warning', low: 'info' },
    auto_resolve_incidents: true,
    ...overrides,
  };
}

const { down, up, expiring, test } = INCIDENT_EVENTS;

describe('paging notifier (PagerDuty Events API v2)', () => {
  const fake = new FakePagerDuty();
  let deps: NotifierDeps;
  let notifier: Notifier<'paging'>;
  /** Every outcome of this file: none may carry the routing key. */
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
    await fake.start();
    deps = await testDeps({ endpoints: { ...DEFAULT_ENDPOINTS, pagerDutyEventsUrl: fake.url } });
    notifier = createPagingNotifier(deps);
  });

  afterAll(async () => {
    await fake.stop();
    for (const outcome of outcomes) {
      expect(outcome.detail).not.toContain(KEY);
      expect(outcome.detail).not.toContain(OTHER_KEY);
    }
  });

  beforeEach(() => {
    fake.mode = 'accept';
    fake.open.clear();
    fake.resolved.length = 0;
    fake.opened = 0;
    fake.requests.length = 0;
    fake.problems.length = 0;
  });

  it('triggers on down and resolves the same alert on up', async () => {
    expect(await deliver(down)).toEqual({ class: 'ok', status: 202, detail: 'HTTP 202: trigger accepted' });
    expect([...fake.open.keys()]).toEqual([down.dedupKey]);

    const [trigger] = fake.requests;
    expect(trigger?.method).toBe('POST');
    expect(trigger?.url).toBe('/v2/enqueue');
    expect(trigger?.headers.authorization).toBeUndefined();
    expect(trigger?.headers['user-agent']).toBe(PICKET_USER_AGENT);
    expect(trigger?.headers['content-type']).toBe('application/json');
    expect(trigger?.json).toEqual({
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: '6650a1f0c2e4b0a1b2c3d4e5-6650a1f0c2e4b0a1b2c3d4e6',
      payload: {
        summary: 'API (prod) is DOWN: HTTP 503',
        source: 'api.example.com',
        severity: 'critical',
        timestamp: '2026-01-01T10:00:00Z',
        class: 'monitor down',
        custom_details: {
          monitor: 'API (prod)',
          monitor_id: '6650a1f0c2e4b0a1b2c3d4e5',
          target: 'https://api.example.com/health',
          error: 'HTTP 503',
          regions: [
            { region: 'eu-west-1', status: 'down', error: 'HTTP 503' },
            { region: 'us-east-1', status: 'down', error: 'HTTP 503' },
          ],
          incident_id: '6650a1f0c2e4b0a1b2c3d4e6',
          started_at: '2026-01-01T10:00:00Z',
          link: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
        },
      },
      client: 'Picket',
      client_url: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
      links: [{ href: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5', text: 'Open in Picket' }],
    });

    expect(await deliver(up)).toEqual({ class: 'ok', status: 202, detail: 'HTTP 202: resolve accepted' });
    expect(fake.requests[1]?.json).toEqual({ routing_key: KEY, event_action: 'resolve', dedup_key: down.dedupKey });
    expect(fake.opened).toBe(1);
    expect(fake.resolved).toEqual([down.dedupKey]);
    expect(fake.open.size).toBe(0);
    expect(fake.problems).toEqual([]);
  });

  it('a retried trigger adds to the open alert instead of opening another', async () => {
    await deliver(down);
    await deliver(down);
    expect(fake.opened).toBe(1);
    expect(fake.open.get(down.dedupKey!)?.triggers).toBe(2);
    const next = sampleEvent({
      incidentId: '6650a1f0c2e4b0a1b2c3d4e9',
      dedupKey: '6650a1f0c2e4b0a1b2c3d4e5-6650a1f0c2e4b0a1b2c3d4e9',
    });
    await deliver(next);
    expect(fake.opened).toBe(2);
    await deliver({ ...up, incidentId: next.incidentId, dedupKey: next.dedupKey });
    expect([...fake.open.keys()]).toEqual([down.dedupKey]);
    expect(fake.problems).toEqual([]);
  });

  it('sends nothing on up when auto_resolve_incidents is off', async () => {
    await deliver(down);
    const outcome = await deliver(up, contact({ auto_resolve_incidents: false }));
    expect(outcome).toEqual({ class: 'ok', status: null, detail: 'auto_resolve_incidents is off: nothing sent' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.open.size).toBe(1);
  });

  it('maps Picket severities through the contact severity_mapping', async () => {
    const mapping = { critical: 'error', high: 'error', medium: 'info', low: 'warning' };
    await deliver(down, contact({ severity_mapping: mapping }));
    await deliver(expiring, contact({ severity_mapping: mapping }));
    await deliver(sampleEvent({ ...expiring, id: '6650a1f0c2e4b0a1b2c3d4f3', severity: 'high' }), contact());
    const sent = fake.requests.map((r) => (r.json as { payload: { severity: string } }).payload.severity);
    expect(sent).toEqual(['error', 'info', 'error']);
  });

  it('renders a certificate warning under its own key, at medium severity', async () => {
    expect((await deliver(expiring)).class).toBe('ok');
    const body = fake.requests[0]?.json as any;
    expect(body.dedup_key).toBe('6650a1f0c2e4b0a1b2c3d4e5-cert-1768478400');
    expect(body.payload.severity).toBe('warning');
    expect(body.payload.summary).toBe('API (prod): TLS certificate expires on 2026-01-15 (in 14 days)');
    expect(body.payload.custom_details.certificate_expires_at).toBe('2026-01-15T12:00:00Z');
    expect(body.payload.class).toBe('certificate expiring');
    expect(fake.problems).toEqual([]);
  });

  it('sends contact.test as a trigger under a test key at the low mapping', async () => {
    expect((await deliver(test)).class).toBe('ok');
    const body = fake.requests[0]?.json as any;
    expect(body.event_action).toBe('trigger');
    expect(body.dedup_key).toBe(`test-${test.id}`);
    expect(body.payload.severity).toBe('info');
    expect(body.payload.source).toBe('picket');
    expect(body.payload.summary).toMatch(/^Test notification from Picket/);
    expect(body.client_url).toBeUndefined();
    expect(body.links).toBeUndefined();
    expect(fake.problems).toEqual([]);
  });

  it('keeps the summary within 1024 code points and on one line', async () => {
    const name = `Shop\r\nX-Injected: 1 ${'🚀'.repeat(1100)}`;
    await deliver(sampleEvent({ monitor: { ...down.monitor, name } }));
    const summary = (fake.requests[0]?.json as any).payload.summary as string;
    expect(Array.from(summary)).toHaveLength(1024);
    expect(summary).not.toMatch(/[\r\n]/);
    expect(summary.endsWith('…')).toBe(true);
    expect(fake.problems).toEqual([]);
  });

  it('a malformed integration key is refused by PagerDuty and disables the contact', async () => {
    const outcome = await deliver(down, contact({ integration_key: 'short-key' }));
    expect(outcome).toEqual({
      class: 'disable',
      status: 400,
      detail: 'HTTP 400: PagerDuty refused the integration key',
    });
    expect(outcome.detail).not.toContain('short-key');
  });

  it.each<{
    name: string;
    body: Record<string, unknown>;
    headers?: Record<string, string>;
    path?: string;
    status: number;
  }>([
    { name: 'an auth header', body: {}, headers: { authorization: `Token ${KEY}` }, status: 400 },
    { name: 'a 31-character routing key', body: { routing_key: KEY.slice(1) }, status: 400 },
    { name: 'a summary of 1025 characters', body: { payload: { summary: 'x'.repeat(1025) } }, status: 400 },
    { name: 'an unknown severity', body: { payload: { severity: 'fatal' } }, status: 400 },
    { name: 'a trigger without payload', body: { payload: undefined }, status: 400 },
    { name: 'a dedup_key of 256 characters', body: { dedup_key: 'k'.repeat(256) }, status: 400 },
    { name: 'client_url on a resolve', body: { event_action: 'resolve', payload: undefined }, status: 400 },
    { name: 'another path', body: {}, path: '/v2/change/enqueue', status: 404 },
  ])('the fake refuses $name as PagerDuty does', async (row) => {
    const valid = {
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: 'k',
      payload: { summary: 's', source: 'h', severity: 'info' },
      client_url: 'https://picket.example.com/',
    };
    const response = await deps.http.send(
      {
        method: 'POST',
        url: `${fake.receiver.baseUrl}${row.path ?? '/v2/enqueue'}`,
        headers: { 'content-type': 'application/json', ...row.headers },
        body: JSON.stringify({ ...valid, ...row.body }),
      },
      AbortSignal.timeout(5000),
    );
    expect(response.status).toBe(row.status);
    expect(fake.problems).not.toEqual([]);
    expect(fake.open.size).toBe(0);
  });

  const table: { mode: PagerDutyMode; class: DeliveryOutcome['class']; status: number; retryAfterMs?: number }[] = [
    { mode: 'routing-key-error', class: 'disable', status: 400 },
    { mode: 'invalid-event', class: 'bug', status: 400 },
    { mode: 'throttle', class: 'retry', status: 429, retryAfterMs: PAGERDUTY_MIN_BACKOFF_MS },
    { mode: 'server-error', class: 'retry', status: 500 },
  ];
  it.each(table)('fake mode $mode → $class', async (row) => {
    fake.mode = row.mode;
    for (const event of [down, up, expiring, test]) {
      const outcome = await deliver(event, contact({ integration_key: OTHER_KEY }));
      expect(outcome.class).toBe(row.class);
      expect(outcome.status).toBe(row.status);
      expect(outcome.retryAfterMs).toBe(row.retryAfterMs);
      expect(outcome.detail).not.toContain(OTHER_KEY);
      expect(outcome.detail).not.toMatch(/no integration|throttled|Internal Server|payload\.severity/i);
    }
  });
});

/** A canned answer of a plain receiver. */
type Answer = { status: number; headers?: Record<string, string>; body?: string };

describe('paging notifier: answers the fake does not give', () => {
  const receiver = new FakeReceiver(() => undefined);
  let notifier: Notifier<'paging'>;
  let answer: Answer;

  beforeAll(async () => {
    receiver.handler = (_request, response) => {
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.body ?? '');
    };
    await receiver.start();
    notifier = createPagingNotifier(
      await testDeps({ endpoints: { ...DEFAULT_ENDPOINTS, pagerDutyEventsUrl: `${receiver.baseUrl}/v2/enqueue` } }),
    );
  });
  afterAll(() => receiver.stop());

  it.each<{ answer: Answer; class: DeliveryOutcome['class']; retryAfterMs?: number }>([
    { answer: { status: 429, headers: { 'retry-after': '120' } }, class: 'retry', retryAfterMs: 120_000 },
    {
      answer: { status: 429, headers: { 'retry-after': '5' } },
      class: 'retry',
      retryAfterMs: PAGERDUTY_MIN_BACKOFF_MS,
    },
    { answer: { status: 503, headers: { 'retry-after': '7' } }, class: 'retry', retryAfterMs: 7000 },
    { answer: { status: 502 }, class: 'retry', retryAfterMs: undefined },
    { answer: { status: 400, body: 'not json' }, class: 'bug', retryAfterMs: undefined },
    { answer: { status: 404 }, class: 'bug', retryAfterMs: undefined },
    { answer: { status: 408 }, class: 'retry', retryAfterMs: undefined },
    { answer: { status: 200, body: '{}' }, class: 'ok', retryAfterMs: undefined },
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
    const url = `${closed.baseUrl}/v2/enqueue`;
    await closed.stop();
    const dead = createPagingNotifier(await testDeps({ endpoints: { ...DEFAULT_ENDPOINTS, pagerDutyEventsUrl: url } }));
    expect(await dead.deliver(contact(), down, testContext())).toEqual({
      class: 'retry',
      status: null,
      detail: 'connection refused',
    });
  });
});
