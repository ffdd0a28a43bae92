import type { Channel, ChannelDetails } from '../contacts/channels.js';
import type { NotificationEvent } from './notification-event.js';

/**
 * How one attempt ended (docs/decisions/0011-notification-channels.md §2), exactly one class per attempt:
 * - ok: accepted.
 * - retry: transient (network, timeout, 408, 429, 5xx …): the dispatcher retries with backoff.
 * - disable: permanent (destination gone, credential dead): never retried; counts towards deactivation.
 * - bug: the provider rejected the body Picket built: never resent; logged loudly.
 * - config: Picket's own configuration is wrong (no SMTP relay, VAPID mismatch): retried, sets the
 *   contact's error, never deactivates it.
 */
export type DeliveryClass = 'ok' | 'retry' | 'disable' | 'bug' | 'config';

export interface DeliveryOutcome {
  class: DeliveryClass;
  /** The HTTP (or SMTP) status of the answer, when there was one. */
  status: number | null;
  /** Short and safe to show: never a provider body, a URL with a token, or a secret. */
  detail: string;
  /** A provider's hint for the next attempt (Retry-After, retry_after, rate_limit.retry_after). */
  retryAfterMs?: number;
  /** Something to remember for the closing event of the same outage (ticket id, Message-ID). */
  ref?: string;
}

export interface NotifierContext {
  /** Aborted when the attempt's time is up (15 s) or the coordinator stops. */
  signal: AbortSignal;
  /** The injected clock, ms since the epoch. */
  now(): number;
}

/**
 * One notifier per channel, one folder each (channels/<channel>/<channel>.notifier.ts).
 * A notifier never retries and never throws for a failing destination: it classifies.
 */
export interface Notifier<C extends Channel> {
  deliver(details: ChannelDetails[C], event: NotificationEvent, context: NotifierContext): Promise<DeliveryOutcome>;
  /** Releases pooled resources (the SMTP pool) on shutdown. */
  close?(): Promise<void>;
}

/** The compiler-checked table: a new channel does not build until it has a notifier. */
export type NotifierTable = { readonly [K in Channel]: Notifier<K> };
