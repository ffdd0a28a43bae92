import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sampleEvent, testContext, testDeps } from '../../../../test/support/notify-kit.js';
import { createWebhookNotifier } from './channels/webhook/webhook.notifier.js';
import { networkOutcome } from './classify.js';
import { afterDelivery } from '../contacts/contact-health.js';
import { HttpSender, NetworkError } from './http-sender.js';

/** Notifications obey EGRESS_POLICY like probes; a forbidden destination is a permanent failure. */
describe('HttpSender under the egress policy', () => {
  let server: Server;
  let port = 0;
  let received = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      received++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => {
    server.close();
  });

  const post = (sender: HttpSender, host: string) =>
    sender.send(
      { method: 'POST', url: `http://${host}:${port}/hook`, headers: {}, body: '{}' },
      AbortSignal.timeout(5000),
    );

  it('strict: refuses a loopback literal and a name resolving to loopback, without connecting', async () => {
    const sender = new HttpSender({ egress: 'strict' });
    for (const host of ['127.0.0.1', 'localhost']) {
      const error = await post(sender, host).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(NetworkError);
      expect(error).toMatchObject({ code: 'EGRESS_BLOCKED' });
      expect((error as Error).message).toMatch(
        /^destination_not_allowed: blocked by egress policy: (127\.0\.0\.1|::1)$/,
      );
      // Never retried: it counts towards the contact's deactivation, with the reason as its error.
      expect(networkOutcome(error)).toEqual({ class: 'disable', status: null, detail: (error as Error).message });
    }
    expect(received).toBe(0);
  });

  it('strict: a webhook to 127.0.0.1 fails for good, and the contact error says why', async () => {
    const deps = await testDeps({ http: new HttpSender({ egress: 'strict' }) });
    const now = Date.UTC(2026, 10, 24, 6, 0, 0);
    const outcome = await createWebhookNotifier(deps).deliver(
      { url: `http://127.0.0.1:${port}/hook`, secret: null },
      sampleEvent(),
      testContext(() => now),
    );
    expect(outcome).toEqual({
      class: 'disable',
      status: null,
      detail: 'destination_not_allowed: blocked by egress policy: 127.0.0.1',
    });
    const health = afterDelivery(
      { active: true, consecutiveFailures: 0, error: null },
      { kind: 'failed', class: 'disable', detail: outcome.detail, at: now },
    );
    expect(health.error).toEqual({
      code: 'DESTINATION_REJECTED',
      message: 'destination_not_allowed: blocked by egress policy: 127.0.0.1',
      failed_at: now / 1000,
      consecutive_failures: 1,
    });
    expect(received).toBe(0);
  });

  it('private-allowed (the default) delivers to a private address', async () => {
    const response = await post(new HttpSender(), '127.0.0.1');
    expect(response.status).toBe(200);
    expect(received).toBe(1);
  });
});
