import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import type { ServerResponse } from 'node:http';
import { REGION_IDS } from '#contracts';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryClass } from '../../notifier.js';
import { eventOf, NOW, PICKET_USER_AGENT } from '../notifier-test-kit.js';
import { createChatoneNotifier, type SlackMessage } from './chatone.notifier.js';

// ---- the fake Slack incoming webhook ------------------------------------------------------

/** The secret part of a Slack hook URL: never in a detail. */
const HOOK_PATH = '/services/T0001/B0002/s3cr3tHookToken';

const plainText = (max: number) => ({
  type: 'object',
  additionalProperties: false,
  required: ['type', 'text'],
  properties: {
    type: { const: 'plain_text' },
    text: { type: 'string', minLength: 1, maxLength: max },
    emoji: { type: 'boolean' },
  },
});
const textObject = (max: number) => ({
  oneOf: [
    plainText(max),
    {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'text'],
      properties: {
        type: { const: 'mrkdwn' },
        text: { type: 'string', minLength: 1, maxLength: max },
        verbatim: { type: 'boolean' },
      },
    },
  ],
});
const blockId = { type: 'string', minLength: 1, maxLength: 255 };
const url = { type: 'string', maxLength: 3000, pattern: '^https?://' };

/**
 * Block Kit as Slack checks it (the limits of docs/decisions/0011-notification-channels.md §7); Ajv counts
 * string lengths in code points.
 */
const validateBlocks = new Ajv({ allErrors: true }).compile({
  type: 'array',
  minItems: 1,
  maxItems: 50,
  items: {
    oneOf: [
      {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'text'],
        properties: { type: { const: 'header' }, text: plainText(150), block_id: blockId },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['type'],
        anyOf: [{ required: ['text'] }, { required: ['fields'] }],
        properties: {
          type: { const: 'section' },
          text: textObject(3000),
          fields: { type: 'array', minItems: 1, maxItems: 10, items: textObject(2000) },
          block_id: blockId,
        },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'elements'],
        properties: {
          type: { const: 'actions' },
          block_id: blockId,
          elements: {
            type: 'array',
            minItems: 1,
            maxItems: 25,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['type', 'text'],
              properties: {
                type: { const: 'button' },
                text: plainText(75),
                url,
                action_id: { type: 'string', maxLength: 255 },
                value: { type: 'string', maxLength: 2000 },
                style: { enum: ['primary', 'danger'] },
              },
            },
          },
        },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'elements'],
        properties: {
          type: { const: 'context' },
          block_id: blockId,
          elements: { type: 'array', minItems: 1, maxItems: 10, items: textObject(3000) },
        },
      },
    ],
  },
});

/** mrkdwn and `text` must carry &, < and > only as entities (no links, mentions or tags). */
const unescaped = (text: string) => /[<>]/.test(text) || /&(?!amp;|lt;|gt;)/.test(text);

/** What Slack would answer to this request: null for a well-formed message, else its error code. */
function slackVerdict(request: RecordedRequest): string | null {
  if (request.method !== 'POST' || request.url !== HOOK_PATH) return 'no_service';
  if (!String(request.headers['content-type']).startsWith('application/json')) return 'invalid_payload';
  if (request.headers.authorization !== undefined) return 'invalid_payload';
  const body = request.json as Partial<SlackMessage> & Record<string, unknown>;
  if (typeof body !== 'object' || body === null) return 'invalid_payload';
  for (const ignored of ['channel', 'username', 'icon_emoji', 'icon_url'])
    if (ignored in body) return 'invalid_payload';
  if (typeof body.text !== 'string' || body.text.length === 0) return 'no_text';
  if (Array.from(body.text).length >= 4000 || unescaped(body.text)) return 'invalid_payload';
  if (!validateBlocks(body.blocks)) return 'invalid_blocks';
  for (const block of body.blocks!) {
    const texts = block.type === 'section' ? [block.text, ...(block.fields ?? [])] : [];
    if (texts.some((t) => t?.type === 'mrkdwn' && unescaped(t.text))) return 'invalid_blocks';
  }
  return null;
}

type Answer = ((res: ServerResponse) => void) | 'hang';
let answer: Answer;
const verdicts: (string | null)[] = [];
const slackError =
  (status: number, code: string, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    reply(res, status, code, { 'content-type': 'text/html', ...headers });
const slackOk = slackError(200, 'ok');

let receiver: FakeReceiver;
let deps: NotifierDeps;

beforeAll(async () => {
  receiver = await new FakeReceiver((request, res) => {
    const verdict = slackVerdict(request);
    verdicts.push(verdict);
    if (verdict !== null) return slackError(verdict === 'no_service' ? 404 : 400, verdict)(res);
    if (answer !== 'hang') answer(res);
  }).start();
  deps = await testDeps();
});

afterAll(() => receiver.stop());

beforeEach(() => {
  answer = slackOk;
  verdicts.length = 0;
  receiver.requests.length = 0;
});

const contact = () => ({ webhook_url: `${receiver.baseUrl}${HOOK_PATH}` });
const deliver = (event: NotificationEvent, now = () => Date.now()) =>
  createChatoneNotifier(deps).deliver(contact(), event, testContext(now));
const sent = () => {
  expect(receiver.requests).toHaveLength(1);
  expect(receiver.requests[0]!.headers['user-agent']).toBe(PICKET_USER_AGENT);
  return receiver.requests[0]!.json as SlackMessage;
};
const mrkdwnTexts = (message: SlackMessage) =>
  message.blocks.flatMap((b) => (b.type === 'section' ? [b.text?.text, ...(b.fields ?? []).map((f) => f.text)] : []));

// ---- tests --------------------------------------------------------------------------------

describe('the fake Slack webhook', () => {
  const request = (json: unknown): RecordedRequest => ({
    method: 'POST',
    url: HOOK_PATH,
    headers: { 'content-type': 'application/json' },
    raw: Buffer.from(JSON.stringify(json)),
    json,
  });
  const header = (text: string) => ({ type: 'header', text: { type: 'plain_text', text } });
  const section = (text: string) => ({ type: 'section', fields: [{ type: 'mrkdwn', text }] });

  it('refuses what Slack refuses', () => {
    expect(slackVerdict(request({ text: 'x', blocks: [header('x'), section('a &amp; b')] }))).toBeNull();
    expect(slackVerdict(request({ blocks: [header('x')] }))).toBe('no_text');
    expect(slackVerdict(request({ text: 'x', blocks: [header('x'.repeat(151))] }))).toBe('invalid_blocks');
    expect(slackVerdict(request({ text: 'x', blocks: [section('y'.repeat(2001))] }))).toBe('invalid_blocks');
    expect(slackVerdict(request({ text: 'x', blocks: Array.from({ length: 51 }, () => header('x')) }))).toBe(
      'invalid_blocks',
    );
    expect(slackVerdict(request({ text: 'x', blocks: [section('<!channel>')] }))).toBe('invalid_blocks');
    expect(slackVerdict(request({ text: 'a & b', blocks: [header('x')] }))).toBe('invalid_payload');
    expect(slackVerdict(request({ text: 'x', username: 'y', blocks: [header('x')] }))).toBe('invalid_payload');
  });
});

describe('chatone notifier: messages', () => {
  it.each(NOTIFICATION_EVENTS)('delivers %s as text plus valid Block Kit', async (type) => {
    expect(await deliver(eventOf(type))).toEqual({ class: 'ok', status: 200, detail: 'HTTP 200' });
    expect(verdicts).toEqual([null]);
  });

  it('renders monitor.down: header, cause, since, target, regions and a link button', async () => {
    await deliver(eventOf('monitor.down'));
    const message = sent();
    expect(message.text).toBe('DOWN: API (prod), HTTP 503');
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'API (prod) is DOWN', emoji: true },
    });
    expect(mrkdwnTexts(message)).toEqual([
      undefined,
      '*Cause*\nHTTP 503',
      '*Since*\n2026-01-01 10:00 UTC',
      '*Target*\nhttps://api.example.com/health',
      '*Regions*\ndown (HTTP 503): eu-west-1, us-east-1',
    ]);
    expect(message.blocks[2]).toMatchObject({
      type: 'actions',
      elements: [{ type: 'button', url: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5' }],
    });
  });

  it('renders monitor.up with the outage length', async () => {
    await deliver(eventOf('monitor.up'));
    const message = sent();
    expect(message.text).toBe('UP: API (prod), down for 12 min');
    expect(message.blocks[0]).toMatchObject({ text: { text: 'API (prod) is UP again' } });
    expect(mrkdwnTexts(message)).toContain('*Down for*\n12 min');
    expect(mrkdwnTexts(message)).toContain('*Up since*\n2026-01-01 10:12 UTC');
  });

  it('renders certificate.expiring with the expiry date', async () => {
    await deliver(eventOf('certificate.expiring'));
    const message = sent();
    expect(message.text).toBe('CERTIFICATE: API (prod), the TLS certificate expires on 2026-01-15 10:00 UTC');
    expect(mrkdwnTexts(message)).toContain('*Certificate expires*\n2026-01-15 10:00 UTC (in 14 days)');
  });

  it('renders contact.test as a plain test message without a monitor', async () => {
    await deliver(eventOf('contact.test'));
    const message = sent();
    expect(message.text).toBe('Test notification from Picket');
    expect(message.blocks).toHaveLength(2);
    expect(message.blocks[1]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: 'This is a test notification from Picket. If you can read it, this Slack webhook works.',
      },
    });
  });

  it('leaves out the button when there is no public link', async () => {
    await deliver(eventOf('monitor.down', { link: null }));
    expect(sent().blocks.map((b) => b.type)).toEqual(['header', 'section']);
  });

  it('escapes a hostile monitor name and cause for mrkdwn (no mentions, no tags)', async () => {
    const monitor = { ...sampleEvent().monitor, name: '@everyone <b>& <!channel>' };
    const event = eventOf('monitor.down', { monitor, error: '<https://evil.example|click> & <@U123>' });
    expect((await deliver(event)).class).toBe('ok');
    expect(verdicts).toEqual([null]);
    const message = sent();
    expect(message.text).toBe(
      'DOWN: @everyone &lt;b&gt;&amp; &lt;!channel&gt;, &lt;https://evil.example|click&gt; &amp; &lt;@U123&gt;',
    );
    expect(message.blocks[0]).toMatchObject({
      text: { type: 'plain_text', text: '@everyone <b>& <!channel> is DOWN' },
    });
    expect(mrkdwnTexts(message)).toContain('*Cause*\n&lt;https://evil.example|click&gt; &amp; &lt;@U123&gt;');
  });

  it('keeps long names, causes and many regions within the Block Kit limits', async () => {
    const monitor = {
      ...sampleEvent().monitor,
      name: 'N'.repeat(300),
      target: `https://x.example/${'&'.repeat(3000)}`,
    };
    const regions = REGION_IDS.map((region, i) => ({
      region,
      status: 'down' as const,
      error: `${i}${'&'.repeat(299)}`,
    }));
    const event = eventOf('monitor.down', { monitor, error: '&'.repeat(5000), regions });
    expect((await deliver(event)).class).toBe('ok');
    expect(verdicts).toEqual([null]);
    const message = sent();
    const first = message.blocks[0]!;
    const header = first.type === 'header' ? first.text.text : '';
    expect(header).toBe(`${'N'.repeat(99)}… is DOWN`);
    for (const text of mrkdwnTexts(message)) if (text) expect(Array.from(text).length).toBeLessThanOrEqual(2000);
    expect(mrkdwnTexts(message).some((t) => t?.endsWith('…'))).toBe(true);
  });
});

describe('chatone notifier: classification (§7, by status and Slack error code)', () => {
  const modes: { mode: string; answer: Answer; class: DeliveryClass; status: number | null; retryAfterMs?: number }[] =
    [
      { mode: '200 ok', answer: slackOk, class: 'ok', status: 200 },
      { mode: '403 invalid_token', answer: slackError(403, 'invalid_token'), class: 'disable', status: 403 },
      { mode: '403 action_prohibited', answer: slackError(403, 'action_prohibited'), class: 'disable', status: 403 },
      {
        mode: '403 posting_to_general_channel_denied',
        answer: slackError(403, 'posting_to_general_channel_denied'),
        class: 'disable',
        status: 403,
      },
      { mode: '404 no_service', answer: slackError(404, 'no_service'), class: 'disable', status: 404 },
      { mode: '404 no_team', answer: slackError(404, 'no_team'), class: 'disable', status: 404 },
      { mode: '404 no_active_hooks', answer: slackError(404, 'no_active_hooks'), class: 'disable', status: 404 },
      { mode: '404 channel_not_found', answer: slackError(404, 'channel_not_found'), class: 'disable', status: 404 },
      {
        mode: '410 channel_is_archived',
        answer: slackError(410, 'channel_is_archived'),
        class: 'disable',
        status: 410,
      },
      { mode: '410 team_disabled', answer: slackError(410, 'team_disabled'), class: 'disable', status: 410 },
      { mode: '400 no_service_id', answer: slackError(400, 'no_service_id'), class: 'disable', status: 400 },
      { mode: '400 invalid_blocks', answer: slackError(400, 'invalid_blocks'), class: 'bug', status: 400 },
      { mode: '400 invalid_payload', answer: slackError(400, 'invalid_payload'), class: 'bug', status: 400 },
      {
        mode: '400 invalid_blocks_format',
        answer: slackError(400, 'invalid_blocks_format'),
        class: 'bug',
        status: 400,
      },
      { mode: '400 no_text', answer: slackError(400, 'no_text'), class: 'bug', status: 400 },
      {
        mode: '400 missing_text_or_fallback_or_attachments',
        answer: slackError(400, 'missing_text_or_fallback_or_attachments'),
        class: 'bug',
        status: 400,
      },
      { mode: '400 too_many_attachments', answer: slackError(400, 'too_many_attachments'), class: 'bug', status: 400 },
      { mode: '400 user_not_found', answer: slackError(400, 'user_not_found'), class: 'bug', status: 400 },
      {
        mode: '429 + Retry-After: 1',
        answer: slackError(429, 'rate_limited', { 'retry-after': '1' }),
        class: 'retry',
        status: 429,
        retryAfterMs: 1000,
      },
      { mode: '500', answer: slackError(500, 'internal_error'), class: 'retry', status: 500 },
      { mode: '503', answer: slackError(503, 'service_unavailable'), class: 'retry', status: 503 },
      {
        mode: '302 (not followed)',
        answer: (res) => reply(res, 302, undefined, { location: 'https://slack.com/' }),
        class: 'retry',
        status: 302,
      },
    ];

  it.each(modes)('$mode → $class', async (mode) => {
    answer = mode.answer;
    const outcome = await deliver(eventOf('monitor.down'), () => NOW);
    expect(verdicts).toEqual([null]);
    expect(outcome.class).toBe(mode.class);
    expect(outcome.status).toBe(mode.status);
    expect(outcome.retryAfterMs).toBe(mode.retryAfterMs);
    expect(outcome.detail).toMatch(/^HTTP \d{3}\b/);
    expect(outcome.detail).not.toContain('s3cr3tHookToken');
    expect(outcome.detail).not.toContain('127.0.0.1');
  });

  it('names the Slack code in the detail', async () => {
    answer = slackError(410, 'channel_is_archived');
    expect((await deliver(eventOf('monitor.down'))).detail).toBe('HTTP 410 channel_is_archived');
  });

  it('never echoes an unknown provider body', async () => {
    answer = slackError(400, '<html>secret proxy page</html>');
    expect(await deliver(eventOf('monitor.down'))).toEqual({ class: 'bug', status: 400, detail: 'HTTP 400' });
  });

  it('classifies a network failure as retry without the URL', async () => {
    const outcome = await createChatoneNotifier(deps).deliver(
      { webhook_url: `https://127.0.0.1:1${HOOK_PATH}` },
      eventOf('monitor.down'),
      testContext(),
    );
    expect(outcome).toEqual({ class: 'retry', status: null, detail: 'connection refused' });
  });
});
