import type { ChannelDetails } from '../../../contacts/channels.js';
import { defaultClass, httpOutcome, networkOutcome, retryAfterMs } from '../../classify.js';
import type { HttpResponse } from '../../http-sender.js';
import { expiry, safeTarget } from '../../message-parts.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import { escapeMarkdown, headline, humanDuration, isoUtc, oneLine, truncate } from '../../text.js';

/**
 * `incidentmgmt`: an incident.io HTTP alert source (docs/decisions/0011-notification-channels.md §11).
 *
 * - monitor.down, certificate.expiring and contact.test send `status: firing` with
 *   `deduplication_key` = the event's incident key (contact.test: `test-<event id>`, left for
 *   the user to resolve, like the paging channel).
 * - monitor.up sends `status: resolved` with the same key, only when `auto_resolve_incidents`
 *   is true; otherwise nothing is sent (ok).
 *
 * The token travels in `Authorization: Bearer …`, never as `?token=` (URLs end up in logs).
 * incident.io publishes no length limits: the title is one line of at most 255 code points,
 * the description at most 4 KB of escaped Markdown.
 */

export const INCIDENTIO_LIMITS = { title: 255, description: 4096, dedupKey: 255 } as const;

export interface IncidentIoAlertEvent {
  title: string;
  status: 'firing' | 'resolved';
  deduplication_key: string;
  description: string;
  metadata: Record<string, unknown>;
  source_url?: string;
}

export type IncidentIoPlan = { send: IncidentIoAlertEvent } | { skip: string };

export function createIncidentmgmtNotifier(deps: NotifierDeps): Notifier<'incidentmgmt'> {
  return {
    async deliver(details, event, context) {
      if (!isHttpsUrl(details.webhook_url)) {
        return { class: 'disable', status: null, detail: 'webhook_url is not an https:// URL' };
      }
      const plan = incidentIoPlan(details, event);
      if ('skip' in plan) return { class: 'ok', status: null, detail: plan.skip };
      let response: HttpResponse;
      try {
        response = await deps.http.send(
          {
            method: 'POST',
            url: details.webhook_url,
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              authorization: `Bearer ${details.bearer_token}`,
            },
            body: JSON.stringify(plan.send),
          },
          context.signal,
        );
      } catch (error) {
        return networkOutcome(error);
      }
      return classifyIncidentIo(response, context.now(), plan.send.status);
    },
  };
}

/** The alert event for a Picket event (pure; exported for tests). */
export function incidentIoPlan(details: ChannelDetails['incidentmgmt'], event: NotificationEvent): IncidentIoPlan {
  if (event.event === 'monitor.up') {
    if (!details.auto_resolve_incidents) return { skip: 'auto_resolve_incidents is off: nothing sent' };
    if (event.dedupKey === null) return { skip: 'no incident key: nothing to resolve' };
  }
  const body: IncidentIoAlertEvent = {
    title: truncate(title(event), INCIDENTIO_LIMITS.title),
    status: event.event === 'monitor.up' ? 'resolved' : 'firing',
    deduplication_key: truncate(event.dedupKey ?? `test-${event.id}`, INCIDENTIO_LIMITS.dedupKey),
    description: truncate(description(event), INCIDENTIO_LIMITS.description),
    metadata: metadata(event),
  };
  if (event.link !== null) body.source_url = event.link;
  return { send: body };
}

/**
 * 2xx ok; 429 → retry at `rate_limit.retry_after` (body, HTTP-date) or Retry-After; 5xx → retry;
 * 401, 403, 404 → disable (token or alert source gone); 400, 422 → bug; the rest by the default of §2.
 */
export function classifyIncidentIo(response: HttpResponse, now: number, status: string): DeliveryOutcome {
  const code = response.status;
  const answer = parseError(response.body);
  if (code >= 200 && code < 300) return { class: 'ok', status: code, detail: `HTTP ${code}: ${status} event accepted` };
  if (code === 429) {
    const outcome: DeliveryOutcome = { class: 'retry', status: code, detail: 'HTTP 429: rate limited by incident.io' };
    const hint = retryAfterMs(answer.retryAfter, now) ?? retryAfterMs(response.headers['retry-after'], now);
    if (hint !== undefined) outcome.retryAfterMs = hint;
    return outcome;
  }
  if (code === 401 || code === 403) {
    return { class: 'disable', status: code, detail: `HTTP ${code}: incident.io refused the bearer token` };
  }
  if (code === 404) return { class: 'disable', status: code, detail: 'HTTP 404: no such alert source' };
  if (code === 400 || code === 422) {
    return { class: 'bug', status: code, detail: `HTTP ${code}${answer.code ? ` ${answer.code}` : ''}: event refused` };
  }
  return httpOutcome(defaultClass(code), response, now);
}

function title(event: NotificationEvent): string {
  const name = oneLine(event.monitor.name);
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      return headline({ event: event.event, monitor: { name } });
    case 'monitor.up':
      return `${name} is UP again`;
    case 'certificate.expiring':
      return `${name}: TLS certificate ${expiry(event)}`;
    case 'contact.test':
      return 'Test alert from Picket';
  }
}

function description(event: NotificationEvent): string {
  const lines: string[] = [];
  const md = (text: string) => escapeMarkdown(oneLine(text));
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder': {
      const down = event.regions.filter((r) => r.status === 'down').length;
      const cause = event.error ? md(event.error) : 'Checks failed';
      lines.push(event.regions.length > 0 ? `${cause} from **${down}/${event.regions.length}** regions` : `${cause}`);
      break;
    }
    case 'monitor.up':
      lines.push(
        event.durationSeconds === null ? 'Recovered.' : `Recovered after **${humanDuration(event.durationSeconds)}**.`,
      );
      break;
    case 'certificate.expiring':
      lines.push(`The TLS certificate ${expiry(event)}. Renew it before clients refuse it.`);
      break;
    case 'contact.test':
      lines.push('This is a test alert sent from Picket. Resolve it by hand: Picket never resolves tests.');
      return lines.join('\n');
  }
  lines.push('', `**Target:** ${md(safeTarget(event.monitor.target))}`);
  if (event.regions.length > 0) {
    lines.push('');
    for (const r of event.regions) {
      lines.push(`- **${md(r.region)}**: ${md(r.status)}${r.error ? `, ${md(r.error)}` : ''}`);
    }
  }
  if (event.link !== null) lines.push('', `[Open in Picket](${event.link.replace(/[()\s]/g, encodeURIComponent)})`);
  return lines.join('\n');
}

function metadata(event: NotificationEvent): Record<string, unknown> {
  const out: Record<string, unknown> = { source: 'picket', event: event.event, severity: event.severity };
  if (event.event === 'contact.test') return out;
  Object.assign(out, {
    monitor_id: event.monitor.id,
    monitor_name: event.monitor.name,
    target: event.monitor.target,
    host: event.monitor.host,
  });
  if (event.error !== null) out.error = event.error;
  if (event.regions.length > 0) out.regions = event.regions.map((r) => ({ ...r }));
  if (event.incidentId !== null) out.incident_id = event.incidentId;
  if (event.startedAt !== null) out.started_at = isoUtc(event.startedAt);
  if (event.durationSeconds !== null) out.duration_seconds = event.durationSeconds;
  if (event.certificateExpiresAt !== null) out.certificate_expires_at = isoUtc(event.certificateExpiresAt);
  return out;
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/** The error code and rate-limit hint of an incident.io error body; nothing else is kept. */
function parseError(body: string): { code?: string; retryAfter?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const out: { code?: string; retryAfter?: string } = {};
  const { errors, rate_limit: rateLimit } = parsed as { errors?: unknown; rate_limit?: unknown };
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
  const { type } = parsed as { type?: unknown };
  const code = typeof type === 'string' ? type : (first as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^[a-z0-9_]{1,40}$/.test(code)) out.code = code;
  const retryAfter =
    typeof rateLimit === 'object' && rateLimit !== null
      ? (rateLimit as { retry_after?: unknown }).retry_after
      : undefined;
  if (typeof retryAfter === 'string') out.retryAfter = retryAfter;
  return out;
}
