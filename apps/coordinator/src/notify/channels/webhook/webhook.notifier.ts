import { httpOutcome, networkOutcome } from '../../classify.js';
import type { HttpResponse } from '../../http-sender.js';
import { TEST_MONITOR_ID, type NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import { isDownEvent, truncate } from '../../text.js';
import { signWebhook, WebhookSecretError } from './webhook-signature.js';

/**
 * `webhook`: Picket's own JSON contract, signed with Standard Webhooks when the contact has a
 * secret (docs/decisions/0011-notification-channels.md §5).
 */

export const WEBHOOK_LIMITS = {
  /** The whole body stays under 20 KB (20,000 bytes, whichever way a receiver counts a KB). */
  bodyBytes: 20_000,
  /** Code points; the API already caps monitor names at 100. */
  monitorName: 100,
  /** Code points of the cause; probe errors are far shorter (300). */
  error: 1_000,
} as const;

/** The body of §5, keys in the contract's order. */
export interface WebhookPayload {
  event: NotificationEvent['event'];
  incident_id: string | null;
  monitor_id: string;
  monitor_name: string;
  monitor_settings: object;
  timestamp: number;
  status: 'up' | 'down';
  error: string | null;
  certificate_expires_at?: number | null;
}

/** `msg_<outbox row id>`: identical on every retry, never contains ".". */
export function webhookId(event: NotificationEvent): string {
  return `msg_${event.id}`;
}

export function webhookPayload(event: NotificationEvent): WebhookPayload {
  const test = event.event === 'contact.test';
  const outage = isDownEvent(event.event) || event.event === 'monitor.up';
  const status = test ? 'up' : event.status;
  const payload: WebhookPayload = {
    event: event.event,
    incident_id: outage ? event.incidentId : null,
    monitor_id: test ? TEST_MONITOR_ID : event.monitor.id,
    monitor_name: truncate(event.monitor.name, WEBHOOK_LIMITS.monitorName),
    monitor_settings: event.monitor.settings,
    timestamp: event.timestamp,
    status,
    error: status === 'down' && event.error !== null ? truncate(event.error, WEBHOOK_LIMITS.error) : null,
  };
  if (event.event === 'certificate.expiring') payload.certificate_expires_at = event.certificateExpiresAt;
  return payload;
}

/**
 * The exact JSON sent, under `WEBHOOK_LIMITS.bodyBytes`. Monitor settings can hold long
 * request bodies and headers (64 KiB): when the body would be too large, the longest strings
 * inside the settings are cut (with "…") until it fits; the contract's own fields stay whole.
 */
export function webhookBody(event: NotificationEvent): string {
  const payload = webhookPayload(event);
  let body = JSON.stringify(payload);
  for (const max of [4096, 1024, 256, 64, 16]) {
    if (Buffer.byteLength(body, 'utf8') < WEBHOOK_LIMITS.bodyBytes) return body;
    body = JSON.stringify({ ...payload, monitor_settings: cutStrings(payload.monitor_settings, max) as object });
  }
  if (Buffer.byteLength(body, 'utf8') < WEBHOOK_LIMITS.bodyBytes) return body;
  return JSON.stringify({ ...payload, monitor_settings: {} });
}

/** A copy of a JSON value with every string cut to `max` code points. */
function cutStrings(value: unknown, max: number): unknown {
  if (typeof value === 'string') return truncate(value, max);
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, max));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item, max)]));
  }
  return value;
}

/** The classes of §5: 2xx ok; 410 disable; 413 bug; everything else (3xx, 408, 429, 5xx, other 4xx) retry. */
export function classifyWebhook(response: HttpResponse, now: number): DeliveryOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return httpOutcome('ok', response, now);
  if (status === 410) return httpOutcome('disable', response, now, 'HTTP 410: the receiver says this endpoint is gone');
  if (status === 413) return httpOutcome('bug', response, now, 'HTTP 413: the receiver refused the body as too large');
  if (status >= 300 && status < 400) {
    return httpOutcome('retry', response, now, `HTTP ${status}: redirects are not followed`);
  }
  return httpOutcome('retry', response, now);
}

export function createWebhookNotifier(deps: NotifierDeps): Notifier<'webhook'> {
  return {
    async deliver(details, event, context) {
      const body = Buffer.from(webhookBody(event), 'utf8');
      const id = webhookId(event);
      const timestamp = Math.floor(context.now() / 1000);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
      };
      if (details.secret) {
        try {
          headers['webhook-signature'] = signWebhook(details.secret, id, timestamp, body);
        } catch (error) {
          if (error instanceof WebhookSecretError) return { class: 'bug', status: null, detail: error.message };
          throw error;
        }
      }
      let response: HttpResponse;
      try {
        response = await deps.http.send({ method: 'POST', url: details.url, headers, body }, context.signal);
      } catch (error) {
        return networkOutcome(error);
      }
      return classifyWebhook(response, context.now());
    },
  };
}
