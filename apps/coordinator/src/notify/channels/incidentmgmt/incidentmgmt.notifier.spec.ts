import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ChannelDetails } from '../../../contacts/channels.js';
import { FakeReceiver } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import type { NotificationEvent } from '../../notification-event.js';
import { INCIDENT_EVENTS, NOW, PICKET_USER_AGENT } from '../notifier-test-kit.js';
import { FakeIncidentIo, INCIDENTIO_FAKE_RETRY_AFTER_MS, type IncidentIoMode } from './incidentio.fake.js';
import { createIncidentmgmtNotifier } from './incidentmgmt.notifier.js';

const TOKEN = 'inc_live_5f2b9c1e7a4d4e0b8c3f6a9d2e1b7c4a';

const { down, up, expiring, test } = INCIDENT_EVENTS;

describe('incidentmgmt notifier (incident.io HTTP alert source)', () => {
  const fake = new FakeIncidentIo(TOKEN);
  let notifier: Notifier<'incidentmgmt'>;
  const outcomes: DeliveryOutcome[] = [];

  function contact(overrides: Partial<ChannelDetails['incidentmgmt']> = {}): ChannelDetails['incidentmgmt'] {
    return { webhook_url: fake.webhookUrl, bearer_token: TOKEN, auto_resolve_incidents: true, ...overrides };
  }

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
    fake.now = () => NOW;
    notifier = createIncidentmgmtNotifier(await testDeps());
  });

  afterAll(async () => {
    await fake.stop();
    for (const outcome of outcomes) expect(outcome.detail).not.toContain(TOKEN);
  });

  beforeEach(() => {
    fake.mode = 'accept';
    fake.firing.clear();
    fake.resolved.length = 0;
    fake.opened = 0;
    fake.requests.length = 0;
    fake.problems.length = 0;
  });

  it('fires on down and resolves the same alert on up', async () => {
    expect(await deliver(down)).toEqual({ class: 'ok', status: 202, detail: 'HTTP 202: firing event accepted' });
    const [firing] = fake.requests;
    expect(firing?.method).toBe('POST');
    expect(firing?.url).toBe(`/v2/alert_events/http/${fake.configId}`);
    expect(firing?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(firing?.headers['user-agent']).toBe(PICKET_USER_AGENT);
    expect(firing?.headers['content-type']).toBe('application/json');
    expect(firing?.json).toEqual({
      title: 'API (prod) is DOWN',
      status: 'firing',
      deduplication_key: '6650a1f0c2e4b0a1b2c3d4e5-6650a1f0c2e4b0a1b2c3d4e6',
      description: [
        'HTTP 503 from **2/2** regions',
        '',
        '**Target:** https://api\\.example\\.com/health',
        '',
        '- **eu\\-west\\-1**: down, HTTP 503',
        '- **us\\-east\\-1**: down, HTTP 503',
        '',
        '[Open in Picket](https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5)',
      ].join('\n'),
      metadata: {
        source: 'picket',
        event: 'monitor.down',
        severity: 'critical',
        monitor_id: '6650a1f0c2e4b0a1b2c3d4e5',
        monitor_name: 'API (prod)',
        target: 'https://api.example.com/health',
        host: 'api.example.com',
        error: 'HTTP 503',
        regions: [
          { region: 'eu-west-1', status: 'down', error: 'HTTP 503' },
          { region: 'us-east-1', status: 'down', error: 'HTTP 503' },
        ],
        incident_id: '6650a1f0c2e4b0a1b2c3d4e6',
        started_at: '2026-01-01T10:00:00Z',
      },
      source_url: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
    });
    expect([...fake.firing.keys()]).toEqual([down.dedupKey]);

    expect(await deliver(up)).toEqual({ class: 'ok', status: 202, detail: 'HTTP 202: resolved event accepted' });
    const resolved = fake.requests[1]?.json as any;
    expect(resolved.status).toBe('resolved');
    expect(resolved.deduplication_key).toBe(down.dedupKey);
    expect(resolved.title).toBe('API (prod) is UP again');
    expect(resolved.description).toMatch(/^Recovered after \*\*12 min\*\*\./);
    expect(fake.opened).toBe(1);
    expect(fake.resolved).toEqual([down.dedupKey]);
    expect(fake.firing.size).toBe(0);
    expect(fake.problems).toEqual([]);
  });

  it('a retried firing event adds to the alert instead of opening another', async () => {
    await deliver(down);
    await deliver(down);
    expect(fake.opened).toBe(1);
    expect(fake.firing.get(down.dedupKey!)?.events).toBe(2);
  });

  it('sends nothing on up when auto_resolve_incidents is off', async () => {
    await deliver(down);
    expect(await deliver(up, contact({ auto_resolve_incidents: false }))).toEqual({
      class: 'ok',
      status: null,
      detail: 'auto_resolve_incidents is off: nothing sent',
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.firing.size).toBe(1);
  });

  it('escapes Markdown and keeps the title on one line', async () => {
    const name = 'Shop *prod* [EU]\r\nsecond line';
    await deliver(sampleEvent({ monitor: { ...down.monitor, name }, error: '_HTTP_ 503 <b>' }));
    const body = fake.requests[0]?.json as any;
    expect(body.title).toBe('Shop *prod* [EU] second line is DOWN');
    expect(body.description.split('\n')[0]).toBe('\\_HTTP\\_ 503 \\<b\\> from **2/2** regions');
    expect(fake.problems).toEqual([]);
  });

  it('keeps a huge error within the description limit', async () => {
    await deliver(sampleEvent({ error: `HTTP 503 ${'x'.repeat(10_000)}` }));
    const body = fake.requests[0]?.json as any;
    expect(Array.from(body.description as string).length).toBeLessThanOrEqual(4096);
    expect(fake.problems).toEqual([]);
  });

  it('renders a certificate warning and a test', async () => {
    await deliver(expiring);
    await deliver(test);
    const [cert, probe] = fake.requests.map((r) => r.json as any);
    expect(cert.title).toBe('API (prod): TLS certificate expires on 2026-01-15 (in 14 days)');
    expect(cert.status).toBe('firing');
    expect(cert.deduplication_key).toBe(expiring.dedupKey);
    expect(cert.metadata.severity).toBe('medium');
    expect(cert.metadata.certificate_expires_at).toBe('2026-01-15T12:00:00Z');
    expect(probe.title).toBe('Test alert from Picket');
    expect(probe.deduplication_key).toBe(`test-${test.id}`);
    expect(probe.source_url).toBeUndefined();
    expect(probe.metadata).toEqual({ source: 'picket', event: 'contact.test', severity: 'low' });
    expect(fake.problems).toEqual([]);
  });

  it('a wrong bearer token is refused and disables the contact', async () => {
    const outcome = await deliver(down, contact({ bearer_token: 'inc_live_revoked' }));
    expect(outcome).toEqual({
      class: 'disable',
      status: 401,
      detail: 'HTTP 401: incident.io refused the bearer token',
    });
    expect(outcome.detail).not.toContain('inc_live_revoked');
  });

  it('refuses a non-https webhook_url without sending', async () => {
    const outcome = await deliver(down, contact({ webhook_url: fake.webhookUrl.replace('https:', 'http:') }));
    expect(outcome.class).toBe('disable');
    expect(outcome.detail).not.toContain(fake.configId);
    expect(fake.requests).toHaveLength(0);
  });

  it.each<{
    name: string;
    body: Record<string, unknown>;
    headers?: Record<string, string>;
    query?: string;
    status: number;
  }>([
    { name: 'no bearer token', body: {}, headers: { authorization: '' }, status: 401 },
    {
      name: 'the token in the query string',
      body: {},
      headers: { authorization: '' },
      query: `?token=${TOKEN}`,
      status: 401,
    },
    { name: 'an unknown status', body: { status: 'open' }, status: 422 },
    { name: 'no deduplication_key', body: { deduplication_key: undefined }, status: 422 },
    { name: 'a two-line title', body: { title: 'a\nb' }, status: 422 },
    { name: 'an unknown field', body: { priority: 'high' }, status: 422 },
  ])('the fake refuses $name as incident.io does', async (row) => {
    const deps = await testDeps();
    const valid = { title: 't', status: 'firing', deduplication_key: 'k', description: '', metadata: {} };
    const response = await deps.http.send(
      {
        method: 'POST',
        url: `${fake.webhookUrl}${row.query ?? ''}`,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...row.headers },
        body: JSON.stringify({ ...valid, ...row.body }),
      },
      AbortSignal.timeout(5000),
    );
    expect(response.status).toBe(row.status);
    expect(fake.problems).not.toEqual([]);
    expect(fake.firing.size).toBe(0);
  });

  const table: { mode: IncidentIoMode; class: DeliveryOutcome['class']; status: number; retryAfterMs?: number }[] = [
    { mode: 'bad-request', class: 'bug', status: 400 },
    { mode: 'forbidden', class: 'disable', status: 403 },
    { mode: 'not-found', class: 'disable', status: 404 },
    { mode: 'validation', class: 'bug', status: 422 },
    { mode: 'throttle', class: 'retry', status: 429, retryAfterMs: INCIDENTIO_FAKE_RETRY_AFTER_MS },
    { mode: 'server-error', class: 'retry', status: 500 },
  ];
  it.each(table)('fake mode $mode → $class', async (row) => {
    fake.mode = row.mode;
    for (const event of [down, up, expiring, test]) {
      const outcome = await deliver(event);
      expect(outcome.class).toBe(row.class);
      expect(outcome.status).toBe(row.status);
      expect(outcome.retryAfterMs).toBe(row.retryAfterMs);
      expect(outcome.detail).not.toMatch(/lacks a scope|is required|Rate limit exceeded|Internal Server|not found/i);
    }
  });
});

/** A canned answer of a plain receiver. */
type Answer = { status: number; headers?: Record<string, string>; body?: string };

describe('incidentmgmt notifier: answers the fake does not give', () => {
  const receiver = new FakeReceiver(() => undefined);
  let notifier: Notifier<'incidentmgmt'>;
  let answer: Answer;
  const details = () => ({
    webhook_url: `${receiver.baseUrl}/hook`,
    bearer_token: TOKEN,
    auto_resolve_incidents: true,
  });

  beforeAll(async () => {
    receiver.handler = (_request, response) => {
      response.writeHead(answer.status, answer.headers ?? {});
      response.end(answer.body ?? '');
    };
    await receiver.start();
    notifier = createIncidentmgmtNotifier(await testDeps());
  });
  afterAll(() => receiver.stop());

  it.each<{ answer: Answer; class: DeliveryOutcome['class']; retryAfterMs?: number }>([
    { answer: { status: 429, headers: { 'retry-after': '30' } }, class: 'retry', retryAfterMs: 30_000 },
    {
      answer: {
        status: 429,
        headers: { 'retry-after': '30' },
        body: '{"rate_limit":{"retry_after":"Thu, 01 Jan 2026 10:01:00 GMT"}}',
      },
      class: 'retry',
      retryAfterMs: 60_000,
    },
    { answer: { status: 429 }, class: 'retry', retryAfterMs: undefined },
    { answer: { status: 503, headers: { 'retry-after': '4' } }, class: 'retry', retryAfterMs: 4000 },
    { answer: { status: 422, body: 'text/plain refusal' }, class: 'bug', retryAfterMs: undefined },
    { answer: { status: 410 }, class: 'bug', retryAfterMs: undefined },
    {
      answer: { status: 301, headers: { location: 'https://elsewhere.example/' } },
      class: 'bug',
      retryAfterMs: undefined,
    },
  ])('HTTP $answer.status → $class', async (row) => {
    answer = row.answer;
    const outcome = await notifier.deliver(
      details(),
      down,
      testContext(() => NOW),
    );
    expect(outcome.class).toBe(row.class);
    expect(outcome.retryAfterMs).toBe(row.retryAfterMs);
  });

  it('no answer at all is retried', async () => {
    const closed = new FakeReceiver(() => undefined);
    await closed.start();
    const url = `${closed.baseUrl}/hook`;
    await closed.stop();
    const outcome = await notifier.deliver({ ...details(), webhook_url: url }, down, testContext());
    expect(outcome).toEqual({ class: 'retry', status: null, detail: 'connection refused' });
  });
});
