import type { ServerResponse } from 'node:http';
import { Ajv } from 'ajv';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';

/**
 * A fake PagerDuty Events API v2 on 127.0.0.1 (docs/decisions/0011-notification-channels.md §10, §15):
 * checks every request as PagerDuty would (path, method, no auth header, JSON, the event
 * schema with the 32/255/1024 rules, 512 KB), answers 202 echoing `dedup_key`, tracks open
 * alerts by key, and switches to each error shape PagerDuty has.
 */
export type PagerDutyMode = 'accept' | 'routing-key-error' | 'invalid-event' | 'throttle' | 'server-error';

const MAX_EVENT_BYTES = 512 * 1024;

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['routing_key', 'event_action'],
  properties: {
    routing_key: { type: 'string', pattern: '^[A-Za-z0-9]{32}$' },
    event_action: { enum: ['trigger', 'acknowledge', 'resolve'] },
    dedup_key: { type: 'string', minLength: 1, maxLength: 255 },
    payload: {
      type: 'object',
      additionalProperties: false,
      required: ['summary', 'source', 'severity'],
      properties: {
        summary: { type: 'string', minLength: 1, maxLength: 1024 },
        source: { type: 'string', minLength: 1, maxLength: 255 },
        severity: { enum: ['critical', 'error', 'warning', 'info'] },
        timestamp: {
          type: 'string',
          pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
        },
        component: { type: 'string', maxLength: 255 },
        group: { type: 'string', maxLength: 255 },
        class: { type: 'string', maxLength: 255 },
        custom_details: { type: 'object' },
      },
    },
    client: { type: 'string', maxLength: 255 },
    client_url: { type: 'string', pattern: '^https?://' },
    links: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['href'],
        properties: { href: { type: 'string', pattern: '^https?://' }, text: { type: 'string' } },
      },
    },
    images: { type: 'array', items: { type: 'object', required: ['src'] } },
  },
  allOf: [
    {
      if: { properties: { event_action: { const: 'trigger' } } },
      then: { required: ['payload'] },
      else: { not: { anyOf: [{ required: ['client_url'] }] } },
    },
  ],
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

export interface PagerDutyAlert {
  routingKey: string;
  summary: string;
  severity: string;
  /** Triggers received for this key while open (a repeated trigger adds to the alert). */
  triggers: number;
}

export class FakePagerDuty {
  readonly receiver: FakeReceiver;
  mode: PagerDutyMode = 'accept';
  /** Open alerts by dedup key. */
  readonly open = new Map<string, PagerDutyAlert>();
  /** Keys of alerts resolved, in order. */
  readonly resolved: string[] = [];
  /** Alerts ever opened (a trigger on a key with no open alert). */
  opened = 0;
  /** What the fake refused as PagerDuty would; a correct notifier causes none. */
  readonly problems: string[] = [];

  constructor() {
    this.receiver = new FakeReceiver((request, response) => this.handle(request, response));
  }

  async start(): Promise<this> {
    await this.receiver.start();
    return this;
  }

  stop(): Promise<void> {
    return this.receiver.stop();
  }

  get url(): string {
    return `${this.receiver.baseUrl}/v2/enqueue`;
  }

  get requests(): RecordedRequest[] {
    return this.receiver.requests;
  }

  private handle(request: RecordedRequest, response: ServerResponse): void {
    if (request.url !== '/v2/enqueue' || request.method !== 'POST') {
      this.problems.push(`${request.method} ${request.url}`);
      return reply(response, 404, { status: 'not found', message: 'Not found' });
    }
    const body = request.json as { routing_key?: unknown } | undefined;
    const key = typeof body?.routing_key === 'string' ? body.routing_key : '';
    switch (this.mode) {
      case 'routing-key-error':
        // PagerDuty names the key it refused: a notifier must never pass this on.
        return this.invalid(response, [`Invalid routing_key '${key}': no integration has this key`], false);
      case 'invalid-event':
        return this.invalid(response, ["'payload.severity' is invalid"], false);
      case 'throttle':
        return reply(response, 429, { status: 'throttle event', message: 'Requests for this service are throttled' });
      case 'server-error':
        return reply(response, 500, 'Internal Server Error', { 'content-type': 'text/plain' });
      case 'accept':
        break;
    }
    const problems: string[] = [];
    if (request.headers.authorization !== undefined) problems.push('an Authorization header was sent');
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) problems.push('Content-Type is not JSON');
    if (request.raw.length > MAX_EVENT_BYTES) problems.push('event larger than 512 KB');
    if (request.json === undefined) problems.push('body is not JSON');
    else if (!validate(request.json)) {
      for (const e of validate.errors ?? []) {
        const field = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || String(e.params.missingProperty ?? '');
        problems.push(
          field.startsWith('routing_key') ? `Length of 'routing_key' is incorrect` : `${field} ${e.message}`,
        );
      }
    }
    if (problems.length > 0) return this.invalid(response, problems, true);
    const event = request.json as {
      routing_key: string;
      event_action: 'trigger' | 'acknowledge' | 'resolve';
      dedup_key?: string;
      payload?: { summary: string; severity: string };
    };
    const dedupKey = event.dedup_key ?? `pd-${this.requests.length}`;
    const alert = this.open.get(dedupKey);
    if (event.event_action === 'trigger') {
      if (alert && alert.routingKey === event.routing_key) alert.triggers += 1;
      else {
        this.opened += 1;
        this.open.set(dedupKey, {
          routingKey: event.routing_key,
          summary: event.payload?.summary ?? '',
          severity: event.payload?.severity ?? '',
          triggers: 1,
        });
      }
    } else if (event.event_action === 'resolve' && alert && alert.routingKey === event.routing_key) {
      // Resolve on an unknown key (or another service's key) is silently dropped, still 202.
      this.open.delete(dedupKey);
      this.resolved.push(dedupKey);
    }
    reply(response, 202, { status: 'success', message: 'Event processed', dedup_key: dedupKey });
  }

  private invalid(response: ServerResponse, errors: string[], record: boolean): void {
    if (record) this.problems.push(...errors);
    reply(response, 400, { status: 'invalid event', message: 'Event object is invalid', errors });
  }
}
