import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Ajv } from 'ajv';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { REGION_IDS } from '#contracts';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import { NOTIFICATION_EVENTS, type NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryClass } from '../../notifier.js';
import { eventOf, NOW, PICKET_USER_AGENT, T0 } from '../notifier-test-kit.js';
import { type AdaptiveCard, createChatthreeNotifier, TEAMS_LIMITS, type TeamsMessage } from './chatthree.notifier.js';

/**
 * The Adaptive Cards object model (docs/decisions/0011-notification-channels.md §15): the browser bundle loads
 * in Node without a DOM for parsing.
 */
const AC = createRequire(import.meta.url)('adaptivecards/dist/adaptivecards.js') as typeof import('adaptivecards');

// ---- the fake Teams Workflows trigger --------------------------------------------------------

const FLOW_PATH = '/workflows/0a1b2c3d/triggers/manual/paths/invoke';
/** The `sig` of a Workflows URL is a credential: never in a detail. */
const SIG = 's3cr3tSigValue';
const FLOW_QUERY = `?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${SIG}`;

const ENVELOPE_PREFIX =
  '{"type":"message","attachments":[{"contentType":"application/vnd.microsoft.card.adaptive","contentUrl":null,"content":{';

const ajv = new Ajv({ allErrors: true });
const validateEnvelope = ajv.compile<TeamsMessage>({
  type: 'object',
  additionalProperties: false,
  required: ['type', 'attachments'],
  properties: {
    type: { const: 'message' },
    attachments: {
      type: 'array',
      minItems: 1,
      maxItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['contentType', 'contentUrl', 'content'],
        properties: {
          contentType: { const: 'application/vnd.microsoft.card.adaptive' },
          contentUrl: { type: 'null' },
          content: { type: 'object' },
        },
      },
    },
  },
});
const nonEmpty = { type: 'string', minLength: 1 };
/** The subset of Adaptive Cards 1.4 Picket sends. */
const validateCard = ajv.compile({
  type: 'object',
  required: ['type', 'version', 'body'],
  properties: {
    type: { const: 'AdaptiveCard' },
    version: { const: '1.4' },
    body: {
      type: 'array',
      minItems: 1,
      items: {
        oneOf: [
          {
            type: 'object',
            required: ['type', 'text'],
            properties: {
              type: { const: 'TextBlock' },
              text: nonEmpty,
              wrap: { type: 'boolean' },
              weight: { enum: ['Default', 'Lighter', 'Bolder'] },
              size: { enum: ['Default', 'Small', 'Medium', 'Large', 'ExtraLarge'] },
              color: { enum: ['Default', 'Dark', 'Light', 'Accent', 'Good', 'Warning', 'Attention'] },
              spacing: { enum: ['None', 'Small', 'Default', 'Medium', 'Large', 'ExtraLarge', 'Padding'] },
            },
          },
          {
            type: 'object',
            required: ['type', 'facts'],
            properties: {
              type: { const: 'FactSet' },
              facts: {
                type: 'array',
                minItems: 1,
                items: {
                  type: 'object',
                  required: ['title', 'value'],
                  properties: { title: nonEmpty, value: nonEmpty },
                },
              },
            },
          },
        ],
      },
    },
    actions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'title', 'url'],
        properties: {
          type: { const: 'Action.OpenUrl' },
          title: nonEmpty,
          url: { type: 'string', pattern: '^https?://' },
        },
      },
    },
  },
});

/** Action types no bot would answer in a Workflows post. */
function hasInteractiveActions(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasInteractiveActions);
  if (value === null || typeof value !== 'object') return false;
  const type = (value as { type?: unknown }).type;
  if (type === 'Action.Submit' || type === 'Action.Execute') return true;
  return Object.values(value).some(hasInteractiveActions);
}

/** Parses the card with the adaptivecards object model; returns its complaints. */
function adaptiveCardProblems(content: unknown): string[] {
  const card = new AC.AdaptiveCard();
  const context = new AC.SerializationContext();
  card.parse(content, context);
  const problems: string[] = [];
  for (let i = 0; i < context.eventCount; i++) problems.push(context.getEventAt(i).message);
  for (const event of card.validateProperties().validationEvents) problems.push(event.message);
  if (card.version.toString() !== '1.4') problems.push(`parsed as version ${card.version.toString()}`);
  const raw = content as AdaptiveCard;
  if (card.getItemCount() !== raw.body.length) problems.push('an element was dropped by the parser');
  if (card.getActionCount() !== (raw.actions?.length ?? 0)) problems.push('an action was dropped by the parser');
  return problems;
}

/** Everything wrong with a request, as the flow trigger and Teams would see it. */
function teamsProblems(request: RecordedRequest): string[] {
  const problems: string[] = [];
  if (request.method !== 'POST') problems.push(`method ${request.method}`);
  if (request.url !== FLOW_PATH + FLOW_QUERY) problems.push('path or query');
  if (request.headers['content-type'] !== 'application/json; charset=utf-8') problems.push('content-type');
  if (request.raw.length >= TEAMS_LIMITS.bodyBytes) problems.push(`body of ${request.raw.length} bytes`);
  if (!request.raw.toString('utf8').startsWith(ENVELOPE_PREFIX)) problems.push('envelope prefix');
  if (!validateEnvelope(request.json)) return [...problems, `envelope: ${ajv.errorsText(validateEnvelope.errors)}`];
  const content = request.json.attachments[0].content;
  if (!validateCard(content)) problems.push(`card: ${ajv.errorsText(validateCard.errors)}`);
  if (hasInteractiveActions(content)) problems.push('Action.Submit/Action.Execute');
  problems.push(...adaptiveCardProblems(content));
  return problems;
}

type Answer = ((res: ServerResponse) => void) | 'hang';
const logicAppsError =
  (status: number, code: string, headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    reply(res, status, { error: { code, message: 'details that must not reach users' } }, headers);
const accepted: Answer = (res) => reply(res, 202);
let answer: Answer;
const problems: string[][] = [];

let receiver: FakeReceiver;
let deps: NotifierDeps;

beforeAll(async () => {
  receiver = await new FakeReceiver((request, res) => {
    const found = teamsProblems(request);
    problems.push(found);
    if (found.length) return logicAppsError(400, 'InvalidRequestContent')(res);
    if (answer !== 'hang') answer(res);
  }).start();
  deps = await testDeps();
});

afterAll(() => receiver.stop());

beforeEach(() => {
  answer = accepted;
  problems.length = 0;
  receiver.requests.length = 0;
});

const contact = () => ({ webhook_url: `${receiver.baseUrl}${FLOW_PATH}${FLOW_QUERY}` });
const deliver = (event: NotificationEvent, now = () => T0 * 1000) =>
  createChatthreeNotifier(deps).deliver(contact(), event, testContext(now));
const card = () => {
  expect(receiver.requests).toHaveLength(1);
  expect(receiver.requests[0]!.headers['user-agent']).toBe(PICKET_USER_AGENT);
  return (receiver.requests[0]!.json as TeamsMessage).attachments[0].content;
};
const texts = (c: AdaptiveCard) => c.body.flatMap((e) => (e.type === 'TextBlock' ? [e.text] : []));
const facts = (c: AdaptiveCard) =>
  Object.fromEntries(c.body.flatMap((e) => (e.type === 'FactSet' ? e.facts.map((f) => [f.title, f.value]) : [])));

// ---- tests --------------------------------------------------------------------------------

describe('the fake Teams trigger', () => {
  const request = (json: unknown): RecordedRequest => {
    const raw = Buffer.from(JSON.stringify(json));
    return {
      method: 'POST',
      url: FLOW_PATH + FLOW_QUERY,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      raw,
      json,
    };
  };
  const envelope = (content: unknown) => ({
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content }],
  });

  it('refuses a card without a version, with Action.Submit or with an unknown element', () => {
    const good = { type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text: 'x', wrap: true }] };
    expect(teamsProblems(request(envelope(good)))).toEqual([]);
    const { version: _, ...noVersion } = good;
    expect(teamsProblems(request(envelope(noVersion)))).toContain('parsed as version 1.0');
    expect(teamsProblems(request(envelope({ ...good, actions: [{ type: 'Action.Submit', title: 'x' }] })))).toContain(
      'Action.Submit/Action.Execute',
    );
    expect(teamsProblems(request(envelope({ ...good, body: [{ type: 'Bogus' }] }))).join()).toMatch(
      /Unknown element type "Bogus"/,
    );
    expect(teamsProblems(request({ type: 'message', attachments: [] })).join()).toMatch(/envelope/);
  });
});

describe('chatthree notifier: cards', () => {
  it.each(NOTIFICATION_EVENTS)('delivers %s as one Adaptive Card 1.4 in the Workflows envelope', async (type) => {
    expect(await deliver(eventOf(type))).toEqual({ class: 'ok', status: 202, detail: 'HTTP 202' });
    expect(problems).toEqual([[]]);
    expect(card().version).toBe('1.4');
  });

  it('renders monitor.down: headline, cause, facts and a link to Picket', async () => {
    await deliver(eventOf('monitor.down'));
    const c = card();
    expect(c.body[0]).toEqual({
      type: 'TextBlock',
      text: 'API (prod) is DOWN',
      weight: 'Bolder',
      size: 'Medium',
      color: 'Attention',
      wrap: true,
    });
    expect(texts(c)[1]).toBe('HTTP 503');
    expect(facts(c)).toEqual({
      Since: '2026-01-01 10:00 UTC',
      Target: 'https://api.example.com/health',
      Regions: 'down (HTTP 503): eu-west-1, us-east-1',
    });
    expect(c.actions).toEqual([
      {
        type: 'Action.OpenUrl',
        title: 'Open in Picket',
        url: 'https://picket.example.com/monitors/6650a1f0c2e4b0a1b2c3d4e5',
      },
    ]);
  });

  it('renders monitor.up with the outage length', async () => {
    await deliver(eventOf('monitor.up'));
    const c = card();
    expect(texts(c)).toEqual(['API (prod) is UP again', 'Down for 12 min.']);
    expect(c.body[0]).toMatchObject({ color: 'Good' });
    expect(facts(c)).toMatchObject({ 'Down since': '2026-01-01 10:00 UTC', 'Up since': '2026-01-01 10:12 UTC' });
  });

  it('renders certificate.expiring with the expiry date', async () => {
    await deliver(eventOf('certificate.expiring'));
    const c = card();
    expect(texts(c)).toEqual([
      'API (prod): TLS certificate expires soon',
      'The TLS certificate expires on 2026-01-15 10:00 UTC (in 14 days).',
    ]);
    expect(c.body[0]).toMatchObject({ color: 'Warning' });
  });

  it('renders contact.test without monitor facts or actions', async () => {
    await deliver(eventOf('contact.test'));
    const c = card();
    expect(texts(c)[0]).toBe('Test notification from Picket');
    expect(c.body.map((e) => e.type)).toEqual(['TextBlock', 'TextBlock']);
    expect(c.actions).toBeUndefined();
  });

  it('shows a hostile name as written, with Markdown neutralised and no mention entities', async () => {
    const monitor = { ...sampleEvent().monitor, name: '@everyone <b>& <at>all</at> [x](https://evil.example) **b**' };
    expect((await deliver(eventOf('monitor.down', { monitor }))).class).toBe('ok');
    expect(problems).toEqual([[]]);
    const c = card();
    expect(texts(c)[0]).toBe('@everyone <b>& <at>all</at> \\[x\\](https://evil.example) \\*\\*b\\*\\* is DOWN');
    expect(JSON.stringify(c)).not.toContain('msteams');
  });

  it('keeps long names within bounds and the body under 20 KB, dropping regions only when needed', async () => {
    const monitor = { ...sampleEvent().monitor, name: '界'.repeat(300) };
    const regions = REGION_IDS.map((region, i) => ({
      region,
      status: 'down' as const,
      error: `${i}${'🚀'.repeat(299)}`,
    }));
    expect((await deliver(eventOf('monitor.down', { monitor, error: '🚀'.repeat(5000), regions }))).class).toBe('ok');
    expect(problems).toEqual([[]]);
    expect(receiver.requests[0]!.raw.length).toBeLessThan(20_000);
    const c = card();
    expect(texts(c)[0]).toBe(`${'界'.repeat(99)}… is DOWN`);
    expect(Array.from(texts(c)[1]!)).toHaveLength(TEAMS_LIMITS.compactCause);
    expect(facts(c).Regions).toBeUndefined();

    receiver.requests.length = 0;
    problems.length = 0;
    expect(
      (await deliver(eventOf('monitor.down', { monitor, error: 'x'.repeat(5000), regions: regions.slice(0, 2) })))
        .class,
    ).toBe('ok');
    expect(problems).toEqual([[]]);
    expect(Array.from(texts(card())[1]!)).toHaveLength(TEAMS_LIMITS.cause);
    expect(facts(card()).Regions).toBeDefined();
  });
});

describe('chatthree notifier: classification (§9, Logic Apps behaviour)', () => {
  const modes: { mode: string; answer: Answer; class: DeliveryClass; status: number; retryAfterMs?: number }[] = [
    { mode: '202 empty', answer: accepted, class: 'ok', status: 202 },
    { mode: '200', answer: (res) => reply(res, 200), class: 'ok', status: 200 },
    { mode: '400', answer: logicAppsError(400, 'InvalidRequestContent'), class: 'bug', status: 400 },
    { mode: '413', answer: logicAppsError(413, 'RequestEntityTooLarge'), class: 'bug', status: 413 },
    { mode: '401', answer: logicAppsError(401, 'DirectApiAuthorizationRequired'), class: 'disable', status: 401 },
    { mode: '403', answer: logicAppsError(403, 'AuthorizationFailed'), class: 'disable', status: 403 },
    { mode: '404', answer: logicAppsError(404, 'WorkflowNotFound'), class: 'disable', status: 404 },
    {
      mode: '429 + Retry-After: 7',
      answer: logicAppsError(429, 'WorkflowRequestsThrottled', { 'retry-after': '7' }),
      class: 'retry',
      status: 429,
      retryAfterMs: 7000,
    },
    { mode: '408', answer: logicAppsError(408, 'RequestTimeout'), class: 'retry', status: 408 },
    { mode: '500', answer: logicAppsError(500, 'InternalServerError'), class: 'retry', status: 500 },
    { mode: '502', answer: (res) => reply(res, 502, '<html>bad gateway</html>'), class: 'retry', status: 502 },
    {
      mode: '302 (not followed)',
      answer: (res) => reply(res, 302, undefined, { location: 'https://login.example/' }),
      class: 'retry',
      status: 302,
    },
  ];

  it.each(modes)('$mode → $class', async (mode) => {
    answer = mode.answer;
    const outcome = await deliver(eventOf('monitor.down'), () => NOW);
    expect(problems).toEqual([[]]);
    expect(outcome.class).toBe(mode.class);
    expect(outcome.status).toBe(mode.status);
    expect(outcome.retryAfterMs).toBe(mode.retryAfterMs);
    expect(outcome.detail).toMatch(/^HTTP \d{3}\b/);
    expect(outcome.detail).not.toContain(SIG);
    expect(outcome.detail).not.toContain('127.0.0.1');
    expect(outcome.detail).not.toContain('must not reach users');
  });

  it('classifies a network failure as retry without the URL', async () => {
    const outcome = await createChatthreeNotifier(deps).deliver(
      { webhook_url: `https://127.0.0.1:1${FLOW_PATH}${FLOW_QUERY}` },
      eventOf('monitor.down'),
      testContext(),
    );
    expect(outcome).toEqual({ class: 'retry', status: null, detail: 'connection refused' });
  });
});
