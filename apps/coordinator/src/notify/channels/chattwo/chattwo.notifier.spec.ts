import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import type { ServerResponse } from 'node:http';
import { REGION_IDS } from '#contracts';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryClass } from '../../notifier.js';
import { eventOf, PICKET_USER_AGENT, T0 } from '../notifier-test-kit.js';
import { createChattwoNotifier, DISCORD_COLORS, type DiscordMessage, waitUrl } from './chattwo.notifier.js';

// ---- the fake Discord webhook --------------------------------------------------------------

/** The token part of a Discord webhook URL: never in a detail. */
const HOOK_PATH = '/api/webhooks/1234567890/s3cr3tWebhookToken';

const text = (max: number, min = 1) => ({ type: 'string', minLength: min, maxLength: max });
/**
 * Execute Webhook as Discord checks it (docs/decisions/0011-notification-channels.md §8); Ajv counts string
 * lengths in code points.
 */
const validateMessage = new Ajv({ allErrors: true }).compile({
  type: 'object',
  additionalProperties: false,
  required: ['allowed_mentions'],
  anyOf: [{ required: ['content'] }, { required: ['embeds'] }],
  properties: {
    content: text(2000),
    username: { ...text(80), not: { pattern: '[Cc][Ll][Yy][Dd][Ee]|[Dd][Ii][Ss][Cc][Oo][Rr][Dd]' } },
    avatar_url: { type: 'string', pattern: '^https?://' },
    allowed_mentions: {
      type: 'object',
      additionalProperties: false,
      required: ['parse'],
      properties: { parse: { type: 'array', maxItems: 0 } },
    },
    embeds: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          title: text(256),
          url: { type: 'string', pattern: '^https?://' },
          description: text(4096),
          color: { type: 'integer', minimum: 0, maximum: 0xffffff },
          timestamp: {
            type: 'string',
            pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)$',
          },
          footer: { type: 'object', required: ['text'], properties: { text: text(2048) } },
          author: { type: 'object', required: ['name'], properties: { name: text(256) } },
          fields: {
            type: 'array',
            maxItems: 25,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'value'],
              properties: { name: text(256), value: text(1024), inline: { type: 'boolean' } },
            },
          },
        },
      },
    },
  },
});

const length = (s: string | undefined) => (s === undefined ? 0 : Array.from(s).length);
/** Characters across all embeds, as Discord counts them against 6000. */
function embedTotal(message: DiscordMessage): number {
  return message.embeds.reduce(
    (sum, e) =>
      sum +
      length(e.title) +
      length(e.description) +
      length(e.footer?.text) +
      e.fields.reduce((s, f) => s + length(f.name) + length(f.value), 0),
    0,
  );
}

/** Discord's answer to a malformed request: null when well-formed. */
function discordVerdict(request: RecordedRequest): { status: number; code: number } | null {
  const url = new URL(request.url, 'https://discord.test');
  if (request.method !== 'POST' || url.pathname !== HOOK_PATH) return { status: 404, code: 10015 };
  if (!String(request.headers['content-type']).startsWith('application/json')) return { status: 400, code: 50035 };
  if (request.headers.authorization !== undefined) return { status: 400, code: 50035 };
  if (!validateMessage(request.json)) return { status: 400, code: 50035 };
  if (embedTotal(request.json as DiscordMessage) > 6000) return { status: 400, code: 50035 };
  return null;
}

type Answer = ((res: ServerResponse, wait: boolean) => void) | 'hang';
const discordError = (status: number, code: number, message: string) => (res: ServerResponse) =>
  reply(res, status, { message, code });
/** §8: 200 with the message for wait=true, else 204. */
const discordOk: Answer = (res, wait) => (wait ? reply(res, 200, { id: '1', type: 0, content: '…' }) : reply(res, 204));
let answer: Answer;
const verdicts: unknown[] = [];

let receiver: FakeReceiver;
let deps: NotifierDeps;

beforeAll(async () => {
  receiver = await new FakeReceiver((request, res) => {
    const verdict = discordVerdict(request);
    verdicts.push(verdict);
    if (verdict) return reply(res, verdict.status, { message: 'Invalid Form Body', code: verdict.code });
    if (answer !== 'hang')
      answer(res, new URL(request.url, 'https://discord.test').searchParams.get('wait') === 'true');
  }).start();
  deps = await testDeps();
});

afterAll(() => receiver.stop());

beforeEach(() => {
  answer = discordOk;
  verdicts.length = 0;
  receiver.requests.length = 0;
});

const contact = (query = '') => ({ webhook_url: `${receiver.baseUrl}${HOOK_PATH}${query}` });
const deliver = (event: NotificationEvent, query = '') =>
  createChattwoNotifier(deps).deliver(
    contact(query),
    event,
    testContext(() => T0 * 1000),
  );
const sent = () => {
  expect(receiver.requests).toHaveLength(1);
  expect(receiver.requests[0]!.headers['user-agent']).toBe(PICKET_USER_AGENT);
  return receiver.requests[0]!.json as DiscordMessage;
};

// ---- tests --------------------------------------------------------------------------------

describe('the fake Discord webhook', () => {
  const request = (json: unknown): RecordedRequest => ({
    method: 'POST',
    url: `${HOOK_PATH}?wait=true`,
    headers: { 'content-type': 'application/json' },
    raw: Buffer.from(JSON.stringify(json)),
    json,
  });
  const message = (embed: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    username: 'Picket',
    allowed_mentions: { parse: [] },
    embeds: [{ title: 't', description: 'd', fields: [], ...embed }],
    ...extra,
  });
  const invalid = { status: 400, code: 50035 };

  it('refuses what Discord refuses, and anything without allowed_mentions', () => {
    expect(discordVerdict(request(message({})))).toBeNull();
    const { allowed_mentions: _, ...noMentions } = message({});
    expect(discordVerdict(request(noMentions))).toEqual(invalid);
    expect(discordVerdict(request(message({}, { allowed_mentions: { parse: ['everyone'] } })))).toEqual(invalid);
    expect(discordVerdict(request(message({}, { username: 'Discord alerts' })))).toEqual(invalid);
    expect(discordVerdict(request(message({ title: 'x'.repeat(257) })))).toEqual(invalid);
    expect(discordVerdict(request(message({ description: 'x'.repeat(4097) })))).toEqual(invalid);
    const fields = Array.from({ length: 6 }, () => ({ name: 'n', value: 'v'.repeat(1000) }));
    expect(discordVerdict(request(message({ fields })))).toEqual(invalid);
  });
});

describe('chattwo notifier: messages', () => {
  it.each(NOTIFICATION_EVENTS)('delivers %s with wait=true and keeps the message id', async (type) => {
    expect(await deliver(eventOf(type))).toEqual({ class: 'ok', status: 200, detail: 'HTTP 200', ref: '1' });
    expect(verdicts).toEqual([null]);
    expect(receiver.requests[0]!.url).toBe(`${HOOK_PATH}?wait=true`);
    const message = sent();
    expect(message.username).toBe('Picket');
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.embeds).toHaveLength(1);
  });

  it('renders monitor.down in red with the cause, since, target and regions', async () => {
    await deliver(eventOf('monitor.down'));
    const message = sent();
    expect(message.content).toBe('API \\(prod\\) is DOWN');
    expect(message.embeds[0]).toEqual({
      title: 'API (prod) is DOWN',
      url: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
      description: 'HTTP 503',
      color: DISCORD_COLORS.down,
      timestamp: '2026-01-01T10:00:00Z',
      fields: [
        { name: 'Since', value: '<t:1767261600:f>', inline: true },
        { name: 'Target', value: 'https://api\\.example\\.com/health', inline: false },
        { name: 'Regions', value: 'down \\(HTTP 503\\): eu\\-west\\-1, us\\-east\\-1', inline: false },
      ],
      footer: { text: 'Picket' },
    });
    expect(message.embeds[0].color).toBe(15548997);
  });

  it('renders monitor.up in green with the outage length', async () => {
    await deliver(eventOf('monitor.up'));
    const embed = sent().embeds[0];
    expect(embed).toMatchObject({ title: 'API (prod) is UP again', description: 'Down for 12 min.', color: 0x57f287 });
    expect(embed.fields.map((f) => f.name)).toEqual(['Down since', 'Up since', 'Target']);
  });

  it('renders certificate.expiring with the expiry date', async () => {
    await deliver(eventOf('certificate.expiring'));
    const embed = sent().embeds[0];
    expect(embed.description).toBe('The TLS certificate expires on 2026-01-15 10:00 UTC (in 14 days).');
    expect(embed.fields).toContainEqual({ name: 'Expires', value: `<t:${T0 + 14 * 86400}:f>`, inline: true });
  });

  it('renders contact.test without monitor fields or link', async () => {
    await deliver(eventOf('contact.test'));
    const embed = sent().embeds[0];
    expect(embed.title).toBe('Test notification from Picket');
    expect(embed.fields).toEqual([]);
    expect(embed.url).toBeUndefined();
  });

  it('neutralises @everyone and markup in the name and cause', async () => {
    const monitor = { ...sampleEvent().monitor, name: '@everyone <b>& <@123> **bold**' };
    expect((await deliver(eventOf('monitor.down', { monitor, error: '@here [x](https://evil.example)' }))).class).toBe(
      'ok',
    );
    expect(verdicts).toEqual([null]);
    const message = sent();
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.content).toBe('\\@everyone \\<b\\>& \\<\\@123\\> \\*\\*bold\\*\\* is DOWN');
    expect(message.embeds[0].description).toBe('\\@here \\[x\\]\\(https://evil\\.example\\)');
    for (const text of [
      message.content,
      message.embeds[0].description,
      ...message.embeds[0].fields.map((f) => f.value),
    ]) {
      expect(text).not.toMatch(/(^|[^\\])@(everyone|here)/);
      expect(text).not.toMatch(/(^|[^\\])<@/);
    }
  });

  it('keeps long names, causes and many regions within the embed limits (title 256, description 4096, total 6000)', async () => {
    const monitor = {
      ...sampleEvent().monitor,
      name: '🚀'.repeat(300),
      target: `https://x.example/${'.'.repeat(3000)}`,
    };
    const regions = REGION_IDS.map((region, i) => ({
      region,
      status: 'down' as const,
      error: `${i}${'*'.repeat(299)}`,
    }));
    expect((await deliver(eventOf('monitor.down', { monitor, error: '_'.repeat(5000), regions }))).class).toBe('ok');
    expect(verdicts).toEqual([null]);
    const embed = sent().embeds[0];
    expect(embed.title).toBe(`${'🚀'.repeat(99)}… is DOWN`);
    expect(embedTotal(sent())).toBeLessThanOrEqual(6000);
    expect(embed.fields.every((f) => Array.from(f.value).length <= 1024)).toBe(true);
    expect(embed.description.endsWith('…')).toBe(true);
  });

  it('adds wait=true to a URL that already has a query', () => {
    expect(waitUrl('https://discord.com/api/webhooks/1/tok?thread_id=42')).toBe(
      'https://discord.com/api/webhooks/1/tok?thread_id=42&wait=true',
    );
    expect(waitUrl('https://discord.com/api/webhooks/1/tok?wait=false')).toBe(
      'https://discord.com/api/webhooks/1/tok?wait=true',
    );
  });

  it('keeps a thread_id query when posting', async () => {
    expect((await deliver(eventOf('monitor.down'), '?thread_id=42')).class).toBe('ok');
    expect(receiver.requests[0]!.url).toBe(`${HOOK_PATH}?thread_id=42&wait=true`);
  });
});

describe('chattwo notifier: classification (§8)', () => {
  const modes: {
    mode: string;
    answer: Answer;
    class: DeliveryClass;
    status: number;
    retryAfterMs?: number;
    ref?: string;
  }[] = [
    { mode: '200 with the message (wait=true)', answer: discordOk, class: 'ok', status: 200, ref: '1' },
    { mode: '204', answer: (res) => reply(res, 204), class: 'ok', status: 204 },
    {
      mode: '429 + retry_after 0.5',
      answer: (res) => reply(res, 429, { message: 'You are being rate limited.', retry_after: 0.5, global: false }),
      class: 'retry',
      status: 429,
      retryAfterMs: 500,
    },
    {
      mode: '429 + only a Retry-After header',
      answer: (res) => reply(res, 429, undefined, { 'retry-after': '2' }),
      class: 'retry',
      status: 429,
      retryAfterMs: 2000,
    },
    { mode: '500', answer: discordError(500, 0, 'Internal Server Error'), class: 'retry', status: 500 },
    { mode: '502', answer: (res) => reply(res, 502, '<html>bad gateway</html>'), class: 'retry', status: 502 },
    {
      mode: '302 (not followed)',
      answer: (res) => reply(res, 302, undefined, { location: 'https://discord.com/' }),
      class: 'retry',
      status: 302,
    },
    {
      mode: '401 code 50027',
      answer: discordError(401, 50027, 'Invalid Webhook Token'),
      class: 'disable',
      status: 401,
    },
    { mode: '403 code 50013', answer: discordError(403, 50013, 'Missing Permissions'), class: 'disable', status: 403 },
    { mode: '404 code 10015', answer: discordError(404, 10015, 'Unknown Webhook'), class: 'disable', status: 404 },
    { mode: '400 code 50035', answer: discordError(400, 50035, 'Invalid Form Body'), class: 'bug', status: 400 },
    {
      mode: '400 code 50006',
      answer: discordError(400, 50006, 'Cannot send an empty message'),
      class: 'bug',
      status: 400,
    },
    { mode: '413', answer: (res) => reply(res, 413), class: 'bug', status: 413 },
  ];

  it.each(modes)('$mode → $class', async (mode) => {
    answer = mode.answer;
    const outcome = await deliver(eventOf('monitor.down'));
    expect(verdicts).toEqual([null]);
    expect(outcome.class).toBe(mode.class);
    expect(outcome.status).toBe(mode.status);
    expect(outcome.retryAfterMs).toBe(mode.retryAfterMs);
    expect(outcome.ref).toBe(mode.ref);
    expect(outcome.detail).toMatch(/^HTTP \d{3}\b/);
    expect(outcome.detail).not.toContain('s3cr3tWebhookToken');
    expect(outcome.detail).not.toContain('127.0.0.1');
  });

  it("names Discord's error code in the detail, never its message", async () => {
    answer = discordError(404, 10015, 'Unknown Webhook');
    expect((await deliver(eventOf('monitor.down'))).detail).toBe('HTTP 404 (Discord code 10015)');
  });

  it('classifies a network failure as retry without the URL', async () => {
    const outcome = await createChattwoNotifier(deps).deliver(
      { webhook_url: `https://127.0.0.1:1${HOOK_PATH}` },
      eventOf('monitor.down'),
      testContext(),
    );
    expect(outcome).toEqual({ class: 'retry', status: null, detail: 'connection refused' });
  });
});
