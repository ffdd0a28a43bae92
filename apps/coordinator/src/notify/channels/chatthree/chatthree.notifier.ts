import { httpOutcome, networkOutcome } from '../../classify.js';
import type { HttpResponse } from '../../http-sender.js';
import { inDays, regionLines, safeTarget, utcMinute } from '../../message-parts.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryOutcome, Notifier } from '../../notifier.js';
import { headline, humanDuration, oneLine, truncate } from '../../text.js';

/**
 * `chatthree`: a Microsoft Teams Workflows webhook ("When a Teams webhook request is received")
 * carrying one Adaptive Card 1.4 (docs/decisions/0011-notification-channels.md §9). Workflows answer 202
 * and post later, so there is no message id and a broken card is invisible here: the card must be right.
 */

export const TEAMS_LIMITS = {
  /** Teams caps a message at roughly 28 KB; the whole body stays under 20,000 bytes. */
  bodyBytes: 20_000,
  name: 100,
  cause: 1000,
  /** A smaller cut used only when the full card would not fit. */
  compactCause: 200,
} as const;

export const ADAPTIVE_CARD_VERSION = '1.4';

export type CardElement =
  | {
      type: 'TextBlock';
      text: string;
      wrap: true;
      weight?: 'Bolder';
      size?: 'Medium';
      color?: 'Attention' | 'Good' | 'Warning' | 'Default';
      spacing?: 'Small';
    }
  | { type: 'FactSet'; facts: { title: string; value: string }[] };
export interface AdaptiveCard {
  type: 'AdaptiveCard';
  $schema: string;
  version: typeof ADAPTIVE_CARD_VERSION;
  body: CardElement[];
  actions?: { type: 'Action.OpenUrl'; title: string; url: string }[];
}
export interface TeamsMessage {
  type: 'message';
  attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive'; contentUrl: null; content: AdaptiveCard }];
}

/**
 * Adaptive Card TextBlocks render a Markdown subset (emphasis, links, lists): backslash-escape
 * the characters that start those, so untrusted text shows as written and links nothing.
 */
function cardText(raw: string): string {
  return oneLine(raw)
    .replace(/([\\*_[\]`~])/g, '\\$1')
    .replace(/^(\d+)\. /, '$1\\. ')
    .replace(/^([-+]) /, '\\$1 ');
}

function isHttpUrl(value: string | null): value is string {
  if (value === null) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** The card; `compact` (regions left out, shorter cause) when the full one would be too large. */
export function teamsCard(event: NotificationEvent, compact = false): AdaptiveCard {
  const name = truncate(oneLine(event.monitor.name), TEAMS_LIMITS.name);
  const cause = truncate(
    oneLine(event.error ?? 'no cause recorded'),
    compact ? TEAMS_LIMITS.compactCause : TEAMS_LIMITS.cause,
  );
  const target = safeTarget(event.monitor.target);
  const facts: { title: string; value: string }[] = [];
  const fact = (title: string, value: string) => {
    if (value) facts.push({ title, value: cardText(value) });
  };
  let color: 'Attention' | 'Good' | 'Warning' | 'Default';
  let summary: string;
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      color = 'Attention';
      summary = cause;
      fact('Since', utcMinute(event.startedAt ?? event.timestamp));
      fact('Target', target);
      if (!compact) fact('Regions', regionLines(event).join('; '));
      break;
    case 'monitor.up':
      color = 'Good';
      summary =
        event.durationSeconds === null
          ? 'The monitor is up again.'
          : `Down for ${humanDuration(event.durationSeconds)}.`;
      if (event.startedAt !== null) fact('Down since', utcMinute(event.startedAt));
      fact('Up since', utcMinute(event.timestamp));
      fact('Target', target);
      break;
    case 'certificate.expiring': {
      color = 'Warning';
      const expires = event.certificateExpiresAt;
      summary =
        expires === null
          ? 'The TLS certificate expires soon.'
          : `The TLS certificate expires on ${utcMinute(expires)} (${inDays(expires - event.timestamp)}).`;
      fact('Target', target);
      fact('Monitor status', event.status.toUpperCase());
      break;
    }
    case 'contact.test':
      color = 'Default';
      summary = 'This is a test notification from Picket. If you can read it, this Teams workflow works.';
      break;
  }
  const body: CardElement[] = [
    {
      type: 'TextBlock',
      text: cardText(headline({ event: event.event, monitor: { name } })),
      weight: 'Bolder',
      size: 'Medium',
      color,
      wrap: true,
    },
    { type: 'TextBlock', text: cardText(summary), wrap: true, spacing: 'Small' },
  ];
  if (facts.length) body.push({ type: 'FactSet', facts });
  const card: AdaptiveCard = {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: ADAPTIVE_CARD_VERSION,
    body,
  };
  if (isHttpUrl(event.link) && event.event !== 'contact.test') {
    card.actions = [{ type: 'Action.OpenUrl', title: 'Open in Picket', url: event.link }];
  }
  return card;
}

export function teamsMessage(card: AdaptiveCard): TeamsMessage {
  return {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
  };
}

/** The JSON sent: the full card, or the compact one when the full card is too large. */
export function teamsBody(event: NotificationEvent): string {
  const full = JSON.stringify(teamsMessage(teamsCard(event)));
  if (Buffer.byteLength(full, 'utf8') < TEAMS_LIMITS.bodyBytes) return full;
  return JSON.stringify(teamsMessage(teamsCard(event, true)));
}

/**
 * The classes of §9 (Logic Apps behaviour): 2xx ok (202); 408, 429 (Retry-After), 5xx and 3xx
 * retry; 401, 403, 404 disable (flow deleted or turned off, signature revoked); 400, 413 and
 * any other 4xx bug.
 */
export function classifyTeams(response: HttpResponse, now: number): DeliveryOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) return httpOutcome('ok', response, now);
  if (status === 401 || status === 403 || status === 404) return httpOutcome('disable', response, now);
  if (status >= 300 && status < 400) {
    return httpOutcome('retry', response, now, `HTTP ${status}: redirects are not followed`);
  }
  if (status >= 500 || status === 408 || status === 429) return httpOutcome('retry', response, now);
  return httpOutcome('bug', response, now);
}

export function createChatthreeNotifier(deps: NotifierDeps): Notifier<'chatthree'> {
  return {
    async deliver(details, event, context) {
      const body = teamsBody(event);
      let response: HttpResponse;
      try {
        response = await deps.http.send(
          {
            method: 'POST',
            url: details.webhook_url,
            headers: { 'content-type': 'application/json; charset=utf-8' },
            body,
          },
          context.signal,
        );
      } catch (error) {
        return networkOutcome(error);
      }
      return classifyTeams(response, context.now());
    },
  };
}
