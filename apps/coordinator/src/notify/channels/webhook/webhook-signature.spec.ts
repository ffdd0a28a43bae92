import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { sampleEvent } from '../../../../../../test/support/notify-kit.js';
import { signWebhook, WebhookSecretError, webhookSecretKey } from './webhook-signature.js';
import { webhookBody, webhookId } from './webhook.notifier.js';

// docs/decisions/0011-notification-channels.md §5, "Test vector".
const VECTOR = {
  secret: 'whsec_cGlja2V0LWV4YW1wbGUtc2lnbmluZy1zZWNyZXQtMzI=',
  id: 'msg_6650a1f0c2e4b0a1b2c3d4e7',
  timestamp: 1767261603,
  body:
    '{"event":"monitor.down","incident_id":"6650a1f0c2e4b0a1b2c3d4e6","monitor_id":"6650a1f0c2e4b0a1b2c3d4e5",' +
    '"monitor_name":"API (prod)","monitor_settings":{"https":{"url":"https://api.example.com/health",' +
    '"check_certificate_expiration":true}},"timestamp":1767261600,"status":"down","error":"HTTP 503 Service Unavailable"}',
  signature: 'v1,tB6jgK7M0khv0LJXXjycTbXhq15RtuFRBRl7OEBUGEY=',
};

/** The event of the §5 test vector, built field by field from its values. */
function vectorEvent() {
  return sampleEvent({
    id: '6650a1f0c2e4b0a1b2c3d4e7',
    event: 'monitor.down',
    timestamp: 1767261600,
    monitor: {
      id: '6650a1f0c2e4b0a1b2c3d4e5',
      name: 'API (prod)',
      settings: { https: { url: 'https://api.example.com/health', check_certificate_expiration: true } },
      target: 'https://api.example.com/health',
      host: 'api.example.com',
    },
    status: 'down',
    error: 'HTTP 503 Service Unavailable',
    incidentId: '6650a1f0c2e4b0a1b2c3d4e6',
  });
}

/** standardwebhooks checks the timestamp against Date.now(): pin it to `seconds`. */
function clockAt(seconds: number) {
  jest.spyOn(Date, 'now').mockReturnValue(seconds * 1000);
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('the §5 test vector', () => {
  it('is reproduced byte for byte from the event', () => {
    const body = webhookBody(vectorEvent());
    expect(body).toBe(VECTOR.body);
    expect(Buffer.byteLength(body, 'utf8')).toBe(317);
    expect(webhookId(vectorEvent())).toBe(VECTOR.id);
  });

  it('gives the reference signature', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, Buffer.from(VECTOR.body))).toBe(VECTOR.signature);
  });

  it('is accepted by the standardwebhooks verifier', () => {
    clockAt(VECTOR.timestamp);
    const headers = {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body),
    };
    expect(new Webhook(VECTOR.secret).verify(VECTOR.body, headers)).toEqual(JSON.parse(VECTOR.body));
  });
});

describe('signWebhook checked by the standardwebhooks verifier', () => {
  const headersFor = (
    secrets: string | string[],
    id = VECTOR.id,
    timestamp = VECTOR.timestamp,
    body = VECTOR.body,
  ) => ({
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secrets, id, timestamp, body),
  });
  const verify = (secret: string, body: string, headers: Record<string, string>) => () =>
    new Webhook(secret).verify(body, headers);

  it('rejects a tampered body', () => {
    clockAt(VECTOR.timestamp);
    const tampered = VECTOR.body.replace('"down"', '"up"');
    expect(verify(VECTOR.secret, tampered, headersFor(VECTOR.secret))).toThrow(WebhookVerificationError);
  });

  it('rejects a signature made with another secret', () => {
    clockAt(VECTOR.timestamp);
    const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(verify(VECTOR.secret, VECTOR.body, headersFor(other))).toThrow('No matching signature found');
  });

  it('rejects a changed webhook-id or webhook-timestamp', () => {
    clockAt(VECTOR.timestamp);
    const headers = headersFor(VECTOR.secret);
    expect(verify(VECTOR.secret, VECTOR.body, { ...headers, 'webhook-id': 'msg_other' })).toThrow(
      WebhookVerificationError,
    );
    expect(
      verify(VECTOR.secret, VECTOR.body, { ...headers, 'webhook-timestamp': String(VECTOR.timestamp + 1) }),
    ).toThrow(WebhookVerificationError);
  });

  it('rejects stale and future timestamps (more than 5 minutes from the receiver clock)', () => {
    const headers = headersFor(VECTOR.secret);
    clockAt(VECTOR.timestamp + 301);
    expect(verify(VECTOR.secret, VECTOR.body, headers)).toThrow('Message timestamp too old');
    clockAt(VECTOR.timestamp - 301);
    expect(verify(VECTOR.secret, VECTOR.body, headers)).toThrow('Message timestamp too new');
    clockAt(VECTOR.timestamp + 300);
    expect(verify(VECTOR.secret, VECTOR.body, headers)()).toEqual(JSON.parse(VECTOR.body));
  });

  it('signs the exact UTF-8 bytes', () => {
    clockAt(VECTOR.timestamp);
    const body = JSON.stringify({ monitor_name: 'Café ☕ 🚀 ' });
    expect(verify(VECTOR.secret, body, headersFor(VECTOR.secret, VECTOR.id, VECTOR.timestamp, body))()).toEqual(
      JSON.parse(body),
    );
  });

  it('gives one entry per secret during a rotation, each accepted on its own', () => {
    clockAt(VECTOR.timestamp);
    const fresh = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    const headers = headersFor([fresh, VECTOR.secret]);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(headers['webhook-signature'].split(' ')[1]).toBe(VECTOR.signature);
    expect(verify(fresh, VECTOR.body, headers)()).toEqual(JSON.parse(VECTOR.body));
    expect(verify(VECTOR.secret, VECTOR.body, headers)()).toEqual(JSON.parse(VECTOR.body));
  });
});

describe('webhookSecretKey', () => {
  it('decodes the part after whsec_', () => {
    expect(webhookSecretKey(VECTOR.secret).toString('utf8')).toBe('picket-example-signing-secret-32');
  });

  it.each(['', 'whsec_', 'cGlja2V0', 'whsec_not base64!', 'whsec_=='])('refuses %j', (secret) => {
    expect(() => webhookSecretKey(secret)).toThrow(WebhookSecretError);
  });
});
