import webpush, { type RequestOptions, type Urgency } from 'web-push';
import type { ChannelDetails } from '../../../contacts/channels.js';
import { defaultClass, httpOutcome, networkOutcome } from '../../classify.js';
import type { HttpResponse } from '../../http-sender.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps } from '../../notifier-deps.js';
import type { DeliveryClass, DeliveryOutcome, Notifier } from '../../notifier.js';
import { headline, humanDuration, oneLine, truncate } from '../../text.js';

/**
 * `push` (docs/decisions/0011-notification-channels.md §14): Web Push with VAPID. `web-push`
 * builds the request (aes128gcm encryption, the VAPID JWT, TTL / Urgency / Topic headers) without
 * sending it; the request goes out through the notifiers' HttpSender, so it gets the same timeout,
 * abort signal, no-redirect rule, trusted CAs and egress guard as every other channel.
 */

/** Encrypted body ≤ 4096 bytes; aes128gcm adds 103, so the plaintext must stay within 3993. */
export const MAX_PUSH_PAYLOAD_BYTES = 3993;

export interface PushPayload {
  title: string;
  body: string;
  url: string;
  tag: string;
}

interface Delivery {
  ttl: number;
  urgency: Urgency;
  topic?: string;
}

/** TTL, Urgency and Topic per event. A DOWN and its UP share a Topic: the UP replaces an undelivered DOWN. */
export function deliveryOptions(event: NotificationEvent): Delivery {
  const id = topicId(event.monitor.id);
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder':
      return { ttl: 86_400, urgency: 'high', topic: `monitor-${id}` };
    case 'monitor.up':
      return { ttl: 86_400, urgency: 'normal', topic: `monitor-${id}` };
    case 'certificate.expiring':
      return { ttl: 86_400, urgency: 'low', topic: `cert-${id}` };
    default:
      return { ttl: 3_600, urgency: 'normal' };
  }
}

/** The monitor id as Topic material: base64url characters only, `monitor-` + id ≤ 32 characters. */
function topicId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 24);
}

/** `{title, body, url, tag}` as JSON of at most MAX_PUSH_PAYLOAD_BYTES bytes (texts cut to fit). */
export function pushPayload(event: NotificationEvent, publicUrl: string | null): string {
  const url =
    event.event === 'contact.test'
      ? (publicUrl ?? '/')
      : (event.link ?? `/monitors/${encodeURIComponent(event.monitor.id)}`);
  const tag = event.event === 'contact.test' ? 'picket-test' : `monitor-${topicId(event.monitor.id)}`;
  return fitPayload({ title: truncate(headline(event), 200), body: truncate(pushBody(event), 1000), url, tag });
}

function pushBody(event: NotificationEvent): string {
  switch (event.event) {
    case 'monitor.down':
    case 'monitor.down.reminder': {
      const cause = oneLine(event.error ?? '') || 'Down';
      const down = event.regions.filter((r) => r.status === 'down').length;
      return down > 0 ? `${cause} from ${down} ${down === 1 ? 'region' : 'regions'}` : cause;
    }
    case 'monitor.up':
      return event.durationSeconds === null ? 'Back up' : `Back up after ${humanDuration(event.durationSeconds)} down`;
    case 'certificate.expiring': {
      if (event.certificateExpiresAt === null) return 'The TLS certificate expires soon';
      const seconds = event.certificateExpiresAt - event.timestamp;
      if (seconds <= 0) return 'The TLS certificate has expired';
      const days = Math.ceil(seconds / 86_400);
      return `The TLS certificate expires in ${days} ${days === 1 ? 'day' : 'days'}`;
    }
    default:
      return 'Push notifications from Picket reach this browser.';
  }
}

function fitPayload(payload: PushPayload): string {
  let { title, body, url } = payload;
  for (;;) {
    const json = JSON.stringify({ title, body, url, tag: payload.tag });
    const excess = Buffer.byteLength(json, 'utf8') - MAX_PUSH_PAYLOAD_BYTES;
    if (excess <= 0) return json;
    // Every code point is at least one byte of JSON; the "…" that replaces them costs three.
    const titleLength = Array.from(title).length;
    const bodyLength = Array.from(body).length;
    if (bodyLength > 1 && bodyLength >= titleLength) body = truncate(body, Math.max(1, bodyLength - excess - 3));
    else if (titleLength > 1) title = truncate(title, Math.max(1, titleLength - excess - 3));
    else if (url !== '/') url = '/';
    else return JSON.stringify({ title: '', body: '', url: '/', tag: payload.tag.slice(0, 64) });
  }
}

/** The class of a push service's answer (§14): 404/410 gone, 401/403 VAPID, 400/413 our body. */
export function pushClass(status: number): DeliveryClass {
  if (status === 404 || status === 410) return 'disable';
  if (status === 401 || status === 403) return 'config';
  if (status >= 300 && status < 400) return 'retry';
  return defaultClass(status);
}

function pushDetail(status: number, cls: DeliveryClass): string {
  switch (cls) {
    case 'ok':
      return `accepted by the push service (HTTP ${status})`;
    case 'disable':
      return `the browser subscription is gone (HTTP ${status})`;
    case 'config':
      return `the push service refused Picket's VAPID signature (HTTP ${status}): check the VAPID keys`;
    case 'bug':
      return `the push service refused the request (HTTP ${status})`;
    default:
      return status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
  }
}

export function createPushNotifier(deps: NotifierDeps): Notifier<'push'> {
  return {
    async deliver(details: ChannelDetails['push'], event: NotificationEvent, context): Promise<DeliveryOutcome> {
      const vapid = deps.vapid;
      if (!vapid) return { class: 'config', status: null, detail: 'no VAPID keys configured' };

      let audience: string;
      try {
        const endpoint = new URL(details.endpoint);
        if (endpoint.protocol !== 'https:') throw new Error('not https');
        audience = endpoint.origin;
      } catch {
        return { class: 'disable', status: null, detail: 'the subscription endpoint is not an https URL' };
      }
      // Our keys first, so a broken key pair is Picket's configuration and never the contact's fault.
      try {
        webpush.getVapidHeaders(audience, vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm');
      } catch {
        return { class: 'config', status: null, detail: 'the VAPID keys or VAPID subject are not valid' };
      }

      const delivery = deliveryOptions(event);
      const options: RequestOptions = {
        vapidDetails: { subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
        TTL: delivery.ttl,
        urgency: delivery.urgency,
        contentEncoding: 'aes128gcm',
        ...(delivery.topic ? { topic: delivery.topic } : {}),
      };
      let request: ReturnType<typeof webpush.generateRequestDetails>;
      try {
        request = webpush.generateRequestDetails(
          { endpoint: details.endpoint, keys: { p256dh: details.keys.p256dh, auth: details.keys.auth } },
          pushPayload(event, deps.publicUrl),
          options,
        );
      } catch {
        // Only the subscription's own keys are left to fail here (p256dh not a P-256 point, auth too short).
        return { class: 'disable', status: null, detail: 'the subscription keys are not valid' };
      }

      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
      }
      let response: HttpResponse;
      try {
        response = await deps.http.send(
          { method: 'POST', url: request.endpoint, headers, body: request.body ?? Buffer.alloc(0) },
          context.signal,
        );
      } catch (error) {
        return networkOutcome(error);
      }
      const cls = pushClass(response.status);
      return httpOutcome(cls, response, context.now(), pushDetail(response.status, cls));
    },
  };
}
