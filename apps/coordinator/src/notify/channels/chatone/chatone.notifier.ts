import { httpOutcome, networkOutcome } from '../../classify.js';
import type { HttpResponse } from '../../http-sender.js';
import { inDays, regionLines, safeTarget, utcMinute } from '../../message-parts.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import { downWord, escapeSlack, headline, humanDuration, oneLine, truncate } from '../../text.js';

/**
 * `chatone`: a Slack incoming webhook (and the Slack-compatible ones: Mattermost, Rocket.Chat,
 * Zulip), docs/decisions/0011-notification-channels.md §7. `text` is always sent (notification
 * and fallback text), with Block Kit `blocks`: a header, a section of fields, and a link button.
 */

/** Slack's Block Kit limits (§7), counted in characters (code points). */
export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  buttonText: 75,
  url: 3000,
  /** Slack cuts `text` at 40,000; stay far below. */
  text: 3000,
} as const;

const NAME_MAX = 100;
const CAUSE_MAX = 500;

export interface SlackText {
  type: 'plain_text' | 'mrkdwn';
  text: string;
  emoji?: boolean;
}
export type SlackBlock =
  | { type: 'header'; text: SlackText }
  | { type: 'section'; text?: SlackText; fields?: SlackText[] }
  | {
      type: 'actions';
      elements: { type: 'button'; text: SlackText; url: string; action_id: string }[];
    };
export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

/** Escapes for mrkdwn and keeps the result within `max` code points, cutting the raw text, never an entity. */
function mrkdwn(raw: string, max: number): string {
  const whole = escapeSlack(raw);
  if (Array.from(whole).length <= max) return whole;
  let out = '';
  let used = 0;
  for (const point of raw) {
    const piece = escapeSlack(point);
    if (used + piece.length > max - 1) break;
    out += piece;
    used += piece.length;
  }
  return `${out}…`;
}

function field(label: string, raw: string): SlackText {
  const prefix = `*${label}*\n`;
  return { type: 'mrkdwn', text: prefix + mrkdwn(raw, SLACK_LIMITS.fieldText - prefix.length) };
}

function isHttpUrl(value: string | null): value is string {
  if (value === null || Array.from(value).length > SLACK_LIMITS.url) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function slackMessage(event: NotificationEvent): SlackMessage {
  const name = truncate(oneLine(event.monitor.name), NAME_MAX);
  const cause = truncate(oneLine(event.error ?? 'no cause recorded'), CAUSE_MAX);
  const target = safeTarget(event.monitor.target);
  const fields: SlackText[] = [];
  let text: string;
  let summary: string | null = null;
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      text = `${downWord(event.event)}: ${name}, ${cause}`;
      fields.push(field('Cause', cause), field('Since', utcMinute(event.startedAt ?? event.timestamp)));
      if (target) fields.push(field('Target', target));
      if (event.regions.length) fields.push(field('Regions', regionLines(event).join('\n')));
      break;
    case 'monitor.up': {
      const duration = event.durationSeconds === null ? null : humanDuration(event.durationSeconds);
      text = duration === null ? `UP: ${name}` : `UP: ${name}, down for ${duration}`;
      if (duration !== null) fields.push(field('Down for', duration));
      fields.push(field('Up since', utcMinute(event.timestamp)));
      if (target) fields.push(field('Target', target));
      break;
    }
    case 'certificate.expiring': {
      const expires = event.certificateExpiresAt;
      const when = expires === null ? 'soon' : `on ${utcMinute(expires)}`;
      text = `CERTIFICATE: ${name}, the TLS certificate expires ${when}`;
      if (expires !== null) {
        fields.push(field('Certificate expires', `${utcMinute(expires)} (${inDays(expires - event.timestamp)})`));
      }
      if (target) fields.push(field('Target', target));
      fields.push(field('Monitor status', event.status.toUpperCase()));
      break;
    }
    case 'contact.test':
      text = 'Test notification from Picket';
      summary = 'This is a test notification from Picket. If you can read it, this Slack webhook works.';
      break;
  }
  const blocks: SlackBlock[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: truncate(headline({ event: event.event, monitor: { name } }), SLACK_LIMITS.headerText),
        emoji: true,
      },
    },
  ];
  const section: SlackBlock = { type: 'section' };
  if (summary !== null) section.text = { type: 'mrkdwn', text: mrkdwn(summary, SLACK_LIMITS.sectionText) };
  if (fields.length) section.fields = fields.slice(0, SLACK_LIMITS.sectionFields);
  blocks.push(section);
  if (isHttpUrl(event.link) && event.event !== 'contact.test') {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Open in Picket', emoji: false },
          url: event.link,
          action_id: 'open-monitor',
        },
      ],
    });
  }
  return { text: mrkdwn(text, SLACK_LIMITS.text), blocks };
}

/** Slack's plain-text error codes (§7) that mean the hook or its channel is gone for good. */
const DISABLE_CODES: Readonly<Record<number, readonly string[]>> = {
  400: ['no_service_id'],
  403: ['invalid_token', 'action_prohibited', 'posting_to_general_channel_denied'],
  404: ['no_service', 'no_team', 'no_active_hooks', 'channel_not_found'],
  410: ['channel_is_archived', 'team_disabled'],
};
/** Codes for a body Slack refused: Picket built it wrong. */
const BUG_CODES = [
  'invalid_payload',
  'invalid_blocks',
  'invalid_blocks_format',
  'no_text',
  'missing_text_or_fallback_or_attachments',
  'too_many_attachments',
  'user_not_found',
];
const KNOWN_CODES = new Set([...Object.values(DISABLE_CODES).flat(), ...BUG_CODES]);

/**
 * The classes of §7, by status and Slack's plain-text code: 2xx ok (Slack answers 200 `ok`;
 * Slack-compatible servers answer 200 with their own bodies); 403/404/410 disable (the listed
 * codes, and any other body: the hook, its token or its channel is gone); 400 `no_service_id`
 * disable, other 400 bug; 408, 429 (Retry-After), 5xx and 3xx retry; other 4xx bug.
 */
export function classifySlack(response: HttpResponse, now: number): DeliveryOutcome {
  const { status } = response;
  const code = response.body.trim();
  const known = KNOWN_CODES.has(code) ? code : null;
  const detail = known ? `HTTP ${status} ${known}` : `HTTP ${status}`;
  if (status >= 200 && status < 300) return httpOutcome('ok', response, now);
  if (status === 403 || status === 404 || status === 410) return httpOutcome('disable', response, now, detail);
  if (status === 400) {
    return httpOutcome(DISABLE_CODES[400]!.includes(code) ? 'disable' : 'bug', response, now, detail);
  }
  if (status >= 300 && status < 400) {
    return httpOutcome('retry', response, now, `HTTP ${status}: redirects are not followed`);
  }
  if (status >= 500 || status === 408 || status === 429) return httpOutcome('retry', response, now, detail);
  return httpOutcome('bug', response, now, detail);
}

export function createChatoneNotifier(deps: NotifierDeps): Notifier<'chatone'> {
  return {
    async deliver(details, event, context) {
      const body = JSON.stringify(slackMessage(event));
      let response: HttpResponse;
      try {
        response = await deps.http.send(
          { method: 'POST', url: details.webhook_url, headers: { 'content-type': 'application/json' }, body },
          context.signal,
        );
      } catch (error) {
        return networkOutcome(error);
      }
      return classifySlack(response, context.now());
    },
  };
}
