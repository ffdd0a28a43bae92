import { EGRESS_BLOCKED } from '#runtime';
import type { DeliveryClass, DeliveryOutcome } from './notifier.js';
import { NetworkError, type HttpResponse } from './http-sender.js';

/** Milliseconds from a Retry-After header: delta-seconds or an HTTP-date. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text.trim()) * 1000);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/**
 * The default classification of an HTTP answer (docs/decisions/0011-notification-channels.md §2):
 * 2xx ok; 5xx, 408, 429 retry; other statuses bug. Channels refine it with their own table.
 */
export function defaultClass(status: number): DeliveryClass {
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 500 || status === 408 || status === 429) return 'retry';
  return 'bug';
}

/** An outcome for an HTTP answer, with Retry-After read when the class is retry. */
export function httpOutcome(cls: DeliveryClass, response: HttpResponse, now: number, detail?: string): DeliveryOutcome {
  const outcome: DeliveryOutcome = { class: cls, status: response.status, detail: detail ?? `HTTP ${response.status}` };
  if (cls === 'retry') {
    const hint = retryAfterMs(response.headers['retry-after'], now);
    if (hint !== undefined) outcome.retryAfterMs = hint;
  }
  return outcome;
}

/**
 * A failure without an HTTP answer is transient, except a destination the egress policy
 * forbids: that never changes by retrying, so it counts towards deactivation at once.
 */
export function networkOutcome(error: unknown): DeliveryOutcome {
  if (error instanceof NetworkError && error.code === EGRESS_BLOCKED) {
    return { class: 'disable', status: null, detail: error.message };
  }
  if (error instanceof NetworkError) return { class: 'retry', status: null, detail: error.message };
  throw error;
}
