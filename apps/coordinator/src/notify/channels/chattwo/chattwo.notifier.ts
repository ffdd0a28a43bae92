import { httpOutcome, networkOutcome } from '../../classify.js';
import type { HttpResponse } from '../../http-sender.js';
import { inDays, regionLines, safeTarget, utcMinute } from '../../message-parts.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import { escapeMarkdown, headline, humanDuration, isoUtc, oneLine, truncate } from '../../text.js';

/**
 * `chattwo`: a Discord webhook (docs/decisions/0011-notification-channels.md §8). One message
 * with a short `content` line and one embed; `allowed_mentions: {parse: []}` always, so a
 * monitor named `@everyone` pings nobody. Posted with `?wait=true`: Discord answers 200 with the
 * message, whose id is kept as `ref` for an optional later edit.
 */

/** Discord's message and embed limits (§8), in characters (code points). */
export const DISCORD_LIMITS = {
  content: 2000,
  embedTitle: 256,
  embedDescription: 4096,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footerText: 2048,
  /** Across all embeds of the message: title, description, field names and values, footer, author. */
  embedTotal: 6000,
} as const;

export const DISCORD_COLORS = {
  down: 0xed4245,
  up: 0x57f287,
  certificate: 0xfee75c,
  test: 0x5865f2,
} as const;

const NAME_MAX = 100;
const CAUSE_MAX = 1000;

export interface DiscordEmbed {
  title: string;
  url?: string;
  description: string;
  color: number;
  timestamp: string;
  fields: { name: string; value: string; inline?: boolean }[];
  footer: { text: string };
}
export interface DiscordMessage {
  username: 'Picket';
  content: string;
  allowed_mentions: { parse: [] };
  embeds: [DiscordEmbed];
}

/** Markdown-escaped (mentions and formatting neutralised) within `max` code points; cuts the raw text. */
function markdown(raw: string, max: number): string {
  const whole = escapeMarkdown(raw);
  if (Array.from(whole).length <= max) return whole;
  let out = '';
  let used = 0;
  for (const point of raw) {
    const piece = escapeMarkdown(point);
    if (used + piece.length > max - 1) break;
    out += piece;
    used += piece.length;
  }
  return `${out}…`;
}

/** Discord renders `<t:…:f>` in each reader's own time zone. */
function discordTime(seconds: number): string {
  return `<t:${Math.floor(seconds)}:f>`;
}

function isHttpUrl(value: string | null): value is string {
  if (value === null || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function discordMessage(event: NotificationEvent): DiscordMessage {
  const name = truncate(oneLine(event.monitor.name), NAME_MAX);
  const title = truncate(headline({ event: event.event, monitor: { name } }), DISCORD_LIMITS.embedTitle);
  const cause = truncate(oneLine(event.error ?? 'no cause recorded'), CAUSE_MAX);
  const target = safeTarget(event.monitor.target);
  const fields: DiscordEmbed['fields'] = [];
  const field = (label: string, value: string, inline = true) => {
    fields.push({ name: label, value: value || '—', inline });
  };
  const targetField = () => {
    if (target) field('Target', markdown(target, DISCORD_LIMITS.fieldValue), false);
  };
  let description: string;
  let color: number;
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      color = DISCORD_COLORS.down;
      description = markdown(cause, DISCORD_LIMITS.embedDescription);
      field('Since', discordTime(event.startedAt ?? event.timestamp));
      targetField();
      if (event.regions.length) {
        field('Regions', markdown(regionLines(event).join('\n'), DISCORD_LIMITS.fieldValue), false);
      }
      break;
    case 'monitor.up':
      color = DISCORD_COLORS.up;
      description =
        event.durationSeconds === null
          ? 'The monitor is up again.'
          : `Down for ${humanDuration(event.durationSeconds)}.`;
      if (event.startedAt !== null) field('Down since', discordTime(event.startedAt));
      field('Up since', discordTime(event.timestamp));
      targetField();
      break;
    case 'certificate.expiring': {
      color = DISCORD_COLORS.certificate;
      const expires = event.certificateExpiresAt;
      description =
        expires === null
          ? 'The TLS certificate expires soon.'
          : `The TLS certificate expires on ${utcMinute(expires)} (${inDays(expires - event.timestamp)}).`;
      if (expires !== null) field('Expires', discordTime(expires));
      field('Monitor status', event.status.toUpperCase());
      targetField();
      break;
    }
    case 'contact.test':
      color = DISCORD_COLORS.test;
      description = 'This is a test notification from Picket. If you can read it, this Discord webhook works.';
      break;
  }
  const embed: DiscordEmbed = {
    title,
    description,
    color,
    timestamp: isoUtc(event.timestamp),
    fields: fields.slice(0, DISCORD_LIMITS.embedFields),
    footer: { text: 'Picket' },
  };
  if (isHttpUrl(event.link) && event.event !== 'contact.test') embed.url = event.link;
  return {
    username: 'Picket',
    content: markdown(title, DISCORD_LIMITS.content),
    allowed_mentions: { parse: [] },
    embeds: [embed],
  };
}

/** `<webhook_url>` with `wait=true` set, keeping any query it already has (`thread_id`). */
export function waitUrl(webhookUrl: string): string {
  const url = new URL(webhookUrl);
  url.searchParams.set('wait', 'true');
  return url.toString();
}

function parseJson(body: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * The classes of §8: 2xx ok (200 with the message for `wait=true`, its id kept as `ref`; 204);
 * 429 retry with the body's `retry_after` (float seconds), else `Retry-After`; 408, 5xx and 3xx
 * retry; 401, 403, 404 disable (dead token, lost permission, deleted webhook); 400 and any other
 * 4xx bug. The detail names Discord's numeric error code, never its message.
 */
export function classifyDiscord(response: HttpResponse, now: number): DeliveryOutcome {
  const { status } = response;
  const json = parseJson(response.body);
  if (status >= 200 && status < 300) {
    const outcome = httpOutcome('ok', response, now);
    const id = json?.id;
    if (typeof id === 'string' && /^\d{1,25}$/.test(id)) outcome.ref = id;
    return outcome;
  }
  const code = json && typeof json.code === 'number' && Number.isSafeInteger(json.code) ? json.code : null;
  const detail = code === null ? `HTTP ${status}` : `HTTP ${status} (Discord code ${code})`;
  if (status === 429) {
    const outcome = httpOutcome('retry', response, now, `HTTP 429${json?.global === true ? ' (global)' : ''}`);
    const after = json?.retry_after;
    if (typeof after === 'number' && Number.isFinite(after) && after >= 0)
      outcome.retryAfterMs = Math.ceil(after * 1000);
    return outcome;
  }
  if (status === 401 || status === 403 || status === 404) return httpOutcome('disable', response, now, detail);
  if (status >= 300 && status < 400) {
    return httpOutcome('retry', response, now, `HTTP ${status}: redirects are not followed`);
  }
  if (status >= 500 || status === 408) return httpOutcome('retry', response, now, detail);
  return httpOutcome('bug', response, now, detail);
}

export function createChattwoNotifier(deps: NotifierDeps): Notifier<'chattwo'> {
  return {
    async deliver(details, event, context) {
      let url: string;
      try {
        url = waitUrl(details.webhook_url);
      } catch {
        return { class: 'bug', status: null, detail: 'the stored webhook URL is not a URL' };
      }
      const body = JSON.stringify(discordMessage(event));
      let response: HttpResponse;
      try {
        response = await deps.http.send(
          { method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
          context.signal,
        );
      } catch (error) {
        return networkOutcome(error);
      }
      return classifyDiscord(response, context.now());
    },
  };
}
