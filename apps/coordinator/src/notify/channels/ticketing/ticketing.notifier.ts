import { DETAIL_LIMITS, type ChannelDetails } from '../../../contacts/channels.js';
import { defaultClass, httpOutcome, networkOutcome } from '../../classify.js';
import type { HttpRequest, HttpResponse } from '../../http-sender.js';
import { expiry, safeTarget } from '../../message-parts.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier, NotifierContext } from '../../notifier.js';
import { downWord, humanDuration, isDownEvent, isoUtc, oneLine, truncate } from '../../text.js';

/**
 * `ticketing`: Zendesk Tickets API (docs/decisions/0011-notification-channels.md §13).
 *
 * - monitor.down, certificate.expiring and contact.test create a ticket
 *   (`POST /api/v2/tickets`, `Idempotency-Key: <incident key>-open`, so a retried create
 *   cannot open a second ticket) and return its id as `ref`, which the dispatcher stores and
 *   hands back as `openRef` with the closing event.
 * - monitor.up solves that ticket (`PUT /api/v2/tickets/{openRef}`, status `solved` plus a
 *   private "Recovered after …" comment) when `auto_solve_tickets` is true. Without a stored
 *   ticket id (the create never succeeded, or the ticket predates this notifier) there is
 *   nothing to solve and nothing is sent (ok). A 404 means the ticket was deleted: done (ok).
 *   A 422 usually means the account requires an assignee or fields to solve: the same
 *   attempt then adds the comment alone, leaving the ticket open for a person.
 *
 * Base URL: `endpoints.zendeskApiUrl` with `{subdomain}` replaced by the contact's subdomain,
 * which must be one DNS label (checked again here: it becomes part of a host name).
 */

export const ZENDESK_LIMITS = { subject: 255, comment: 8000, detail: 400 } as const;

export interface ZendeskCreate {
  ticket: {
    subject: string;
    comment: { body: string; public: false };
    priority: string;
    type: 'incident';
    tags: string[];
    custom_fields: { id: number; value: string }[];
    external_id: string;
  };
}

export interface ZendeskUpdate {
  ticket: { status?: 'solved'; comment: { body: string; public: false } };
}

export function createTicketingNotifier(deps: NotifierDeps): Notifier<'ticketing'> {
  return {
    async deliver(details, event, context) {
      const base = zendeskBase(deps.endpoints.zendeskApiUrl, details.subdomain);
      if (base === null) return { class: 'disable', status: null, detail: 'subdomain is not a single DNS label' };
      const zendesk = new ZendeskClient(deps, details, base, context);
      if (event.event === 'monitor.up') return solve(zendesk, details, event);
      // A reminder notes the outage's open ticket; without one (it was never opened) it opens one.
      if (event.event === 'monitor.down.reminder' && event.openRef !== null) {
        return remind(zendesk, event, event.openRef);
      }
      return create(zendesk, details, event);
    },
  };
}

/** The API base for a subdomain, or null when the subdomain is not one DNS label. */
export function zendeskBase(template: string, subdomain: string): string | null {
  if (!DETAIL_LIMITS.zendeskSubdomainPattern.test(subdomain)) return null;
  return template.replaceAll('{subdomain}', subdomain).replace(/\/+$/, '');
}

export function zendeskCreate(details: ChannelDetails['ticketing'], event: NotificationEvent): ZendeskCreate {
  const priorities: readonly string[] = DETAIL_LIMITS.ticketPriorities;
  return {
    ticket: {
      subject: truncate(subject(event), ZENDESK_LIMITS.subject),
      comment: { body: truncate(commentBody(event), ZENDESK_LIMITS.comment), public: false },
      priority: priorities.includes(details.priority) ? details.priority : 'normal',
      type: 'incident',
      tags: tags(details.tags, event),
      custom_fields: details.custom_fields.map((f) => ({ id: f.id, value: f.value })),
      external_id: event.incidentId ?? incidentKey(event),
    },
  };
}

export function zendeskSolve(event: NotificationEvent, solved: boolean): ZendeskUpdate {
  const name = oneLine(event.monitor.name);
  const body =
    event.durationSeconds === null
      ? `Recovered: ${name} is UP again.`
      : `Recovered after ${humanDuration(event.durationSeconds)}: ${name} is UP again.`;
  const comment = { body: truncate(body, ZENDESK_LIMITS.comment), public: false as const };
  return solved ? { ticket: { status: 'solved', comment } } : { ticket: { comment } };
}

/** A reminder: an internal note on the outage's open ticket (nothing reopened, nothing solved). */
async function remind(zendesk: ZendeskClient, event: NotificationEvent, ticket: string): Promise<DeliveryOutcome> {
  if (!/^[1-9]\d{0,19}$/.test(ticket)) {
    return { class: 'bug', status: null, detail: 'the stored ticket reference is not a Zendesk ticket id' };
  }
  const comment = { body: truncate(commentBody(event), ZENDESK_LIMITS.comment), public: false as const };
  const noted = await zendesk.send('PUT', `/api/v2/tickets/${ticket}`, { ticket: { comment } });
  if ('class' in noted) return noted;
  if (noted.status === 404)
    return { class: 'ok', status: 404, detail: 'HTTP 404: the ticket is gone, nothing to note' };
  return zendesk.classify(noted, 'note');
}

async function create(
  zendesk: ZendeskClient,
  details: ChannelDetails['ticketing'],
  event: NotificationEvent,
): Promise<DeliveryOutcome> {
  const answer = await zendesk.send('POST', '/api/v2/tickets', zendeskCreate(details, event), {
    'idempotency-key': oneLine(`${incidentKey(event)}-open`),
  });
  if ('class' in answer) return answer;
  if (answer.status < 200 || answer.status >= 300) return zendesk.classify(answer, 'create');
  const id = ticketId(answer.body);
  if (id === null) return { class: 'ok', status: answer.status, detail: `HTTP ${answer.status}: ticket created` };
  return { class: 'ok', status: answer.status, detail: `HTTP ${answer.status}: ticket ${id} created`, ref: id };
}

async function solve(
  zendesk: ZendeskClient,
  details: ChannelDetails['ticketing'],
  event: NotificationEvent,
): Promise<DeliveryOutcome> {
  if (!details.auto_solve_tickets)
    return { class: 'ok', status: null, detail: 'auto_solve_tickets is off: nothing sent' };
  if (event.openRef === null) return { class: 'ok', status: null, detail: 'no ticket was opened for this outage' };
  if (!/^[1-9]\d{0,19}$/.test(event.openRef)) {
    return { class: 'bug', status: null, detail: 'the stored ticket reference is not a Zendesk ticket id' };
  }
  const path = `/api/v2/tickets/${event.openRef}`;
  const solved = await zendesk.send('PUT', path, zendeskSolve(event, true));
  if ('class' in solved) return solved;
  if (solved.status === 404)
    return { class: 'ok', status: 404, detail: 'HTTP 404: the ticket is gone, nothing to solve' };
  if (solved.status !== 422) return zendesk.classify(solved, 'solve');
  // The account refuses to solve it as is (assignee or fields required): leave a note instead.
  const noted = await zendesk.send('PUT', path, zendeskSolve(event, false));
  if ('class' in noted) return noted;
  if (noted.status === 404)
    return { class: 'ok', status: 404, detail: 'HTTP 404: the ticket is gone, nothing to solve' };
  if (noted.status >= 200 && noted.status < 300) {
    return {
      class: 'ok',
      status: noted.status,
      detail: `HTTP ${noted.status}: recovery noted on ticket ${event.openRef}; Zendesk refused to solve it (HTTP 422)`,
    };
  }
  return zendesk.classify(noted, 'solve');
}

/** One contact's Zendesk API: auth, JSON, and the classification of its answers. */
class ZendeskClient {
  private readonly authorization: string;

  constructor(
    private readonly deps: NotifierDeps,
    private readonly details: ChannelDetails['ticketing'],
    private readonly base: string,
    private readonly context: NotifierContext,
  ) {
    const credential = Buffer.from(`${details.email}/token:${details.api_token}`, 'utf8').toString('base64');
    this.authorization = `Basic ${credential}`;
  }

  /** The answer, or the outcome of a request that got none. */
  async send(
    method: 'POST' | 'PUT',
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpResponse | DeliveryOutcome> {
    const request: HttpRequest = {
      method,
      url: `${this.base}${path}`,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: this.authorization,
        ...headers,
      },
      body: JSON.stringify(body),
    };
    try {
      return await this.deps.http.send(request, this.context.signal);
    } catch (error) {
      return networkOutcome(error);
    }
  }

  /**
   * 2xx ok; 401, 403 → disable; 404 on create → disable (no such account); 409 → retry;
   * 400, 422 → bug (naming the field errors); 429, 503, other 5xx → retry with Retry-After.
   */
  classify(response: HttpResponse, action: 'create' | 'solve' | 'note'): DeliveryOutcome {
    const { status } = response;
    const now = this.context.now();
    if (status >= 200 && status < 300) return { class: 'ok', status, detail: `HTTP ${status}: ${action} accepted` };
    switch (status) {
      case 401:
        return { class: 'disable', status, detail: 'HTTP 401: Zendesk refused the email and API token' };
      case 403:
        return { class: 'disable', status, detail: 'HTTP 403: the API user may not do this' };
      case 404:
        return { class: 'disable', status, detail: 'HTTP 404: no Zendesk ticket API at this subdomain' };
      case 409:
        return httpOutcome('retry', response, now, 'HTTP 409: Zendesk reported a conflicting update');
      case 400:
      case 422:
        return { class: 'bug', status, detail: this.refusal(response) };
      default:
        return httpOutcome(defaultClass(status), response, now);
    }
  }

  /** "HTTP 422 RecordInvalid: priority: is invalid; …" without anything secret. */
  private refusal(response: HttpResponse): string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      return `HTTP ${response.status}: Zendesk refused the request`;
    }
    const { error, details } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
      error?: unknown;
      details?: unknown;
    };
    const code = typeof error === 'string' && /^[A-Za-z]{1,40}$/.test(error) ? ` ${error}` : '';
    const fields: string[] = [];
    if (typeof details === 'object' && details !== null) {
      for (const [field, problems] of Object.entries(details)) {
        if (!/^[A-Za-z0-9_.[\]-]{1,60}$/.test(field)) continue;
        const list: unknown[] = Array.isArray(problems) ? problems : [problems];
        const texts = list.map((p) => {
          const { description, error: fieldError } = (typeof p === 'object' && p !== null ? p : {}) as {
            description?: unknown;
            error?: unknown;
          };
          const text = typeof description === 'string' ? description : typeof fieldError === 'string' ? fieldError : '';
          return truncate(oneLine(text), 120);
        });
        fields.push(`${field}: ${texts.filter((t) => t !== '').join(', ') || 'invalid'}`);
      }
    }
    const detail = `HTTP ${response.status}${code}${fields.length > 0 ? `: ${fields.join('; ')}` : ''}`;
    return truncate(this.scrub(detail), ZENDESK_LIMITS.detail);
  }

  /** Never show the token or the Basic credential, whatever Zendesk echoed. */
  private scrub(text: string): string {
    let out = text;
    for (const secret of [this.details.api_token, this.authorization.slice('Basic '.length)]) {
      if (secret.length > 0) out = out.split(secret).join('[REDACTED]');
    }
    return out;
  }
}

function incidentKey(event: NotificationEvent): string {
  return event.dedupKey ?? `test-${event.id}`;
}

function ticketId(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { ticket?: { id?: unknown } } | null;
    const id = parsed?.ticket?.id;
    return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? String(id) : null;
  } catch {
    return null;
  }
}

function subject(event: NotificationEvent): string {
  const name = oneLine(event.monitor.name);
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      return `[${downWord(event.event)}] ${name}`;
    case 'monitor.up':
      return `[UP] ${name}`;
    case 'certificate.expiring':
      return `[CERTIFICATE] ${name}: TLS certificate ${expiry(event)}`;
    case 'contact.test':
      return '[TEST] Test ticket from Picket';
  }
}

function commentBody(event: NotificationEvent): string {
  if (event.event === 'contact.test') {
    return 'This is a test ticket sent from Picket. Solve it by hand: Picket never solves tests.';
  }
  const lines: string[] = [];
  if (isDownEvent(event.event)) {
    const down = event.regions.filter((r) => r.status === 'down').length;
    lines.push(
      `${event.monitor.name} is ${event.event === 'monitor.down' ? '' : 'still '}DOWN${event.error ? `: ${event.error}` : ''}.`,
    );
    if (event.regions.length > 0) lines.push(`Failing in ${down} of ${event.regions.length} regions:`);
  } else {
    lines.push(`The TLS certificate of ${event.monitor.name} ${expiry(event)}.`);
  }
  for (const r of event.regions) lines.push(`- ${r.region}: ${r.status}${r.error ? ` (${r.error})` : ''}`);
  lines.push('', `Target: ${safeTarget(event.monitor.target)}`);
  if (event.startedAt !== null) lines.push(`Since: ${isoUtc(event.startedAt)}`);
  if (event.certificateExpiresAt !== null) lines.push(`Certificate expires: ${isoUtc(event.certificateExpiresAt)}`);
  if (event.incidentId !== null) lines.push(`Picket incident: ${event.incidentId}`);
  if (event.link !== null) lines.push(event.link);
  return lines.join('\n');
}

/** The contact's tags, then Picket's: single lowercase tokens (Zendesk splits on spaces). */
function tags(configured: string[], event: NotificationEvent): string[] {
  const kind = isDownEvent(event.event) ? 'down' : event.event === 'certificate.expiring' ? 'certificate' : 'test';
  const out: string[] = [];
  for (const tag of [...configured, 'picket', `picket_${kind}`]) {
    const token = oneLine(tag)
      .toLowerCase()
      .replace(/[\s,]+/g, '_');
    if (token !== '' && !out.includes(token)) out.push(token);
  }
  return out;
}
