import { DETAIL_LIMITS, type ChannelDetails } from '../../../contacts/channels.js';
import { defaultClass, httpOutcome, networkOutcome } from '../../classify.js';
import type { HttpRequest, HttpResponse } from '../../http-sender.js';
import { expiry, safeTarget } from '../../message-parts.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import { downWord, humanDuration, isDownEvent, isoUtc, oneLine, truncate } from '../../text.js';

/**
 * `alerting`: Opsgenie Alert API v2 (docs/decisions/0011-notification-channels.md §12); Jira Service
 * Management operations serves the same paths under another base, which is an operator setting.
 *
 * - monitor.down, certificate.expiring and contact.test create an alert (`POST /v2/alerts`)
 *   with `alias` = the event's incident key (contact.test: `test-<event id>`, left open for
 *   the user, like the other incident channels). Opsgenie counts a repeated alias instead of
 *   opening a second alert, so a retried create is harmless.
 * - monitor.up closes it (`POST /v2/alerts/{alias}/close?identifierType=alias`) with a note
 *   saying how long the outage lasted, only when `auto_close_alerts` is true; otherwise
 *   nothing is sent (ok).
 *
 * The base is `endpoints.opsgenieEuApiUrl` when the contact has `eu_instance`, else
 * `endpoints.opsgenieApiUrl`: never a contact field.
 */

export const OPSGENIE_LIMITS = {
  message: 130,
  alias: 512,
  description: 15_000,
  tags: DETAIL_LIMITS.tag.count,
  tag: DETAIL_LIMITS.tag.length,
  /** All keys and values of `details` together. */
  details: 8000,
  detailValue: 1000,
  entity: 512,
  source: 100,
  note: 25_000,
} as const;

const SOURCE = 'Picket';

export interface OpsgenieCreate {
  message: string;
  alias: string;
  description: string;
  responders: { type: string; id: string }[];
  tags: string[];
  details: Record<string, string>;
  entity: string;
  priority: string;
  source: string;
}

export interface OpsgenieClose {
  source: string;
  note: string;
}

export type OpsgeniePlan = { send: { path: string; body: OpsgenieCreate | OpsgenieClose } } | { skip: string };

export function createAlertingNotifier(deps: NotifierDeps): Notifier<'alerting'> {
  return {
    async deliver(details, event, context) {
      const plan = opsgeniePlan(details, event);
      if ('skip' in plan) return { class: 'ok', status: null, detail: plan.skip };
      const base = (details.eu_instance ? deps.endpoints.opsgenieEuApiUrl : deps.endpoints.opsgenieApiUrl).replace(
        /\/+$/,
        '',
      );
      const request: HttpRequest = {
        method: 'POST',
        url: `${base}${plan.send.path}`,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `GenieKey ${details.api_key}`,
        },
        body: JSON.stringify(plan.send.body),
      };
      let response: HttpResponse;
      try {
        response = await deps.http.send(request, context.signal);
      } catch (error) {
        return networkOutcome(error);
      }
      return classifyOpsgenie(response, context.now(), event.event === 'monitor.up' ? 'close' : 'create');
    },
  };
}

/** The path and body for an event (pure; exported for tests). */
export function opsgeniePlan(details: ChannelDetails['alerting'], event: NotificationEvent): OpsgeniePlan {
  const alias = truncate(event.dedupKey ?? `test-${event.id}`, OPSGENIE_LIMITS.alias);
  if (event.event === 'monitor.up') {
    if (!details.auto_close_alerts) return { skip: 'auto_close_alerts is off: nothing sent' };
    if (event.dedupKey === null) return { skip: 'no incident key: nothing to close' };
    const note =
      event.durationSeconds === null
        ? `${oneLine(event.monitor.name)} is UP again.`
        : `${oneLine(event.monitor.name)} is UP again after ${humanDuration(event.durationSeconds)}.`;
    return {
      send: {
        path: `/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`,
        body: { source: SOURCE, note: truncate(note, OPSGENIE_LIMITS.note) },
      },
    };
  }
  const priorities: readonly string[] = DETAIL_LIMITS.alertPriorities;
  const body: OpsgenieCreate = {
    message: truncate(message(event), OPSGENIE_LIMITS.message),
    alias,
    description: truncate(description(event), OPSGENIE_LIMITS.description),
    responders: details.responders.map((r) => ({ type: r.type, id: r.id })),
    tags: tags(details.tags, event),
    details: alertDetails(event),
    entity: truncate(oneLine(event.monitor.host) || SOURCE, OPSGENIE_LIMITS.entity),
    priority: priorities.includes(details.priority) ? details.priority : 'P3',
    source: SOURCE,
  };
  return { send: { path: '/v2/alerts', body } };
}

/**
 * 2xx ok; 401, 402, 403, 404 → disable (bad key, disabled integration, plan, wrong region);
 * 400, 415, 422 → bug; 429, 500, 503 and other 5xx → retry (Retry-After honoured); the rest by
 * the default of §2.
 */
export function classifyOpsgenie(response: HttpResponse, now: number, action: 'create' | 'close'): DeliveryOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return { class: 'ok', status, detail: `HTTP ${status}: ${action} accepted` };
  switch (status) {
    case 401:
      return { class: 'disable', status, detail: 'HTTP 401: Opsgenie refused the API key' };
    case 402:
      return { class: 'disable', status, detail: "HTTP 402: the Opsgenie plan doesn't include this" };
    case 403:
      return { class: 'disable', status, detail: 'HTTP 403: the API key may not create or close alerts' };
    case 404:
      return { class: 'disable', status, detail: 'HTTP 404: not found (wrong region? check eu_instance)' };
    case 400:
    case 415:
    case 422:
      return { class: 'bug', status, detail: `HTTP ${status}: Opsgenie refused the ${action} request` };
    default:
      return httpOutcome(defaultClass(status), response, now);
  }
}

function message(event: NotificationEvent): string {
  const name = oneLine(event.monitor.name);
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      return `${downWord(event.event)}: ${name}${event.error ? `, ${oneLine(event.error)}` : ''}`;
    case 'monitor.up':
      return `UP: ${name}`;
    case 'certificate.expiring':
      return `TLS certificate ${expiry(event)}: ${name}`;
    case 'contact.test':
      return 'Test alert from Picket';
  }
}

function description(event: NotificationEvent): string {
  if (event.event === 'contact.test') {
    return 'This is a test alert sent from Picket. Close it by hand: Picket never closes tests.';
  }
  const lines: string[] = [];
  if (isDownEvent(event.event)) {
    const down = event.regions.filter((r) => r.status === 'down').length;
    lines.push(`${event.monitor.name} is DOWN${event.error ? `: ${event.error}` : ''}.`);
    if (event.regions.length > 0) lines.push(`Failing in ${down} of ${event.regions.length} regions.`);
  } else if (event.event === 'certificate.expiring') {
    lines.push(`The TLS certificate of ${event.monitor.name} ${expiry(event)}.`);
  }
  lines.push('', `Target: ${safeTarget(event.monitor.target)}`);
  for (const r of event.regions) lines.push(`- ${r.region}: ${r.status}${r.error ? ` (${r.error})` : ''}`);
  if (event.startedAt !== null) lines.push('', `Since ${isoUtc(event.startedAt)}`);
  if (event.link !== null) lines.push('', event.link);
  return lines.join('\n');
}

/** The contact's tags first (they are its configuration), then Picket's, ≤ 20 × ≤ 50. */
function tags(configured: string[], event: NotificationEvent): string[] {
  const kind = isDownEvent(event.event) ? 'down' : event.event === 'certificate.expiring' ? 'certificate' : 'test';
  const out: string[] = [];
  for (const tag of [...configured, 'picket', kind]) {
    const clean = truncate(oneLine(tag), OPSGENIE_LIMITS.tag);
    if (clean !== '' && !out.includes(clean)) out.push(clean);
  }
  return out.slice(0, OPSGENIE_LIMITS.tags);
}

/** A string map, each value ≤ 1000 and everything together ≤ 8000 characters. */
function alertDetails(event: NotificationEvent): Record<string, string> {
  const entries: [string, string | null][] = [
    ['event', event.event],
    ['severity', event.severity],
  ];
  if (event.event !== 'contact.test') {
    entries.push(
      ['monitor_id', event.monitor.id],
      ['monitor', event.monitor.name],
      ['target', event.monitor.target],
      ['error', event.error],
      ['incident_id', event.incidentId],
      ['started_at', event.startedAt === null ? null : isoUtc(event.startedAt)],
      ['certificate_expires_at', event.certificateExpiresAt === null ? null : isoUtc(event.certificateExpiresAt)],
      ['regions', event.regions.map((r) => `${r.region}: ${r.status}${r.error ? ` (${r.error})` : ''}`).join('; ')],
      ['link', event.link],
    );
  }
  const out: Record<string, string> = {};
  let budget = OPSGENIE_LIMITS.details;
  for (const [key, raw] of entries) {
    if (raw === null || raw === '') continue;
    const room = Math.min(OPSGENIE_LIMITS.detailValue, budget - key.length);
    if (room < 2) break;
    const value = truncate(raw, room);
    out[key] = value;
    budget -= key.length + value.length;
  }
  return out;
}
