import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';

/**
 * A fake Opsgenie Alert API v2 on 127.0.0.1 (docs/decisions/0011-notification-channels.md §12, §15):
 * requires `Authorization: GenieKey <key>`, validates create and close requests with the
 * documented limits (message 130, alias 512, description 15000, ≤ 20 tags of ≤ 50, details a
 * string map of ≤ 8000 characters, priority P1–P5, source 100, note 25000), answers 202 with
 * a `requestId`, records open aliases (a repeated alias is counted, not duplicated), and
 * switches to each error status Opsgenie has. Start one per region to check EU routing.
 */
export type OpsgenieMode =
  | 'accept'
  | 'bad-request'
  | 'unauthorized'
  | 'payment-required'
  | 'forbidden'
  | 'not-found'
  | 'unsupported-media-type'
  | 'unprocessable'
  | 'throttle'
  | 'server-error'
  | 'unavailable';

/** The Retry-After the fake sends in `unavailable` mode, in seconds. */
export const OPSGENIE_FAKE_RETRY_AFTER_S = 10;

const MODES: Record<
  Exclude<OpsgenieMode, 'accept'>,
  { status: number; message: string; headers?: Record<string, string> }
> = {
  'bad-request': { status: 400, message: 'Invalid request body' },
  unauthorized: { status: 401, message: 'Key format is not valid!' },
  'payment-required': { status: 402, message: 'Your plan does not include the alert API' },
  forbidden: { status: 403, message: 'You are not authorized to take this action' },
  'not-found': { status: 404, message: 'Integration not found' },
  'unsupported-media-type': { status: 415, message: 'Unsupported Media Type' },
  unprocessable: { status: 422, message: 'Request body is not processable. Please check the errors.' },
  throttle: { status: 429, message: 'Too many requests', headers: { 'x-ratelimit-state': 'THROTTLED' } },
  'server-error': { status: 500, message: 'Internal Server Error' },
  unavailable: {
    status: 503,
    message: 'Service Unavailable',
    headers: { 'retry-after': String(OPSGENIE_FAKE_RETRY_AFTER_S) },
  },
};

const createSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['message'],
  properties: {
    message: { type: 'string', minLength: 1, maxLength: 130 },
    alias: { type: 'string', minLength: 1, maxLength: 512 },
    description: { type: 'string', maxLength: 15000 },
    responders: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['type'],
        properties: {
          type: { enum: ['team', 'user', 'escalation', 'schedule'] },
          id: { type: 'string', minLength: 1 },
          name: { type: 'string', minLength: 1 },
          username: { type: 'string', minLength: 1 },
        },
      },
    },
    visibleTo: { type: 'array' },
    actions: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 50 } },
    tags: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 50 } },
    details: { type: 'object', additionalProperties: { type: 'string' } },
    entity: { type: 'string', maxLength: 512 },
    source: { type: 'string', maxLength: 100 },
    priority: { enum: ['P1', 'P2', 'P3', 'P4', 'P5'] },
    user: { type: 'string', maxLength: 100 },
    note: { type: 'string', maxLength: 25000 },
  },
} as const;

const closeSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    user: { type: 'string', maxLength: 100 },
    source: { type: 'string', maxLength: 100 },
    note: { type: 'string', maxLength: 25000 },
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const validateCreate = ajv.compile(createSchema);
const validateClose = ajv.compile(closeSchema);

export interface OpsgenieAlert {
  message: string;
  priority: string;
  tags: string[];
  /** Creates received for this alias while it was open (Opsgenie's count). */
  count: number;
}

export class FakeOpsgenie {
  readonly receiver: FakeReceiver;
  mode: OpsgenieMode = 'accept';
  /** Open alerts by alias. */
  readonly open = new Map<string, OpsgenieAlert>();
  readonly closed: { alias: string; note?: string }[] = [];
  opened = 0;
  /** Requests refused as Opsgenie would; a correct notifier causes none. */
  readonly problems: string[] = [];

  constructor(readonly apiKey: string) {
    this.receiver = new FakeReceiver((request, response) => this.handle(request, response));
  }

  async start(): Promise<this> {
    await this.receiver.start();
    return this;
  }

  stop(): Promise<void> {
    return this.receiver.stop();
  }

  get baseUrl(): string {
    return this.receiver.baseUrl;
  }

  get requests(): RecordedRequest[] {
    return this.receiver.requests;
  }

  reset(): void {
    this.mode = 'accept';
    this.open.clear();
    this.closed.length = 0;
    this.opened = 0;
    this.requests.length = 0;
    this.problems.length = 0;
  }

  private handle(request: RecordedRequest, response: ServerResponse): void {
    const url = new URL(request.url, 'https://fake.invalid');
    const close = /^\/v2\/alerts\/([^/]+)\/close$/.exec(url.pathname);
    if (request.method !== 'POST' || (url.pathname !== '/v2/alerts' && !close)) {
      this.problems.push(`${request.method} ${url.pathname}`);
      return this.answer(response, 404, 'Not found');
    }
    const auth = request.headers.authorization ?? '';
    if (!auth.startsWith('GenieKey ')) {
      this.problems.push('no GenieKey authorization');
      return this.answer(response, 401, 'Could not authenticate');
    }
    if (auth !== `GenieKey ${this.apiKey}`) {
      // Opsgenie echoes nothing secret here, but the fake does so a leak would show.
      return this.answer(response, 401, `Key ${auth.slice(9)} could not be authenticated`);
    }
    if (this.mode !== 'accept') {
      const { status, message, headers } = MODES[this.mode];
      return this.answer(response, status, `${message} (key ${this.apiKey})`, headers);
    }
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) {
      this.problems.push('Content-Type is not JSON');
      return this.answer(response, 415, 'Unsupported Media Type');
    }
    if (close) {
      const alias = decodeURIComponent(close[1] ?? '');
      const problems: string[] = [];
      if (url.searchParams.get('identifierType') !== 'alias') problems.push('identifierType is not alias');
      if (alias.length === 0 || Array.from(alias).length > 512) problems.push('alias must be 1 to 512 characters');
      if (request.raw.length > 0 && !validateClose(request.json)) {
        for (const e of validateClose.errors ?? []) problems.push(`${e.instancePath || '/'} ${e.message}`);
      }
      if (problems.length > 0) return this.unprocessable(response, problems);
      if (this.open.delete(alias)) {
        const note = (request.json as { note?: string } | undefined)?.note;
        this.closed.push(note === undefined ? { alias } : { alias, note });
      }
      // Unknown aliases are still 202: processing is asynchronous.
      return this.accepted(response);
    }
    const problems: string[] = [];
    if (!validateCreate(request.json)) {
      for (const e of validateCreate.errors ?? []) problems.push(`${e.instancePath || '/'} ${e.message}`);
    } else {
      const body = request.json as { details?: Record<string, string> };
      const total = Object.entries(body.details ?? {}).reduce(
        (sum, [k, v]) => sum + Array.from(k).length + Array.from(v).length,
        0,
      );
      if (total > 8000) problems.push(`details are ${total} characters long (at most 8000)`);
    }
    if (problems.length > 0) return this.unprocessable(response, problems);
    const alert = request.json as { message: string; alias?: string; priority?: string; tags?: string[] };
    const alias = alert.alias ?? randomUUID();
    const existing = this.open.get(alias);
    if (existing) existing.count += 1;
    else {
      this.opened += 1;
      this.open.set(alias, {
        message: alert.message,
        priority: alert.priority ?? 'P3',
        tags: alert.tags ?? [],
        count: 1,
      });
    }
    this.accepted(response);
  }

  private accepted(response: ServerResponse): void {
    reply(response, 202, { result: 'Request will be processed', took: 0.01, requestId: randomUUID() });
  }

  private unprocessable(response: ServerResponse, problems: string[]): void {
    this.problems.push(...problems);
    reply(response, 422, {
      message: 'Request body is not processable. Please check the errors.',
      errors: Object.fromEntries(problems.map((p, i) => [`error${i}`, p])),
      took: 0,
      requestId: randomUUID(),
    });
  }

  private answer(
    response: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    reply(response, status, { message, took: 0, requestId: randomUUID() }, headers);
  }
}
