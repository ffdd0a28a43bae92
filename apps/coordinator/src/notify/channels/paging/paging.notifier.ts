import { DEFAULT_SEVERITY_MAPPING, DETAIL_LIMITS, type ChannelDetails } from '../../../contacts/channels.js';
import { defaultClass, httpOutcome, networkOutcome, retryAfterMs } from '../../classify.js';
import type { HttpResponse } from '../../http-sender.js';
import { expiry } from '../../message-parts.js';
import type { NotificationEvent, SeverityLevel } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import { headline, humanDuration, isoUtc, oneLine, truncate } from '../../text.js';

/**
 * `paging`: PagerDuty Events API v2 (docs/decisions/0011-notification-channels.md §10).
 *
 * - monitor.down, certificate.expiring and contact.test send `event_action: trigger` with
 *   `dedup_key` = the event's incident key; a retried trigger only adds to the open alert.
 * - monitor.up sends `event_action: resolve` with the same routing and dedup key, and only
 *   when the contact's `auto_resolve_incidents` is true; otherwise nothing is sent (ok).
 * - contact.test has no incident key: it triggers `test-<event id>` at the contact's `low`
 *   severity and is never resolved by Picket (the user resolves the test alert in PagerDuty).
 * - Certificate warnings keep their own key (`<monitor>-cert-<expires_at>`) and stay open
 *   until someone resolves them.
 *
 * No auth header: the routing key in the body is the credential.
 */

export type PagerDutySeverity = (typeof DETAIL_LIMITS.severityLevels)[number];

export const PAGERDUTY_LIMITS = { summary: 1024, dedupKey: 255, source: 255 } as const;

/** PagerDuty documents no Retry-After on 429: back off at least this long. */
export const PAGERDUTY_MIN_BACKOFF_MS = 30_000;

export interface PagerDutyTrigger {
  routing_key: string;
  event_action: 'trigger';
  dedup_key: string;
  payload: {
    summary: string;
    source: string;
    severity: PagerDutySeverity;
    timestamp: string;
    class: string;
    custom_details: Record<string, unknown>;
  };
  client: string;
  client_url?: string;
  links?: { href: string; text: string }[];
}

export interface PagerDutyResolve {
  routing_key: string;
  event_action: 'resolve';
  dedup_key: string;
}

export type PagerDutyEvent = PagerDutyTrigger | PagerDutyResolve;

/** What to send for an event, or why nothing is sent. */
export type PagerDutyPlan = { send: PagerDutyEvent } | { skip: string };

export function createPagingNotifier(deps: NotifierDeps): Notifier<'paging'> {
  return {
    async deliver(details, event, context) {
      const plan = pagerDutyPlan(details, event);
      if ('skip' in plan) return { class: 'ok', status: null, detail: plan.skip };
      let response: HttpResponse;
      try {
        response = await deps.http.send(
          {
            method: 'POST',
            url: deps.endpoints.pagerDutyEventsUrl,
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body: JSON.stringify(plan.send),
          },
          context.signal,
        );
      } catch (error) {
        return networkOutcome(error);
      }
      return classifyPagerDuty(response, context.now(), plan.send.event_action);
    },
  };
}

/** The Events API v2 body for an event (pure; exported for tests). */
export function pagerDutyPlan(details: ChannelDetails['paging'], event: NotificationEvent): PagerDutyPlan {
  const routingKey = details.integration_key;
  if (event.event === 'monitor.up') {
    if (!details.auto_resolve_incidents) return { skip: 'auto_resolve_incidents is off: nothing sent' };
    if (event.dedupKey === null) return { skip: 'no incident key: nothing to resolve' };
    return { send: { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey(event) } };
  }
  const trigger: PagerDutyTrigger = {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey(event),
    payload: {
      summary: truncate(summary(event), PAGERDUTY_LIMITS.summary),
      source: truncate(oneLine(event.monitor.host) || 'picket', PAGERDUTY_LIMITS.source),
      severity: severityOf(details.severity_mapping, event.severity),
      timestamp: isoUtc(event.timestamp),
      class: eventClass(event),
      custom_details: customDetails(event),
    },
    client: 'Picket',
  };
  if (event.link !== null) {
    trigger.client_url = event.link;
    trigger.links = [{ href: event.link, text: 'Open in Picket' }];
  }
  return { send: trigger };
}

/**
 * 202 ok; 400 whose `errors` name the routing key → disable (the integration key is dead);
 * any other 400 → bug; 429 → retry, at least 30 s later; 5xx → retry; the rest by the default of §2.
 */
export function classifyPagerDuty(response: HttpResponse, now: number, action: string): DeliveryOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return { class: 'ok', status, detail: `HTTP ${status}: ${action} accepted` };
  if (status === 400) {
    return errorEntries(response.body).some((entry) => /routing[ _]?key/i.test(entry))
      ? { class: 'disable', status, detail: 'HTTP 400: PagerDuty refused the integration key' }
      : { class: 'bug', status, detail: 'HTTP 400: PagerDuty refused the event as invalid' };
  }
  if (status === 429) {
    const hint = retryAfterMs(response.headers['retry-after'], now) ?? 0;
    return {
      class: 'retry',
      status,
      detail: 'HTTP 429: rate limited by PagerDuty',
      retryAfterMs: Math.max(PAGERDUTY_MIN_BACKOFF_MS, hint),
    };
  }
  return httpOutcome(defaultClass(status), response, now);
}

function dedupKey(event: NotificationEvent): string {
  return truncate(event.dedupKey ?? `test-${event.id}`, PAGERDUTY_LIMITS.dedupKey);
}

function severityOf(mapping: Record<string, string>, level: SeverityLevel): PagerDutySeverity {
  const levels: readonly string[] = DETAIL_LIMITS.severityLevels;
  const mapped = mapping[level];
  if (mapped !== undefined && levels.includes(mapped)) return mapped as PagerDutySeverity;
  return DEFAULT_SEVERITY_MAPPING[level] as PagerDutySeverity;
}

function summary(event: NotificationEvent): string {
  const name = oneLine(event.monitor.name);
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      return `${headline({ event: event.event, monitor: { name } })}${event.error ? `: ${oneLine(event.error)}` : ''}`;
    case 'monitor.up':
      return event.durationSeconds === null
        ? `${name} is UP again`
        : `${name} is UP again after ${humanDuration(event.durationSeconds)}`;
    case 'certificate.expiring':
      return `${name}: TLS certificate ${expiry(event)}`;
    case 'contact.test':
      return 'Test notification from Picket: this contact receives PagerDuty alerts';
  }
}

function eventClass(event: NotificationEvent): string {
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      return 'monitor down';
    case 'monitor.up':
      return 'monitor up';
    case 'certificate.expiring':
      return 'certificate expiring';
    case 'contact.test':
      return 'test';
  }
}

function customDetails(event: NotificationEvent): Record<string, unknown> {
  if (event.event === 'contact.test') {
    return { message: 'Sent by "Test" in Picket. Resolve this alert by hand; Picket never resolves tests.' };
  }
  const out: Record<string, unknown> = {
    monitor: event.monitor.name,
    monitor_id: event.monitor.id,
    target: event.monitor.target,
  };
  if (event.error !== null) out.error = event.error;
  if (event.regions.length > 0) {
    out.regions = event.regions.map((r) => ({ region: r.region, status: r.status, error: r.error }));
  }
  if (event.incidentId !== null) out.incident_id = event.incidentId;
  if (event.startedAt !== null) out.started_at = isoUtc(event.startedAt);
  if (event.certificateExpiresAt !== null) out.certificate_expires_at = isoUtc(event.certificateExpiresAt);
  if (event.link !== null) out.link = event.link;
  return out;
}

function errorEntries(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null && 'errors' in parsed && Array.isArray(parsed.errors)) {
      return parsed.errors.map((e: unknown) => (typeof e === 'string' ? e : JSON.stringify(e)));
    }
  } catch {
    // a non-JSON 400 names nothing
  }
  return [];
}
