import type { NotificationEvent } from './notification-event.js';
import { isoUtc, oneLine } from './text.js';

/**
 * Pieces of human-readable notification text that several channel notifiers render alike. They
 * return plain text: each notifier still escapes it for its own format (text.ts).
 */

/** "2026-01-01 10:00 UTC": Unix seconds to the minute, in UTC. */
export function utcMinute(seconds: number): string {
  return `${isoUtc(seconds).slice(0, 16).replace('T', ' ')} UTC`;
}

/** The target as written, on one line, without user:password@ (a credential). */
export function safeTarget(target: string): string {
  return oneLine(target.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1'));
}

/** "down (HTTP 503): eu-west-1, us-east-1": one line per distinct result, in the order first seen. */
export function regionLines(event: Pick<NotificationEvent, 'regions'>): string[] {
  const groups = new Map<string, string[]>();
  for (const { region, status, error } of event.regions) {
    const key = error ? `${status} (${oneLine(error)})` : status;
    groups.set(key, [...(groups.get(key) ?? []), region]);
  }
  return [...groups].map(([result, regions]) => `${result}: ${regions.join(', ')}`);
}

/**
 * The certificate's state after "TLS certificate": "expires on 2026-01-15 (in 14 days)" (whole
 * days, rounded down; "in less than a day" below one), "expired on 2026-01-15", or "expires soon"
 * when the date is unknown.
 */
export function expiry(event: Pick<NotificationEvent, 'certificateExpiresAt' | 'timestamp'>): string {
  const at = event.certificateExpiresAt;
  if (at === null) return 'expires soon';
  const date = isoUtc(at).slice(0, 10);
  if (at <= event.timestamp) return `expired on ${date}`;
  const days = Math.floor((at - event.timestamp) / 86_400);
  return `expires on ${date} (${days < 1 ? 'in less than a day' : `in ${days} day${days === 1 ? '' : 's'}`})`;
}

/** "today", "in 1 day", "in 14 days": a span of seconds in whole days, rounded; a past span is "today". */
export function inDays(seconds: number): string {
  const days = Math.max(0, Math.round(seconds / 86_400));
  if (days === 0) return 'today';
  return days === 1 ? 'in 1 day' : `in ${days} days`;
}
