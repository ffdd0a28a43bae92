import type { ServerResponse } from 'node:http';
import { Ajv } from 'ajv';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';

/**
 * A fake Zendesk Tickets API on 127.0.0.1 (docs/decisions/0011-notification-channels.md §13, §15):
 * decodes Basic auth and accepts only `{email}/token:{api_token}` (401 otherwise, password
 * auth included), wants JSON in and out, validates ticket creates and updates, answers 201
 * with an incrementing id and a Location, honours `Idempotency-Key` (same key and body →
 * the first answer again with `x-idempotency-lookup: hit`; same key, other body → 400),
 * 404s unknown tickets on PUT, can require an assignee to solve (422), and switches to each
 * error shape: 401, 403, 409, 422 RecordInvalid, 429 and 503 with Retry-After, 500.
 */
export type ZendeskMode =
  | 'accept'
  | 'bad-request'
  | 'unauthorized'
  | 'forbidden'
  | 'conflict'
  | 'record-invalid'
  | 'throttle'
  | 'unavailable'
  | 'server-error';

const FIRST_TICKET_ID = 35436;

/** Retry-After (seconds) the fake sends with 429 and 503. */
export const ZENDESK_FAKE_RETRY_AFTER_S = 42;

const ticketFields = {
  subject: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\r\\n]*$' },
  comment: {
    type: 'object',
    additionalProperties: false,
    required: ['body'],
    properties: { body: { type: 'string', minLength: 1, maxLength: 65535 }, public: { type: 'boolean' } },
  },
  priority: { enum: ['urgent', 'high', 'normal', 'low'] },
  type: { enum: ['problem', 'incident', 'question', 'task'] },
  status: { enum: ['new', 'open', 'pending', 'hold', 'solved', 'closed'] },
  tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 80, pattern: '^[^\\s,]+$' } },
  custom_fields: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'value'],
      properties: { id: { type: 'integer', minimum: 1 }, value: {} },
    },
  },
  external_id: { type: 'string', minLength: 1, maxLength: 255 },
} as const;

const createSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ticket'],
  properties: {
    ticket: { type: 'object', additionalProperties: false, required: ['subject', 'comment'], properties: ticketFields },
  },
} as const;

const updateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['ticket'],
  properties: {
    ticket: { type: 'object', additionalProperties: false, minProperties: 1, properties: ticketFields },
  },
} as const;

const ajv = new Ajv({ allErrors: true, strict: false });
const validateCreate = ajv.compile(createSchema);
const validateUpdate = ajv.compile(updateSchema);

export interface ZendeskTicket {
  id: number;
  subject: string;
  status: string;
  priority: string;
  type: string;
  tags: string[];
  external_id: string | null;
  custom_fields: { id: number; value: unknown }[];
  comments: { body: string; public: boolean }[];
}

interface TicketInput {
  subject?: string;
  comment?: { body: string; public?: boolean };
  priority?: string;
  type?: string;
  status?: string;
  tags?: string[];
  custom_fields?: { id: number; value: unknown }[];
  external_id?: string;
}

export class FakeZendesk {
  readonly receiver: FakeReceiver;
  mode: ZendeskMode = 'accept';
  /** Like accounts whose rules need an assignee before a ticket can be solved. */
  requireAssigneeToSolve = false;
  /** When set, the Host header every request must carry (checks the {subdomain} substitution). */
  expectedHost: string | null = null;
  readonly tickets = new Map<number, ZendeskTicket>();
  /** Creates answered from the idempotency store instead of creating a ticket. */
  idempotentHits = 0;
  /** Requests refused as Zendesk would; a correct notifier causes none. */
  readonly problems: string[] = [];
  private nextId = FIRST_TICKET_ID;
  private readonly idempotency = new Map<string, { raw: string; status: number; body: unknown }>();

  constructor(
    readonly email: string,
    readonly apiToken: string,
  ) {
    this.receiver = new FakeReceiver((request, response) => this.handle(request, response));
  }

  async start(options: { https: boolean } = { https: true }): Promise<this> {
    await this.receiver.start(options);
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

  /** Tickets not solved (or closed). */
  get openTickets(): ZendeskTicket[] {
    return [...this.tickets.values()].filter((t) => t.status !== 'solved' && t.status !== 'closed');
  }

  reset(): void {
    this.mode = 'accept';
    this.requireAssigneeToSolve = false;
    this.expectedHost = null;
    this.tickets.clear();
    this.nextId = FIRST_TICKET_ID;
    this.idempotency.clear();
    this.idempotentHits = 0;
    this.requests.length = 0;
    this.problems.length = 0;
  }

  private handle(request: RecordedRequest, response: ServerResponse): void {
    const url = new URL(request.url, 'https://fake.invalid');
    const one = /^\/api\/v2\/tickets\/(\d+)$/.exec(url.pathname);
    if (this.expectedHost !== null && request.headers.host !== this.expectedHost) {
      this.problems.push(`Host ${request.headers.host ?? ''}`);
      return reply(response, 404, { error: 'InvalidEndpoint', description: 'Not found' });
    }
    const create = url.pathname === '/api/v2/tickets' && request.method === 'POST';
    const update = one !== null && request.method === 'PUT';
    if (!create && !update) {
      this.problems.push(`${request.method} ${url.pathname}`);
      return reply(response, 404, { error: 'InvalidEndpoint', description: 'Not found' });
    }
    if (!this.authenticated(request.headers.authorization)) {
      return reply(response, 401, { error: "Couldn't authenticate you" });
    }
    switch (this.mode) {
      case 'bad-request':
        return reply(response, 400, { error: 'InvalidRequest', description: 'Bad request' });
      case 'unauthorized':
        return reply(response, 401, { error: "Couldn't authenticate you" });
      case 'forbidden':
        return reply(response, 403, {
          error: 'Forbidden',
          description: `You do not have access (token ${this.apiToken})`,
        });
      case 'conflict':
        return reply(response, 409, { error: 'ConflictError', description: 'The ticket was updated concurrently' });
      case 'record-invalid':
        return this.recordInvalid(response, {
          custom_fields: [
            { description: `Field 360001234567 is invalid (token ${this.apiToken})`, error: 'InvalidValue' },
          ],
        });
      case 'throttle':
        return reply(
          response,
          429,
          'Rate limit for ticket updates exceeded, please wait before updating this ticket again',
          {
            'content-type': 'text/plain',
            'retry-after': String(ZENDESK_FAKE_RETRY_AFTER_S),
          },
        );
      case 'unavailable':
        return reply(response, 503, 'Maintenance', {
          'content-type': 'text/plain',
          'retry-after': String(ZENDESK_FAKE_RETRY_AFTER_S),
        });
      case 'server-error':
        return reply(response, 500, { error: 'InternalError' });
      case 'accept':
        break;
    }
    const problems: string[] = [];
    if (!/^application\/json\b/.test(request.headers['content-type'] ?? '')) problems.push('Content-Type is not JSON');
    if (!/application\/json/.test(request.headers.accept ?? '')) problems.push('Accept is not JSON');
    const validate = create ? validateCreate : validateUpdate;
    if (!validate(request.json)) {
      for (const e of validate.errors ?? []) problems.push(`${e.instancePath || '/'} ${e.message}`);
    }
    if (problems.length > 0) {
      this.problems.push(...problems);
      return this.recordInvalid(response, { base: problems.map((p) => ({ description: p, error: 'InvalidValue' })) });
    }
    const input = (request.json as { ticket: TicketInput }).ticket;
    if (create) return this.create(request, response, input);
    return this.update(response, Number(one?.[1]), input);
  }

  private create(request: RecordedRequest, response: ServerResponse, input: TicketInput): void {
    const keyHeader = request.headers['idempotency-key'];
    const key = typeof keyHeader === 'string' ? keyHeader : null;
    if (key === null) this.problems.push('create without Idempotency-Key');
    const raw = request.raw.toString('utf8');
    const seen = key === null ? undefined : this.idempotency.get(key);
    if (seen) {
      if (seen.raw !== raw) {
        this.problems.push(`Idempotency-Key ${key} reused with another body`);
        return reply(response, 400, {
          error: 'IdempotentRequestError',
          description: 'Request parameters do not match the original request',
        });
      }
      this.idempotentHits += 1;
      return reply(response, seen.status, seen.body, { 'x-idempotency-lookup': 'hit' });
    }
    const id = this.nextId++;
    const ticket: ZendeskTicket = {
      id,
      subject: input.subject ?? '',
      status: 'new',
      priority: input.priority ?? 'normal',
      type: input.type ?? 'question',
      tags: input.tags ?? [],
      external_id: input.external_id ?? null,
      custom_fields: input.custom_fields ?? [],
      comments: input.comment ? [{ body: input.comment.body, public: input.comment.public ?? true }] : [],
    };
    this.tickets.set(id, ticket);
    const body = { ticket: { ...ticket, url: `${this.baseUrl}/api/v2/tickets/${id}.json` } };
    if (key !== null) this.idempotency.set(key, { raw, status: 201, body });
    reply(response, 201, body, {
      location: `${this.baseUrl}/api/v2/tickets/${id}.json`,
      ...(key === null ? {} : { 'x-idempotency-lookup': 'miss' }),
    });
  }

  private update(response: ServerResponse, id: number, input: TicketInput): void {
    const ticket = this.tickets.get(id);
    if (!ticket) return reply(response, 404, { error: 'RecordNotFound', description: 'Not found' });
    if (ticket.status === 'closed') {
      return this.recordInvalid(response, { status: [{ description: 'Status: closed prevents ticket update' }] });
    }
    if (input.status === 'solved' && this.requireAssigneeToSolve) {
      return this.recordInvalid(response, {
        assignee_id: [{ description: 'Assignee is required to solve a ticket', error: 'InvalidValue' }],
      });
    }
    if (input.comment) ticket.comments.push({ body: input.comment.body, public: input.comment.public ?? true });
    if (input.status) ticket.status = input.status;
    reply(response, 200, { ticket });
  }

  private authenticated(header: string | undefined): boolean {
    const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header ?? '');
    if (!m?.[1]) {
      this.problems.push('no Basic authorization');
      return false;
    }
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    if (!decoded.includes('/token:')) this.problems.push('password authentication is not supported');
    return decoded === `${this.email}/token:${this.apiToken}`;
  }

  private recordInvalid(response: ServerResponse, details: Record<string, unknown[]>): void {
    reply(response, 422, { error: 'RecordInvalid', description: 'Record validation errors', details });
  }
}
