import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { FakeReceiver, reply, type RecordedRequest } from '../../../../../../test/support/fake-receiver.js';
import { sampleEvent, testContext, testDeps } from '../../../../../../test/support/notify-kit.js';
import type { NotificationEvent } from '../../notification-event.js';
import type { NotifierDeps, VapidKeys } from '../../notifier-deps.js';
import type { DeliveryOutcome } from '../../notifier.js';
import { eventOf, PICKET_USER_AGENT, T0 } from '../notifier-test-kit.js';
import { createPushNotifier, MAX_PUSH_PAYLOAD_BYTES, pushClass, pushPayload } from './push.notifier.js';
import { generateVapidKeys } from './vapid.js';

/** http_ece ships no types: the one function the fake push service needs. */
const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(body: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer;
};

// ---- a browser and its push service -------------------------------------------------------

interface Browser {
  ecdh: ECDH;
  authSecret: string;
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
}

function browser(endpoint: string): Browser {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = randomBytes(16).toString('base64url');
  return {
    ecdh,
    authSecret,
    subscription: { endpoint, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: authSecret } },
  };
}

function decrypt(b: Browser, request: RecordedRequest): unknown {
  const plaintext = ece.decrypt(request.raw, { version: 'aes128gcm', privateKey: b.ecdh, authSecret: b.authSecret });
  return JSON.parse(plaintext.toString('utf8'));
}

/** Checks `Authorization: vapid t=<JWT>, k=<key>` as a push service does, and returns the JWT claims. */
function checkVapid(request: RecordedRequest, keys: VapidKeys): Record<string, unknown> {
  const m = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(String(request.headers.authorization));
  expect(m).not.toBeNull();
  const [, jwt, k] = m!;
  expect(k).toBe(keys.publicKey);
  const [head, claims, signature] = jwt!.split('.') as [string, string, string];
  expect(JSON.parse(Buffer.from(head, 'base64url').toString('utf8'))).toEqual({ typ: 'JWT', alg: 'ES256' });
  const point = Buffer.from(k!, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  expect(signed).toBe(true);
  return JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
}

// ---- events ------------------------------------------------------------------------------

const MONITOR = '6650a1f0c2e4b0a1b2c3d4e5';

const upEvent = () => eventOf('monitor.up');
/** A certificate that expires in one day. */
const certEvent = () => eventOf('certificate.expiring', { certificateExpiresAt: T0 + 86400 });
const testEvent = () => eventOf('contact.test', { link: null });

// ---- tests -------------------------------------------------------------------------------

describe('push notifier', () => {
  const service = new FakeReceiver((_request, res) => reply(res, 201));
  const vapid: VapidKeys = { ...generateVapidKeys(), subject: 'mailto:ops@example.com' };
  let deps: NotifierDeps;
  let b: Browser;

  beforeAll(async () => {
    await service.start({ https: true });
    deps = await testDeps({ vapid });
  });
  afterAll(async () => {
    await service.stop();
  });
  beforeEach(() => {
    service.requests.length = 0;
    service.handler = (_request, res) => reply(res, 201);
    b = browser(`${service.baseUrl}/wpush/v2/subscription-abc`);
  });

  const deliver = (event: NotificationEvent = sampleEvent(), d: NotifierDeps = deps, sub = b.subscription) =>
    createPushNotifier(d).deliver(sub, event, testContext());

  it('sends an encrypted, VAPID-signed DOWN notification the browser can read', async () => {
    const before = Math.floor(Date.now() / 1000);
    const outcome = await deliver();
    expect(outcome).toEqual({ class: 'ok', status: 201, detail: 'accepted by the push service (HTTP 201)' });

    expect(service.requests).toHaveLength(1);
    const request = service.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/wpush/v2/subscription-abc');
    expect(request.headers.ttl).toBe('86400');
    expect(request.headers.urgency).toBe('high');
    expect(request.headers['user-agent']).toBe(PICKET_USER_AGENT);
    expect(request.headers.topic).toBe(`monitor-${MONITOR}`);
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    expect(request.headers['content-type']).toBe('application/octet-stream');
    expect(Number(request.headers['content-length'])).toBe(request.raw.length);

    const claims = checkVapid(request, vapid);
    expect(claims.aud).toBe(new URL(service.baseUrl).origin);
    expect(claims.sub).toBe('mailto:ops@example.com');
    expect(claims.exp).toBeGreaterThan(before);
    expect(claims.exp).toBeLessThanOrEqual(before + 86_400 + 60);

    expect(decrypt(b, request)).toEqual({
      title: 'API (prod) is DOWN',
      body: 'HTTP 503 from 2 regions',
      url: `https://picket.example.com/monitors/${MONITOR}`,
      tag: `monitor-${MONITOR}`,
    });
  });

  it('sends the UP under the same Topic, so it replaces a DOWN still undelivered', async () => {
    expect((await deliver(upEvent())).class).toBe('ok');
    const request = service.requests[0]!;
    expect(request.headers.topic).toBe(`monitor-${MONITOR}`);
    expect(request.headers.urgency).toBe('normal');
    expect(decrypt(b, request)).toEqual({
      title: 'API (prod) is UP again',
      body: 'Back up after 12 min down',
      url: `https://picket.example.com/monitors/${MONITOR}`,
      tag: `monitor-${MONITOR}`,
    });
  });

  it('sends certificate warnings under their own Topic and tests without one', async () => {
    expect((await deliver(certEvent())).class).toBe('ok');
    expect(service.requests[0]!.headers.topic).toBe(`cert-${MONITOR}`);
    expect(service.requests[0]!.headers.urgency).toBe('low');
    expect(decrypt(b, service.requests[0]!)).toMatchObject({ body: 'The TLS certificate expires in 1 day' });

    expect((await deliver(testEvent())).class).toBe('ok');
    const test = service.requests[1]!;
    expect(test.headers.topic).toBeUndefined();
    expect(test.headers.ttl).toBe('3600');
    expect(decrypt(b, test)).toEqual({
      title: 'Test notification from Picket',
      body: 'Push notifications from Picket reach this browser.',
      url: 'https://picket.example.com',
      tag: 'picket-test',
    });
  });

  it('falls back to a relative monitor URL without PUBLIC_URL', async () => {
    expect((await deliver(sampleEvent({ link: null }))).class).toBe('ok');
    expect(decrypt(b, service.requests[0]!)).toMatchObject({ url: `/monitors/${MONITOR}` });
  });

  it('keeps an oversized notification within the 3993-byte plaintext limit', async () => {
    const event = sampleEvent({ error: `${'😀'.repeat(3000)}"\\` });
    expect((await deliver(event)).class).toBe('ok');
    const request = service.requests[0]!;
    // 4096 bytes at most on the wire: the plaintext plus 103 bytes of aes128gcm overhead.
    expect(request.raw.length).toBeLessThanOrEqual(4096);
    const payload = decrypt(b, request) as { body: string };
    expect(payload.body.endsWith('…')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
  });

  describe('classification', () => {
    const answers: [number, Record<string, string>, DeliveryOutcome['class']][] = [
      [200, {}, 'ok'],
      [202, {}, 'ok'],
      [404, {}, 'disable'],
      [410, {}, 'disable'],
      [401, {}, 'config'],
      [403, {}, 'config'],
      [429, { 'retry-after': '30' }, 'retry'],
      [500, {}, 'retry'],
      [503, {}, 'retry'],
      [400, {}, 'bug'],
      [413, {}, 'bug'],
    ];

    it.each(answers)('HTTP %i %j → %s', async (status, headers, expected) => {
      service.handler = (_request, res) => reply(res, status, '{"reason":"secret provider text"}', headers);
      const outcome = await deliver();
      expect(outcome.class).toBe(expected);
      expect(outcome.status).toBe(status);
      expect(outcome.detail).not.toContain('secret provider text');
      expect(service.requests).toHaveLength(1);
    });

    it('honours Retry-After (seconds and HTTP-date)', async () => {
      service.handler = (_request, res) => reply(res, 429, undefined, { 'retry-after': '30' });
      expect(await deliver()).toMatchObject({ class: 'retry', status: 429, retryAfterMs: 30_000 });

      const now = Date.UTC(2026, 0, 1, 10, 0, 0);
      service.handler = (_request, res) =>
        reply(res, 503, undefined, { 'retry-after': new Date(now + 120_000).toUTCString() });
      const outcome = await createPushNotifier(deps).deliver(
        b.subscription,
        sampleEvent(),
        testContext(() => now),
      );
      expect(outcome).toMatchObject({ class: 'retry', status: 503, retryAfterMs: 120_000 });
    });

    it('a subscription that is gone names it in the detail', async () => {
      service.handler = (_request, res) => reply(res, 410);
      expect(await deliver()).toEqual({
        class: 'disable',
        status: 410,
        detail: 'the browser subscription is gone (HTTP 410)',
      });
    });

    it('a push service that cannot be reached is retried', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const outcome = await deliver(sampleEvent(), deps, {
        ...b.subscription,
        endpoint: `https://127.0.0.1:${port}/x`,
      });
      expect(outcome).toEqual({ class: 'retry', status: null, detail: 'connection refused' });
    });

    it('no VAPID keys is configuration, and nothing is sent', async () => {
      const outcome = await deliver(sampleEvent(), { ...deps, vapid: null });
      expect(outcome).toEqual({ class: 'config', status: null, detail: 'no VAPID keys configured' });
      expect(service.requests).toHaveLength(0);
    });

    it('broken VAPID keys are configuration, never the contact', async () => {
      const outcome = await deliver(sampleEvent(), { ...deps, vapid: { ...vapid, privateKey: 'AAAA' } });
      expect(outcome.class).toBe('config');
      expect(outcome.detail).not.toContain(vapid.privateKey);
      expect(service.requests).toHaveLength(0);
    });

    it('broken subscription keys disable the contact, and nothing is sent', async () => {
      const sub = { ...b.subscription, keys: { p256dh: 'AAAA', auth: b.authSecret } };
      expect(await deliver(sampleEvent(), deps, sub)).toEqual({
        class: 'disable',
        status: null,
        detail: 'the subscription keys are not valid',
      });
      expect(service.requests).toHaveLength(0);
    });

    it('redirects are not followed and are retried', () => {
      expect(pushClass(301)).toBe('retry');
      expect(pushClass(422)).toBe('bug');
      expect(pushClass(408)).toBe('retry');
    });
  });
});

describe('push payload', () => {
  it('is {title, body, url, tag}', () => {
    expect(JSON.parse(pushPayload(sampleEvent(), 'https://picket.example.com'))).toEqual({
      title: 'API (prod) is DOWN',
      body: 'HTTP 503 from 2 regions',
      url: `https://picket.example.com/monitors/${MONITOR}`,
      tag: `monitor-${MONITOR}`,
    });
  });

  it('always fits in 3993 bytes, cutting on code points', () => {
    const cases = [
      sampleEvent({ error: '😀'.repeat(5000) }),
      sampleEvent({ error: '"'.repeat(5000), monitor: { ...sampleEvent().monitor, name: '\\'.repeat(5000) } }),
      sampleEvent({ link: `https://picket.example.com/${'a'.repeat(5000)}`, error: 'x'.repeat(5000) }),
    ];
    for (const event of cases) {
      const json = pushPayload(event, null);
      expect(Buffer.byteLength(json)).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
      const payload = JSON.parse(json) as { title: string; body: string; url: string; tag: string };
      expect(payload.tag).toBe(`monitor-${MONITOR}`);
      expect(payload.body).not.toMatch(/[\uD800-\uDBFF]$/);
    }
  });
});

describe('VAPID keys', () => {
  it('are a P-256 pair in base64url: 65-byte public point, 32-byte private scalar', () => {
    const keys = generateVapidKeys();
    expect(Object.keys(keys).sort()).toEqual(['privateKey', 'publicKey']);
    const pub = Buffer.from(keys.publicKey, 'base64url');
    const priv = Buffer.from(keys.privateKey, 'base64url');
    expect(pub).toHaveLength(65);
    expect(pub[0]).toBe(4);
    expect(priv).toHaveLength(32);
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(priv);
    expect(ecdh.getPublicKey().equals(pub)).toBe(true);
    expect(generateVapidKeys().privateKey).not.toBe(keys.privateKey);
  });
});
