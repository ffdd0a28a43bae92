import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type LookupFunction,
  type Server as TcpServer,
} from 'node:net';
import type { EgressPolicy } from '#runtime';
import { IcmpPinger } from './icmp-pinger.js';
import type { ProbeContext } from './prober.js';
import { createProberTable } from './probers.js';

/**
 * The egress guard in every prober (docs/decisions/0010-egress-policy.md): what `strict` and
 * `private-allowed` let a check reach, for IP literals, for names (resolved at connect time) and
 * on every redirect hop.
 */
describe('probers under the egress policy', () => {
  let http: Server;
  let tcp: TcpServer;
  let base = '';
  let tcpPort = 0;
  let pinger: IcmpPinger;

  /** Names the tests point anywhere: `meta.test` at the metadata address, `rebind.test` at loopback. */
  const resolver = ((host: string, options: unknown, callback: unknown) => {
    const answers: Record<string, string> = { 'meta.test': '169.254.169.254', 'rebind.test': '127.0.0.1' };
    const done = (typeof options === 'function' ? options : callback) as (
      e: Error | null,
      a?: unknown,
      f?: number,
    ) => void;
    const address = answers[host] ?? host;
    if ((options as { all?: boolean }).all) done(null, [{ address, family: 4 }]);
    else done(null, address, 4);
  }) as unknown as LookupFunction;

  const table = (egress: EgressPolicy) => createProberTable({ pinger, egress, https: { lookup: resolver } });
  const context = (): ProbeContext => ({ signal: AbortSignal.timeout(3000), timeoutMs: 3000 });
  const https = (egress: EgressPolicy, url: string) =>
    table(egress).https({ url, check_certificate_expiration: false }, context());

  beforeAll(async () => {
    http = createServer((req, res) => {
      if (req.url === '/to-metadata') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      else if (req.url === '/to-meta-name') res.writeHead(302, { location: 'http://meta.test/latest' }).end();
      else res.end('ok');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    tcp = createTcpServer((socket) => socket.end());
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    tcpPort = (tcp.address() as AddressInfo).port;
    pinger = await IcmpPinger.open();
  });

  afterAll(() => {
    http.close();
    tcp.close();
    pinger.close();
  });

  it('strict: a loopback literal is refused before connecting, with the reason in the result', async () => {
    expect(await https('strict', `${base}/`)).toMatchObject({
      status: 'blocked',
      phase: 'connect',
      error: 'destination_not_allowed: blocked by egress policy: 127.0.0.1',
    });
    expect(await https('private-allowed', `${base}/`)).toMatchObject({ status: 'up' });
  });

  it('strict: a name resolving to loopback is refused at connect time (no DNS rebinding)', async () => {
    const port = (http.address() as AddressInfo).port;
    expect(await https('strict', `http://rebind.test:${port}/`)).toMatchObject({
      status: 'blocked',
      error: 'destination_not_allowed: blocked by egress policy: 127.0.0.1',
    });
    expect(await https('private-allowed', `http://rebind.test:${port}/`)).toMatchObject({ status: 'up' });
  });

  it('every redirect hop is judged: to the metadata address, by literal or by name', async () => {
    expect(await https('private-allowed', `${base}/to-metadata`)).toMatchObject({
      status: 'blocked',
      error: 'destination_not_allowed: blocked by egress policy: 169.254.169.254',
    });
    expect(await https('private-allowed', `${base}/to-meta-name`)).toMatchObject({
      status: 'blocked',
      error: 'destination_not_allowed: blocked by egress policy: 169.254.169.254',
    });
  });

  it('tcp and ping are guarded too', async () => {
    const t = (egress: EgressPolicy) => table(egress).tcp({ url: `tcp://127.0.0.1:${tcpPort}` }, context());
    expect(await t('strict')).toMatchObject({
      status: 'blocked',
      error: 'destination_not_allowed: blocked by egress policy: 127.0.0.1',
    });
    expect(await t('private-allowed')).toMatchObject({ status: 'up' });
    const p = (egress: EgressPolicy, url: string) => table(egress).ping({ url }, context());
    expect(await p('strict', 'ping://127.0.0.1')).toMatchObject({
      status: 'blocked',
      error: 'destination_not_allowed: blocked by egress policy: 127.0.0.1',
    });
    expect(await p('private-allowed', 'ping://169.254.169.254')).toMatchObject({
      status: 'blocked',
      error: 'destination_not_allowed: blocked by egress policy: 169.254.169.254',
    });
  });
});
