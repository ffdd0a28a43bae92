import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';

/**
 * A fake incident.io HTTP alert source on 127.0.0.1 (docs/decisions/0011-notification-channels.md
 * §11, §15): one alert source config at `/v2/alert_events/http/{id}`, checks the bearer token
 * (401 otherwise), refuses `?token=`, validates the alert event (required fields, the status
 * enum, one-line title, Picket's own limits since incident.io publishes none), answers 202,
 * tracks firing alerts by deduplication key, and switches to each error shape.
 */
export type IncidentIoMode =
  'accept' | 'bad-request' | 'forbidden' | 'not-found' | 'validation' | 'throttle' | 'server-error';

/** How far ahead `rate_limit.retry_after` points in `throttle` mode. */
export const INCIDENTIO_FAKE_RETRY_AFTER_MS = 90_000;

const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'status', 'deduplication_key'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\r\\n]*$' },
    status: { enum: ['firing', 'resolved'] },
    deduplication_key: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: 'string', maxLength: 4096 },
    metadata: { type: 'object' },
    source_url: { type: 'string', pattern: '^https?://[^\\s]+$' },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

export interface IncidentIoAlert {
  title: string;
  description: string;
  /** Firing events received for the key while it was firing. */
  events: number;
}

export class FakeIncidentIo {
  readonly receiver: FakeReceiver;
  readonly configId = '01JQ5V3KX2G8Z7T1M4N6P9R0AB';
  mode: IncidentIoMode = 'accept';
  /** The clock `rate_limit.retry_after` is computed from (ms since the epoch). */
  now: () => number = () => Date.now();
  readonly firing = new Map<string, IncidentIoAlert>();
  readonly resolved: string[] = [];
  opened = 0;
  /** Requests refused as incident.io would; a correct notifier causes none. */
  readonly problems: string[] = [];

  constructor(readonly token: string) {
    this.receiver = new FakeReceiver((request, response) => this.handle(request, response));
  }

  async start(): Promise<this> {
    await this.receiver.start();
    return this;
  }

  stop(): Promise<void> {
    return this.receiver.stop();
  }

  get webhookUrl(): string {
    return `${this.receiver.baseUrl}${this.path}`;
  }

  get requests(): RecordedRequest[] {
    return this.receiver.requests;
  }

  private get path(): string {
    return `/v2/alert_events/http/${this.configId}`;
  }

  private handle(request: RecordedRequest, response: ServerResponse): void {
    const url = new URL(request.url, 'https://fake.invalid');
    if (url.searchParams.has('token')) this.problems.push('token sent in the query string');
    if (url.pathname !== this.path || request.method !== 'POST') {
      this.problems.push(`${request.method} ${url.pathname}`);
      return this.error(response, 404, 'not_found', 'not_found', 'Alert source config not found');
    }
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      this.problems.push('missing or wrong bearer token');
      return this.error(response, 401, 'authentication_error', 'authentication_required', 'Invalid API key');
    }
    switch (this.mode) {
      case 'bad-request':
        return this.error(response, 400, 'bad_request', 'invalid_json', 'Request body could not be parsed');
      case 'forbidden':
        return this.error(response, 403, 'authorization_error', 'forbidden', `Key ${this.token} lacks a scope`);
      case 'not-found':
        return this.error(response, 404, 'not_found', 'not_found', 'Alert source config not found');
      case 'validation':
        return this.error(response, 422, 'validation_error', 'is_required', 'title is required');
      case 'throttle': {
        const retryAfter = new Date(this.now() + INCIDENTIO_FAKE_RETRY_AFTER_MS).toUTCString();
        return reply(response, 429, {
          type: 'too_many_requests',
          status: 429,
          request_id: randomUUID(),
          rate_limit: { limit: 1200, remaining: 0, retry_after: retryAfter },
          errors: [{ code: 'too_many_requests', message: 'Rate limit exceeded' }],
        });
      }
      case 'server-error':
        return this.error(response, 500, 'internal_error', 'internal_error', 'Internal Server Error');
      case 'accept':
        break;
    }
    const problems: string[] = [];
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) problems.push('Content-Type is not JSON');
    if (request.json === undefined) problems.push('body is not JSON');
    else if (!validate(request.json)) {
      for (const e of validate.errors ?? []) problems.push(`${e.instancePath || '/'} ${e.message}`);
    }
    if (problems.length > 0) {
      this.problems.push(...problems);
      return this.error(response, 422, 'validation_error', 'invalid_value', problems.join('; '));
    }
    const event = request.json as {
      title: string;
      status: 'firing' | 'resolved';
      deduplication_key: string;
      description?: string;
    };
    const alert = this.firing.get(event.deduplication_key);
    if (event.status === 'firing') {
      if (alert) alert.events += 1;
      else {
        this.opened += 1;
        this.firing.set(event.deduplication_key, {
          title: event.title,
          description: event.description ?? '',
          events: 1,
        });
      }
    } else if (alert) {
      this.firing.delete(event.deduplication_key);
      this.resolved.push(event.deduplication_key);
    }
    reply(response, 202, {
      status: 'success',
      message: 'Event accepted for processing',
      deduplication_key: event.deduplication_key,
    });
  }

  private error(response: ServerResponse, status: number, type: string, code: string, message: string): void {
    reply(response, status, { type, status, request_id: randomUUID(), errors: [{ code, message }] });
  }
}
