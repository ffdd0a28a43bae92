/**
 * The egress guard against bypass forms (docs/decisions/0010-egress-policy.md, goals S1–S5).
 * Nothing here touches a non-loopback address: one dual-stack listener counts every
 * connection that reaches this machine on its port, by the local address dialled; 127.0.0.2
 * is allow-listed (EGRESS_ALLOW_CIDRS) and plays the "public" server, so rebinding and
 * redirects can start somewhere allowed. Under `off` every vector reaches the counter (so the
 * vectors are real); under `strict` none does.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import type { Egress, EgressRules } from '#runtime';
import { IcmpPinger } from '../../libs/probes/src/icmp-pinger.js';
import { createProberTable } from '../../libs/probes/src/probers.js';
import type { ProbeContext, ProbeOutcome } from '../../libs/probes/src/prober.js';
import { HttpSender } from '../../apps/coordinator/src/notify/http-sender.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';

const PUBLIC = '127.0.0.2';
const STRICT: EgressRules = { policy: 'strict', allow: [`${PUBLIC}/32`] };

/** Host forms of the loopback listener (and of "this host"): literals in every spelling, and names. */
const HTTP_VECTORS = [
  '127.0.0.1',
  '127.0.0.3',
  '127.1',
  '127.0.1',
  '2130706433',
  '0x7f000001',
  '0x7f.1',
  '0177.0.0.1',
  '017700000001',
  '0',
  '0.0.0.0',
  '[::1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:3]',
  '[::FFFF:127.0.0.1]',
  'user:pass@127.0.0.1',
  'loop.test',
  'LOOP.TEST.',
  'mapped.test',
  'six.test',
  'zero.test',
  'localhost',
] as const;

/** The forms the tcp:// and ping:// parsers accept (they refuse numeric shorthands outright). */
const SOCKET_VECTORS = ['127.0.0.1', '127.0.0.3', '0.0.0.0', '[::1]', '[::ffff:127.0.0.1]', 'loop.test', 'six.test'];

/** The stub DNS: every test name points at this machine, in some form. */
const ANSWERS: Record<string, string[]> = {
  'loop.test': ['127.0.0.1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'six.test': ['::1'],
  'zero.test': ['0.0.0.0'],
  localhost: ['127.0.0.1', '::1'],
  'public.test': [PUBLIC],
};

function stubResolver(answers: (host: string) => string[]): LookupFunction {
  return (host: string, options: unknown, callback: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (
      e: NodeJS.ErrnoException | null,
      a?: unknown,
      f?: number,
    ) => void;
    const addresses = answers(host.toLowerCase().replace(/\.$/, '')).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
    if (addresses.length === 0) {
      done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    } else if ((options as { all?: boolean } | undefined)?.all) {
      done(null, addresses);
    } else {
      done(null, addresses[0]?.address, addresses[0]?.family);
    }
  };
}
const resolver = stubResolver((host) => ANSWERS[host] ?? []);

const context = (): ProbeContext => ({ signal: AbortSignal.timeout(3000), timeoutMs: 3000 });
/** Refused by the guard, with its machine-readable reason first (docs/decisions/0010-egress-policy.md). */
const blocked = (outcome: ProbeOutcome) =>
  outcome.status === 'blocked' && /^destination_not_allowed: blocked by egress policy: /.test(outcome.error ?? '');

describe('egress guard against bypass forms', () => {
  let server: Server;
  let port = 0;
  /** Connections that reached the listener on anything but the allow-listed "public" address. */
  let forbidden = 0;
  let pinger: IcmpPinger;
  const pings: string[] = [];

  const isPublic = (socket: Socket) => socket.localAddress?.replace(/^::ffff:/, '') === PUBLIC;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (!isPublic(req.socket)) {
        res.end('reached');
        return;
      }
      // The "public" server: /to?u=<url> redirects there.
      const url = new URL(req.url ?? '/', 'http://x');
      const to = url.searchParams.get('u');
      if (to) res.writeHead(302, { location: to.replace('{port}', String(port)) }).end();
      else res.end('public');
    });
    server.on('connection', (socket: Socket) => {
      if (!isPublic(socket)) forbidden++;
    });
    // Dual-stack: every IPv4 and IPv6 form of this host reaches it.
    await new Promise<void>((resolve) => server.listen({ port: 0, host: '::', ipv6Only: false }, resolve));
    port = (server.address() as AddressInfo).port;
    pinger = await IcmpPinger.open();
  });

  afterAll(() => {
    server.close();
    pinger.close();
  });

  /** Probers whose ICMP echoes are recorded (a raw socket has no listener to count). */
  function probers(egress: Egress, lookup: LookupFunction = resolver) {
    const ping: IcmpPinger['ping'] = (address, family, signal) => {
      pings.push(address);
      return pinger.ping(address, family, signal);
    };
    const counting = new Proxy(pinger, {
      get: (target, key) => {
        if (key === 'ping') return ping;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return createProberTable({ pinger: counting, egress, https: { lookup } });
  }

  /** How many forbidden connections (or pings) `run` caused. */
  async function reached<T>(run: () => Promise<T>): Promise<{ value: T; connections: number }> {
    const before = forbidden + pings.length;
    const value = await run();
    // A connection is counted when the server accepts it, which may trail the client's error by a tick.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { value, connections: forbidden + pings.length - before };
  }

  it('S1: every vector reaches this host under off, none under strict (HTTPS, TCP and ICMP probers)', async () => {
    const rows: { vector: string; off: number; strict: number; blocked: boolean }[] = [];
    const expected: typeof rows = [];
    const check = async (vector: string, probe: (egress: Egress) => Promise<ProbeOutcome>) => {
      const off = await reached(() => probe('off'));
      const strict = await reached(() => probe(STRICT));
      rows.push({
        vector,
        off: Math.min(off.connections, 1),
        strict: strict.connections,
        blocked: blocked(strict.value),
      });
      expected.push({ vector, off: 1, strict: 0, blocked: true });
    };
    for (const host of HTTP_VECTORS) {
      await check(`http://${host}`, (egress) =>
        probers(egress).https({ url: `http://${host}:${port}/`, check_certificate_expiration: false }, context()),
      );
    }
    for (const host of SOCKET_VECTORS) {
      await check(`tcp://${host}`, (egress) => probers(egress).tcp({ url: `tcp://${host}:${port}` }, context()));
      await check(`ping://${host}`, (egress) => probers(egress).ping({ url: `ping://${host}` }, context()));
    }
    expect(rows).toEqual(expected);
  });

  it('S2: a name that alternates between the public address and loopback never reaches loopback', async () => {
    // One alternating name for the probes, one for the notifications: public, loopback, public, …
    const alternating = () => {
      let calls = 0;
      return stubResolver(() => [calls++ % 2 === 0 ? PUBLIC : '127.0.0.1']);
    };
    const probeLookup = alternating();
    const sender = new HttpSender({ egress: STRICT, lookup: alternating(), timeoutMs: 3000 });
    const outcomes = { up: 0, blocked: 0, delivered: 0, refused: 0 };
    const { connections } = await reached(async () => {
      for (let i = 0; i < 40; i++) {
        const outcome = await probers(STRICT, probeLookup).https(
          { url: `http://rebind.test:${port}/`, check_certificate_expiration: false },
          context(),
        );
        if (outcome.status === 'up') outcomes.up++;
        else if (blocked(outcome)) outcomes.blocked++;
        const sent = await sender
          .send(
            { method: 'POST', url: `http://rebind.test:${port}/hook`, headers: {}, body: '{}' },
            AbortSignal.timeout(3000),
          )
          .then(
            () => true,
            () => false,
          );
        if (sent) outcomes.delivered++;
        else outcomes.refused++;
      }
    });
    expect({ connections, ...outcomes }).toEqual({ connections: 0, up: 20, blocked: 20, delivered: 20, refused: 20 });
  });

  it('S3: every redirect hop is judged again, across http and https', async () => {
    const targets = [
      'http://127.0.0.1:{port}/',
      'http://127.0.0.3:{port}/',
      'http://[::1]:{port}/',
      'http://[::ffff:7f00:1]:{port}/',
      'http://2130706433:{port}/',
      'http://loop.test:{port}/',
      'https://127.0.0.1:{port}/',
      'https://six.test:{port}/',
    ];
    const rows: { to: string; connections: number; blocked: boolean }[] = [];
    for (const to of targets) {
      const start = `http://public.test:${port}/to?u=${encodeURIComponent(to)}`;
      const { value, connections } = await reached(() =>
        probers(STRICT).https({ url: start, check_certificate_expiration: false }, context()),
      );
      rows.push({ to, connections, blocked: blocked(value) });
    }
    expect(rows).toEqual(targets.map((to) => ({ to, connections: 0, blocked: true })));
    // The chain itself works: a redirect to the public server is followed.
    const fine = await probers(STRICT).https(
      {
        url: `http://public.test:${port}/to?u=${encodeURIComponent(`http://${PUBLIC}:{port}/`)}`,
        check_certificate_expiration: false,
      },
      context(),
    );
    expect(fine.status).toBe('up');
  });

  it('S5: private-allowed reaches loopback', async () => {
    const { value, connections } = await reached(() =>
      probers('private-allowed').https(
        { url: `http://127.0.0.1:${port}/`, check_certificate_expiration: false },
        context(),
      ),
    );
    expect({ status: value.status, connections }).toEqual({ status: 'up', connections: 1 });
  });

  describe('S4: every notification channel, through the contact test endpoint under strict', () => {
    let db: TestDatabase;
    let c: RunningCoordinator;
    let api: ApiClient;

    beforeAll(async () => {
      db = await testDatabases()[0]!.create();
      // The vendors' bases point at this host too: only the guard stands between them and the listener.
      const here = `http://localhost:${port}`;
      c = await startCoordinator(db.url, {
        env: {
          EGRESS_POLICY: 'strict',
          PAGERDUTY_EVENTS_URL: `${here}/v2/enqueue`,
          OPSGENIE_API_URL: here,
          OPSGENIE_EU_API_URL: here,
          ZENDESK_API_URL: `${here}/{subdomain}`,
        },
      });
      api = (await c.newAccount()).client;
    }, 60_000);

    afterAll(async () => {
      await c?.close();
      await db?.drop();
    });

    it('refuses each delivery with the egress reason, and nothing reaches the listener', async () => {
      const https = `https://localhost:${port}`;
      const contacts: [string, Record<string, unknown>][] = [
        ['webhook', { url: `http://localhost:${port}/hook` }],
        ['chatone', { webhook_url: `${https}/slack` }],
        ['chattwo', { webhook_url: `${https}/discord` }],
        ['chatthree', { webhook_url: `${https}/teams` }],
        ['paging', { integration_key: 'R0123456789abcdef0123456789abcdef' }],
        ['incidentmgmt', { webhook_url: `${https}/incident`, bearer_token: 'token-123' }],
        ['alerting', { api_key: 'opsgenie-key' }],
        ['ticketing', { subdomain: 'acme', email: 'ops@example.com', api_token: 'zendesk-token' }],
      ];
      const rows: { channel: string; status: number; reason: boolean; connections: number }[] = [];
      for (const [channel, details] of contacts) {
        const created = await api.post('/api/contacts', { name: channel, channel, details });
        expect({ channel, status: created.status }).toEqual({ channel, status: 201 });
        const { value, connections } = await reached(() => api.post(`/api/contacts/${created.body.contact.id}/test`));
        rows.push({
          channel,
          status: value.status,
          reason: /destination_not_allowed: blocked by egress policy/.test(JSON.stringify(value.body)),
          connections,
        });
      }
      expect(rows).toEqual(contacts.map(([channel]) => ({ channel, status: 422, reason: true, connections: 0 })));
    });
  });
});
