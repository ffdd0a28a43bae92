import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type LookupFunction, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { generate } from 'selfsigned';
import { HTTP_METHODS, HTTPS_LIMITS, type HttpsSettings, type ProbeRequest } from '#contracts';
import { systemClock } from '#runtime';
import { createHttpsProber, type HttpsProberOptions } from './https.prober.js';
import type { ProbeContext, ProberTable, ProbeOutcome } from './prober.js';
import { runProbe } from './run-probe.js';
import { tableWithOnly } from '../../../test/support/probe-request.js';
import { testAuthority } from '../../../test/support/tls.js';

// ---- certificates -------------------------------------------------------------------------

const NOT_AFTER = new Date('2031-05-06T07:08:09Z');
const SERVER_NAMES = [
  { type: 2 as const, value: 'probe.test' },
  { type: 7 as const, ip: '127.0.0.1' },
  { type: 7 as const, ip: '::1' },
];

async function makeCertificates() {
  const ca = await testAuthority('Picket Test CA');
  const leafExtensions = [
    { name: 'basicConstraints' as const, cA: false },
    { name: 'keyUsage' as const, digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage' as const, serverAuth: true },
    { name: 'subjectAltName' as const, altNames: SERVER_NAMES },
  ];
  const leaf = await generate([{ name: 'commonName', value: 'probe.test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    notBeforeDate: new Date(Date.now() - 86_400_000),
    notAfterDate: NOT_AFTER,
    extensions: leafExtensions,
  });
  const expired = await generate([{ name: 'commonName', value: 'probe.test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    notBeforeDate: new Date(Date.now() - 3 * 86_400_000),
    notAfterDate: new Date(Date.now() - 2 * 86_400_000),
    extensions: leafExtensions,
  });
  const selfSigned = await generate([{ name: 'commonName', value: 'probe.test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: leafExtensions,
  });
  return { ca, leaf, expired, selfSigned };
}

// ---- the target servers ---------------------------------------------------------------------

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  body: string;
}

/** Every request the servers answered, in order (reset before each test). */
let received: Received[] = [];
/** Every TCP connection the servers accepted (reset before each test). */
let connections = 0;
let urls: { http: string; https: string; https6: string; selfSigned: string; expired: string; hanging: string };
let closedPort: number;
const hangingSockets = new Set<Socket>();
const servers: { close(callback: () => void): unknown; closeAllConnections?: () => void }[] = [];

function handler(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      rawHeaders: request.rawHeaders,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    route(request, response);
  });
}

function route(request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://x');
  const [, first = '', second = ''] = url.pathname.split('/');
  switch (first) {
    case 'ok':
      response.end('hello from the picket tests');
      return;
    case 'json':
      response.setHeader('content-type', 'application/json');
      response.end(JSON_DOCUMENT);
      return;
    case 'status':
      response.statusCode = Number(second);
      if (response.statusCode >= 300 && response.statusCode < 400) response.setHeader('location', '/ok');
      response.end(`status ${second}: SECRET-BODY-TOKEN`);
      return;
    case 'redirect': {
      const left = Number(second);
      if (left > 0) {
        response.writeHead(302, { location: `/redirect/${left - 1}` }).end();
      } else {
        response.end('landed');
      }
      return;
    }
    case 'pause': {
      // /pause?to=X: answers after PAUSE_MS, redirecting to X when given.
      const to = url.searchParams.get('to');
      setTimeout(() => {
        if (to) response.writeHead(302, { location: to }).end();
        else response.end('paused');
      }, PAUSE_MS);
      return;
    }
    case 'go':
      response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      return;
    case 'body': {
      // /body?size=N&at=K: N bytes of filler with NEEDLE at offset K.
      const size = Number(url.searchParams.get('size'));
      const at = Number(url.searchParams.get('at'));
      const body = Buffer.alloc(size, 'a');
      body.write('NEEDLE', at);
      response.end(body);
      return;
    }
    case 'endless': {
      response.write('NEEDLE');
      const timer = setInterval(() => response.write(Buffer.alloc(16_384, 'b')), 5);
      response.on('close', () => clearInterval(timer));
      return;
    }
    case 'gzip':
      response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('a compressed NEEDLE in the body'));
      return;
    case 'stall-body':
      response.writeHead(200).write('partial');
      return;
    case 'bad-gzip':
      response.writeHead(200, { 'content-encoding': 'gzip' }).end('this is not gzip');
      return;
    case 'short':
      response.writeHead(200, { 'content-length': '1000' }).write('less than promised');
      setTimeout(() => request.socket.destroy(), 10);
      return;
    case 'reset':
      request.socket.destroy();
      return;
    case 'garbage':
      request.socket.end('THIS IS NOT HTTP\r\n\r\n');
      return;
    default:
      response.statusCode = 404;
      response.end('not found');
  }
}

async function listen(server: Server, host: string): Promise<number> {
  server.on('connection', () => connections++);
  server.listen(0, host);
  await once(server, 'listening');
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

let ca: string;

beforeAll(async () => {
  const certificates = await makeCertificates();
  ca = certificates.ca.cert;
  const tls = (pems: { private: string; cert: string }) => ({ key: pems.private, cert: pems.cert });
  const httpPort = await listen(createHttpServer(handler), '127.0.0.1');
  const httpsPort = await listen(createHttpsServer(tls(certificates.leaf), handler), '127.0.0.1');
  const https6Port = await listen(createHttpsServer(tls(certificates.leaf), handler), '::1');
  const selfSignedPort = await listen(createHttpsServer(tls(certificates.selfSigned), handler), '127.0.0.1');
  const expiredPort = await listen(createHttpsServer(tls(certificates.expired), handler), '127.0.0.1');

  const hanging = createNetServer((socket) => {
    connections++;
    hangingSockets.add(socket);
    socket.on('close', () => hangingSockets.delete(socket));
  });
  hanging.listen(0, '127.0.0.1');
  await once(hanging, 'listening');
  servers.push(hanging);

  const closed = createNetServer().listen(0, '127.0.0.1');
  await once(closed, 'listening');
  closedPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));

  urls = {
    http: `http://127.0.0.1:${httpPort}`,
    https: `https://probe.test:${httpsPort}`,
    https6: `https://[::1]:${https6Port}`,
    selfSigned: `https://probe.test:${selfSignedPort}`,
    expired: `https://probe.test:${expiredPort}`,
    hanging: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`,
  };
});

afterAll(async () => {
  for (const socket of hangingSockets) socket.destroy();
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections?.();
          server.close(() => resolve());
        }),
    ),
  );
});

beforeEach(() => {
  received = [];
  connections = 0;
  lookups.length = 0;
});

// ---- the prober under test ------------------------------------------------------------------

/** Test names resolve through this lookup only (so every connection proves it is used). */
const HOSTS: Record<string, string> = {
  'probe.test': '127.0.0.1',
  'other.test': '127.0.0.1',
  'slow.test': '127.0.0.1',
};
/** How long slow.test takes to resolve and /pause takes to answer. */
const PAUSE_MS = 40;
const lookups: string[] = [];
const testLookup: LookupFunction = (hostname, options, callback) => {
  lookups.push(hostname);
  setTimeout(
    () => {
      const address = HOSTS[hostname];
      if (hostname === 'blocked.test') {
        callback(Object.assign(new Error('destination not allowed'), { code: 'EPICKETBLOCKED' }), '', 0);
      } else if (address === undefined) {
        const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: 'ENOTFOUND',
          syscall: 'getaddrinfo',
          hostname,
        });
        callback(error, '', 0);
      } else if (options.all) {
        callback(null, [{ address, family: 4 }]);
      } else {
        callback(null, address, 4);
      }
    },
    hostname === 'slow.test' ? PAUSE_MS : 0,
  );
};

function prober(options: HttpsProberOptions = {}) {
  return createHttpsProber({ lookup: testLookup, ca, ...options });
}

function context(timeoutMs = 5000): ProbeContext {
  return { signal: new AbortController().signal, timeoutMs };
}

function probe(
  settings: Partial<HttpsSettings> & { url: string },
  options?: HttpsProberOptions,
): Promise<ProbeOutcome> {
  return prober(options)({ check_certificate_expiration: false, ...settings }, context());
}

function tableWith(https: ProberTable['https']): ProberTable {
  return tableWithOnly('https', https);
}

function requestFor(settings: HttpsSettings, timeoutMs: number): ProbeRequest {
  const monitorId = '0123456789abcdef01234567';
  return {
    check_id: `${monitorId}:1700000000000:eu-west-1`,
    monitor_id: monitorId,
    region: 'eu-west-1',
    scheduled_at: 1_700_000_000_000,
    type: 'https',
    settings,
    timeout_ms: timeoutMs,
  };
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const JSON_DOCUMENT = JSON.stringify({
  status: 'ok',
  version: 'v2.1',
  uptime: 3600,
  checks: [
    { name: 'db', healthy: true, latency_ms: 12 },
    { name: 'queue', healthy: true, latency_ms: 40 },
  ],
  tags: ['eu', 'primary'],
  maintenance: null,
});

// ---- tests ---------------------------------------------------------------------------------

describe('https prober: TLS', () => {
  it('is UP against a valid certificate and reports its notAfter', async () => {
    const outcome = await probe({ url: `${urls.https}/ok`, check_certificate_expiration: true });
    expect(outcome).toMatchObject({
      status: 'up',
      phase: null,
      error: null,
      http_status: 200,
      cert_not_after: NOT_AFTER.getTime() / 1000,
      local_address: '127.0.0.1',
    });
    expect(lookups).toEqual(['probe.test']);
  });

  it('reports no certificate date unless check_certificate_expiration is on', async () => {
    const outcome = await probe({ url: `${urls.https}/ok`, check_certificate_expiration: false });
    expect(outcome.status).toBe('up');
    expect(outcome.cert_not_after).toBeNull();
  });

  it('verifies certificates: the same server is DOWN/tls without the test CA', async () => {
    const outcome = await createHttpsProber({ lookup: testLookup })(
      { url: `${urls.https}/ok`, check_certificate_expiration: true },
      context(),
    );
    expect(outcome).toMatchObject({ status: 'down', phase: 'tls', cert_not_after: null });
    expect(received).toHaveLength(0);
  });

  it('is DOWN/tls for a self-signed certificate', async () => {
    const outcome = await probe({ url: `${urls.selfSigned}/ok` });
    expect(outcome).toMatchObject({ status: 'down', phase: 'tls', error: 'self-signed certificate' });
    expect(received).toHaveLength(0);
  });

  it('is DOWN/tls for an expired certificate', async () => {
    const outcome = await probe({ url: `${urls.expired}/ok`, check_certificate_expiration: true });
    expect(outcome).toMatchObject({ status: 'down', phase: 'tls', error: 'certificate has expired' });
    expect(received).toHaveLength(0);
  });

  it('is DOWN/tls when the certificate does not name the host', async () => {
    const outcome = await probe({ url: `${urls.https.replace('probe.test', 'other.test')}/ok` });
    expect(outcome).toMatchObject({ status: 'down', phase: 'tls', error: 'certificate is not valid for other.test' });
    expect(received).toHaveLength(0);
  });

  it('verifies against the URL host even when the monitor sends its own Host header', async () => {
    const good = await probe({ url: `${urls.https}/ok`, request_headers: 'Host: other.test' });
    expect(good.status).toBe('up');
    expect(received[0]?.headers.host).toBe('other.test');
    const bad = await probe({
      url: `${urls.https.replace('probe.test', 'other.test')}/ok`,
      request_headers: 'Host: probe.test',
    });
    expect(bad).toMatchObject({ status: 'down', phase: 'tls' });
  });

  it('reaches an IPv6 literal, verifying the certificate against the address', async () => {
    const outcome = await probe({ url: `${urls.https6}/ok`, check_certificate_expiration: true });
    expect(outcome).toMatchObject({
      status: 'up',
      http_status: 200,
      cert_not_after: NOT_AFTER.getTime() / 1000,
      local_address: '::1',
    });
    expect(lookups).toEqual([]);
  });
});

describe('https prober: assertions', () => {
  it.each(HTTP_METHODS)('sends the %s method', async (method) => {
    const outcome = await probe({ url: `${urls.http}/ok`, http_method: method });
    expect(outcome.status).toBe('up');
    expect(received.map((r) => r.method)).toEqual([method]);
  });

  it('uses GET by default', async () => {
    await probe({ url: `${urls.http}/ok` });
    expect(received.map((r) => r.method)).toEqual(['GET']);
  });

  it('sends the request headers (repeated names included) and the request body', async () => {
    const outcome = await probe({
      url: `${urls.https}/ok`,
      http_method: 'POST',
      request_headers: 'Content-Type: application/json\nX-Token: abc123\nX-Multi: one\r\nX-Multi: two\n',
      request_body: '{"ping":true}',
    });
    expect(outcome.status).toBe('up');
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.body).toBe('{"ping":true}');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-token']).toBe('abc123');
    expect(request?.headers['x-multi']).toBe('one, two');
  });

  it('sends a request body with GET too', async () => {
    await probe({ url: `${urls.http}/ok`, request_body: 'query-in-body' });
    expect(received.map((r) => [r.method, r.body])).toEqual([['GET', 'query-in-body']]);
  });

  it('identifies itself unless the monitor sets a User-Agent', async () => {
    await probe({ url: `${urls.http}/ok` });
    await probe({ url: `${urls.http}/ok`, request_headers: 'User-Agent: custom-agent/1' });
    expect(received[0]?.headers['user-agent']).toMatch(/^Picket\//);
    expect(received[1]?.headers['user-agent']).toBe('custom-agent/1');
  });

  it('accepts 200-399 by default', async () => {
    expect(await probe({ url: `${urls.http}/status/204` })).toMatchObject({ status: 'up', http_status: 204 });
    expect(await probe({ url: `${urls.http}/status/404` })).toMatchObject({
      status: 'down',
      phase: 'response',
      error: 'HTTP 404',
      http_status: 404,
    });
    expect(await probe({ url: `${urls.http}/status/503` })).toMatchObject({
      status: 'down',
      phase: 'response',
      error: 'HTTP 503',
      http_status: 503,
    });
  });

  it('judges the status against http_statuses codes and ranges', async () => {
    const statuses = '200-204, 418,500-502';
    const verdict = async (code: number) =>
      (await probe({ url: `${urls.http}/status/${code}`, http_statuses: statuses })).status;
    expect(await verdict(200)).toBe('up');
    expect(await verdict(204)).toBe('up');
    expect(await verdict(205)).toBe('down');
    expect(await verdict(418)).toBe('up');
    expect(await verdict(419)).toBe('down');
    expect(await verdict(501)).toBe('up');
    expect(await verdict(503)).toBe('down');
  });

  it('with follow_redirect false judges a 3xx like any status', async () => {
    const accepted = await probe({ url: `${urls.http}/status/302`, follow_redirect: false });
    expect(accepted).toMatchObject({ status: 'up', http_status: 302 });
    const refused = await probe({ url: `${urls.http}/status/301`, follow_redirect: false, http_statuses: '200-299' });
    expect(refused).toMatchObject({ status: 'down', phase: 'response', error: 'HTTP 301', http_status: 301 });
    expect(received.map((r) => r.url)).toEqual(['/status/302', '/status/301']);
  });

  it('is UP when the body contains response_body and DOWN/assertion when not', async () => {
    const found = await probe({ url: `${urls.https}/ok`, response_body: 'from the picket' });
    expect(found).toMatchObject({ status: 'up', http_status: 200 });
    const missing = await probe({ url: `${urls.https}/ok`, response_body: 'not in there' });
    expect(missing).toMatchObject({
      status: 'down',
      phase: 'assertion',
      error: 'response body does not contain the expected text',
      http_status: 200,
    });
  });

  it('searches only the first maxBodyBytes of the body', async () => {
    const options = { maxBodyBytes: 1000 };
    const early = await probe({ url: `${urls.http}/body?size=5000&at=994`, response_body: 'NEEDLE' }, options);
    expect(early.status).toBe('up');
    const straddling = await probe({ url: `${urls.http}/body?size=5000&at=995`, response_body: 'NEEDLE' }, options);
    expect(straddling).toMatchObject({
      status: 'down',
      phase: 'assertion',
      error: 'response body does not contain the expected text (searched the first 1000 bytes)',
    });
    const late = await probe({ url: `${urls.http}/body?size=3000000&at=2000000`, response_body: 'NEEDLE' });
    expect(late).toMatchObject({ status: 'down', phase: 'assertion' });
    const withinDefault = await probe({ url: `${urls.http}/body?size=3000000&at=1000000`, response_body: 'NEEDLE' });
    expect(withinDefault.status).toBe('up');
  });

  it('stops reading an endless body once maxBodyBytes have arrived', async () => {
    const outcome = await prober({ maxBodyBytes: 100_000 })(
      { url: `${urls.http}/endless`, check_certificate_expiration: false, response_body: 'NEEDLE' },
      context(60_000),
    );
    expect(outcome).toMatchObject({ status: 'up', http_status: 200 });
  });

  it('searches the decoded body of a compressed response', async () => {
    const outcome = await probe({ url: `${urls.http}/gzip`, response_body: 'compressed NEEDLE' });
    expect(outcome.status).toBe('up');
  });

  it('never puts the response body or request headers into the error', async () => {
    const outcome = await probe({
      url: `${urls.http}/status/500`,
      request_headers: 'Authorization: Bearer SECRET-HEADER-TOKEN',
      response_body: 'SECRET-BODY',
    });
    expect(outcome).toMatchObject({ status: 'down', phase: 'response' });
    expect(received[0]?.headers.authorization).toBe('Bearer SECRET-HEADER-TOKEN');
    expect(JSON.stringify(outcome)).not.toMatch(/SECRET/);
  });

  /** A request hidden in the body: sent as a second request if the monitor's Content-Length could frame the first. */
  const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: probe.test\r\n\r\n';

  it("never lets the monitor's Content-Length smuggle a second request out of the body", async () => {
    // Settings that skipped validation (stored before it refused them, or a message that bypassed it).
    const outcome = await probe({
      url: `${urls.http}/ok`,
      http_method: 'POST',
      request_headers: 'Content-Length: 0\nConnection: keep-alive',
      request_body: smuggled,
    });
    expect(outcome).toMatchObject({ status: 'up', http_status: 200 });
    // A smuggled request would arrive just after the first answer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received.map((r) => [r.method, r.url, r.body])).toEqual([['POST', '/ok', smuggled]]);
  });

  it('never sends framing, hop-by-hop or pseudo-headers, even when they arrive', async () => {
    const outcome = await probe({
      url: `${urls.http}/ok`,
      http_method: 'POST',
      request_headers: [
        'Content-Length: 0',
        'Transfer-Encoding: chunked',
        'Connection: keep-alive',
        'Keep-Alive: timeout=60',
        'Proxy-Connection: keep-alive',
        'TE: trailers',
        'Trailer: X-Checksum',
        'Upgrade: h2c',
        'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA',
        'Expect: 100-continue',
        'Host: one.test',
        'Host: two.test',
        ':authority: other.test',
        'X-Kept: yes',
      ].join('\n'),
      request_body: smuggled,
    });
    expect(outcome).toMatchObject({ status: 'up', http_status: 200 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received.map((r) => [r.method, r.url, r.body])).toEqual([['POST', '/ok', smuggled]]);
    const [request] = received;
    const names = (request?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    expect(names.filter((name) => name === 'host')).toHaveLength(1);
    expect(request?.headers.host).toBe(new URL(urls.http).host);
    expect(request?.headers['content-length']).toBe(String(Buffer.byteLength(smuggled)));
    expect(request?.headers.connection).toBe('close');
    expect(request?.headers['x-kept']).toBe('yes');
    for (const name of [
      'transfer-encoding',
      'keep-alive',
      'proxy-connection',
      'te',
      'trailer',
      'upgrade',
      'http2-settings',
      'expect',
    ]) {
      expect(`${name}: ${String(request?.headers[name])}`).toBe(`${name}: undefined`);
    }
  });
});

describe('https prober: response_body_absent, json_assertions, ignore_tls_errors', () => {
  it('is DOWN/assertion when the body contains response_body_absent, UP when it does not', async () => {
    expect(await probe({ url: `${urls.http}/ok`, response_body_absent: 'maintenance' })).toMatchObject({
      status: 'up',
    });
    expect(await probe({ url: `${urls.http}/ok`, response_body_absent: 'picket tests' })).toMatchObject({
      status: 'down',
      phase: 'assertion',
      error: 'response body contains the text it must not contain',
      http_status: 200,
    });
  });

  it('is UP when every JSON assertion holds', async () => {
    const outcome = await probe({
      url: `${urls.https}/json`,
      json_assertions: [
        { path: '$.status', op: 'eq', value: 'ok' },
        { path: '$.checks[*].healthy', op: 'eq', value: true },
        { path: '$.checks[*].latency_ms', op: 'lt', value: 100 },
        { path: '$.uptime', op: 'gt', value: 60 },
        { path: '$.tags', op: 'contains', value: 'primary' },
        { path: '$.version', op: 'contains', value: 'v2' },
        { path: '$.status', op: 'ne', value: 'degraded' },
        { path: "$.checks[?@.name == 'db']", op: 'exists' },
        { path: '$.error', op: 'exists', value: false },
      ],
    });
    expect(outcome).toMatchObject({ status: 'up', error: null });
  });

  it('names the failing assertion, its path, what was expected and what was found', async () => {
    const failing = (json_assertions: HttpsSettings['json_assertions']) =>
      probe({ url: `${urls.https}/json`, json_assertions });
    expect(await failing([{ path: '$.status', op: 'eq', value: 'degraded' }])).toMatchObject({
      status: 'down',
      phase: 'assertion',
      error: 'json_assertions[0] $.status eq "degraded": got "ok"',
      http_status: 200,
    });
    expect(
      await failing([
        { path: '$.status', op: 'eq', value: 'ok' },
        { path: '$.checks[*].latency_ms', op: 'lt', value: 20 },
      ]),
    ).toMatchObject({ error: 'json_assertions[1] $.checks[*].latency_ms lt 20: got 40' });
    expect(await failing([{ path: '$.missing', op: 'exists' }])).toMatchObject({
      error: 'json_assertions[0] $.missing exists: nothing at the path',
    });
    expect(await failing([{ path: '$.missing', op: 'eq', value: 1 }])).toMatchObject({
      error: 'json_assertions[0] $.missing eq 1: nothing at the path',
    });
    expect(await failing([{ path: '$.maintenance', op: 'exists', value: false }])).toMatchObject({
      error: 'json_assertions[0] $.maintenance exists: found null',
    });
    expect(await failing([{ path: '$.version', op: 'gt', value: 1 }])).toMatchObject({
      error: 'json_assertions[0] $.version gt 1: got "v2.1"',
    });
  });

  it('is DOWN/assertion when the body is not JSON, or too large to judge', async () => {
    const assertions: HttpsSettings['json_assertions'] = [{ path: '$.a', op: 'exists' }];
    expect(await probe({ url: `${urls.http}/ok`, json_assertions: assertions })).toMatchObject({
      status: 'down',
      phase: 'assertion',
      error: 'response body is not JSON (json_assertions)',
    });
    const small = createHttpsProber({ lookup: testLookup, maxBodyBytes: 16 });
    expect(
      await small(
        { url: `${urls.http}/json`, check_certificate_expiration: false, json_assertions: assertions },
        context(),
      ),
    ).toMatchObject({
      status: 'down',
      phase: 'assertion',
      error: 'response body is larger than 16 bytes: too large for JSON assertions',
    });
  });

  it('with ignore_tls_errors reaches self-signed and expired certificates and still reports their expiry', async () => {
    // One prober for every check: its verifying client stays as it was.
    const one = prober();
    const check = (settings: Partial<HttpsSettings> & { url: string }) =>
      one({ check_certificate_expiration: true, ...settings }, context());
    const selfSigned = await check({ url: `${urls.selfSigned}/ok`, ignore_tls_errors: true });
    expect(selfSigned).toMatchObject({ status: 'up', http_status: 200, cert_not_after: expect.any(Number) });
    const expired = await check({ url: `${urls.expired}/ok`, ignore_tls_errors: true });
    expect(expired).toMatchObject({ status: 'up' });
    expect(expired.cert_not_after! * 1000).toBeLessThan(Date.now());
    expect(await check({ url: `${urls.selfSigned}/ok` })).toMatchObject({ status: 'down', phase: 'tls' });
    expect(await check({ url: `${urls.expired}/ok`, ignore_tls_errors: false })).toMatchObject({
      status: 'down',
      error: 'certificate has expired',
    });
  });
});

describe('https prober: redirects', () => {
  it('follows redirects by default, each hop over a new connection', async () => {
    const outcome = await probe({ url: `${urls.http}/redirect/3`, response_body: 'landed' });
    expect(outcome).toMatchObject({ status: 'up', http_status: 200 });
    expect(received.map((r) => r.url)).toEqual(['/redirect/3', '/redirect/2', '/redirect/1', '/redirect/0']);
    expect(connections).toBe(4);
  });

  it(`follows a chain of ${HTTPS_LIMITS.redirects} redirects and is DOWN at one more`, async () => {
    const limit = HTTPS_LIMITS.redirects;
    expect(await probe({ url: `${urls.http}/redirect/${limit}` })).toMatchObject({ status: 'up', http_status: 200 });
    expect(received).toHaveLength(limit + 1);
    received = [];
    const over = await probe({ url: `${urls.http}/redirect/${limit + 1}` });
    expect(over).toMatchObject({
      status: 'down',
      phase: 'response',
      error: `too many redirects (more than ${limit})`,
      http_status: 302,
    });
    expect(received).toHaveLength(limit + 1);
  });

  it("keeps the monitor's own headers on same-origin hops and drops them on a redirect to another origin", async () => {
    const headers = 'X-Api-Key: s3cret\nAccept: text/plain';
    const port = new URL(urls.http).port;
    const same = await probe({ url: `${urls.http}/go?to=/ok`, request_headers: headers });
    expect(same.status).toBe('up');
    expect(received.map((r) => r.headers['x-api-key'])).toEqual(['s3cret', 's3cret']);
    received = [];
    // 127.0.0.1 and probe.test (the test lookup maps it to 127.0.0.1) are different origins.
    const other = await probe({
      url: `${urls.http}/go?to=${encodeURIComponent(`http://probe.test:${port}/ok`)}`,
      request_headers: headers,
    });
    expect(other.status).toBe('up');
    expect(received.map((r) => r.headers['x-api-key'])).toEqual(['s3cret', undefined]);
    expect(received.map((r) => r.headers.accept)).toEqual(['text/plain', undefined]);
    expect(received[1]?.headers['user-agent']).toMatch(/^Picket\//);
  });

  it('follows a redirect from http to https and reports the final certificate', async () => {
    const to = encodeURIComponent(`${urls.https}/ok`);
    const outcome = await probe({ url: `${urls.http}/go?to=${to}`, check_certificate_expiration: true });
    expect(outcome).toMatchObject({ status: 'up', http_status: 200, cert_not_after: NOT_AFTER.getTime() / 1000 });
    expect(received.map((r) => r.url)).toEqual([`/go?to=${to}`, '/ok']);
  });

  it('reports no certificate when the final hop is plain http', async () => {
    const to = encodeURIComponent(`${urls.http}/ok`);
    const outcome = await probe({ url: `${urls.https}/go?to=${to}`, check_certificate_expiration: true });
    expect(outcome).toMatchObject({ status: 'up', http_status: 200, cert_not_after: null });
  });

  it('verifies the certificate of a hop reached by redirect', async () => {
    const to = encodeURIComponent(`${urls.expired}/ok`);
    const outcome = await probe({ url: `${urls.http}/go?to=${to}` });
    expect(outcome).toMatchObject({ status: 'down', phase: 'tls', error: 'certificate has expired' });
  });
});

describe('https prober: failures', () => {
  it('is DOWN/connect when the port is closed', async () => {
    const outcome = await probe({ url: `http://127.0.0.1:${closedPort}/` });
    expect(outcome).toMatchObject({ status: 'down', phase: 'connect', error: 'connection refused', http_status: null });
  });

  it('is DOWN/dns when the name does not resolve', async () => {
    const outcome = await probe({ url: 'https://missing.test/' });
    expect(outcome).toMatchObject({ status: 'down', phase: 'dns', error: 'host name not found' });
    expect(lookups).toEqual(['missing.test']);
  });

  it('resolves with the system resolver when given no lookup', async () => {
    const outcome = await createHttpsProber()(
      { url: urls.http.replace('127.0.0.1', 'localhost') + '/ok', check_certificate_expiration: false },
      context(),
    );
    expect(outcome).toMatchObject({ status: 'up', http_status: 200 });
    expect(outcome.timings.dns_ms).toEqual(expect.any(Number));
    expect(lookups).toEqual([]);
  });

  it('is DOWN/dns when the lookup refuses with a code of its own', async () => {
    const outcome = await probe({ url: 'https://blocked.test/' });
    expect(outcome).toMatchObject({ status: 'down', phase: 'dns', error: 'DNS lookup failed (EPICKETBLOCKED)' });
    expect(connections).toBe(0);
  });

  it('is DOWN/response when the server drops the connection without answering', async () => {
    const outcome = await probe({ url: `${urls.http}/reset` });
    expect(outcome).toMatchObject({ status: 'down', phase: 'response', http_status: null });
    expect(outcome.error).toMatch(/^connection closed/);
  });

  it('is DOWN/response for a response that is not HTTP', async () => {
    const outcome = await probe({ url: `${urls.http}/garbage` });
    expect(outcome).toMatchObject({ status: 'down', phase: 'response' });
    expect(outcome.error).toMatch(/^invalid HTTP response \(HPE_/);
  });

  it('is DOWN/response when the body ends before its announced length', async () => {
    const outcome = await probe({ url: `${urls.http}/short` });
    expect(outcome).toMatchObject({
      status: 'down',
      phase: 'response',
      error: 'connection closed while reading the response',
      http_status: null,
    });
  });

  it('is DOWN/response when a compressed body cannot be decoded', async () => {
    const outcome = await probe({ url: `${urls.http}/bad-gzip`, response_body: 'anything' });
    expect(outcome).toMatchObject({ status: 'down', phase: 'response', error: 'could not decode the response body' });
  });

  it.each([
    ['an unsupported protocol', 'ftp://probe.test/file', 'redirect to an invalid or unsupported URL'],
    ['an invalid URL', 'http://[nonsense/', 'redirect to an invalid or unsupported URL'],
    ['a UNIX socket', 'http://unix:/var/run/docker.sock:/info', 'request failed: Cannot redirect to UNIX socket'],
  ])('is DOWN/response for a redirect to %s', async (_what, location, error) => {
    const outcome = await probe({ url: `${urls.http}/go?to=${encodeURIComponent(location)}` });
    expect(outcome).toMatchObject({ status: 'down', phase: 'response', error });
    expect(received).toHaveLength(1);
  });

  it('is DOWN/tls when an https URL reaches a plain http server', async () => {
    const outcome = await probe({ url: `${urls.http.replace('http:', 'https:')}/ok` });
    expect(outcome).toMatchObject({ status: 'down', phase: 'tls' });
  });
});

describe('https prober: deadline and cancellation', () => {
  it('is DOWN/timeout at the deadline when the server accepts but never answers', async () => {
    const result = await runProbe(
      tableWith(prober()),
      requestFor({ url: `${urls.hanging}/`, check_certificate_expiration: false }, 300),
      { agentId: 'test-agent', clock: systemClock },
    );
    expect(result).toMatchObject({
      status: 'down',
      phase: 'timeout',
      error: 'timed out after 300 ms',
      checker_ip: '127.0.0.1',
    });
    expect(result.response_time_ms).toEqual(expect.any(Number));
    expect(connections).toBe(1);
  });

  it('is DOWN/timeout when the body stalls past the deadline', async () => {
    const result = await runProbe(
      tableWith(prober()),
      requestFor({ url: `${urls.http}/stall-body`, check_certificate_expiration: false }, 300),
      { agentId: 'test-agent', clock: systemClock },
    );
    expect(result).toMatchObject({ status: 'down', phase: 'timeout', error: 'timed out after 300 ms' });
  });

  it('is UNKNOWN when stopped for another reason than the deadline', async () => {
    const stop = new AbortController();
    const pending = runProbe(
      tableWith(prober()),
      requestFor({ url: `${urls.hanging}/`, check_certificate_expiration: false }, 60_000),
      { agentId: 'test-agent', clock: systemClock, signal: stop.signal },
    );
    await waitFor(() => hangingSockets.size > 0);
    stop.abort(new Error('agent stopping'));
    const result = await pending;
    expect(result).toMatchObject({
      status: 'unknown',
      phase: 'internal',
      error: 'probe cancelled by the agent',
      response_time_ms: null,
    });
  });

  it('does not connect at all when the signal is already aborted', async () => {
    const stop = new AbortController();
    stop.abort(new Error('agent stopping'));
    const outcome = await prober()(
      { url: `${urls.http}/ok`, check_certificate_expiration: false },
      { signal: stop.signal, timeoutMs: 5000 },
    );
    expect(outcome.status).toBe('unknown');
    expect(connections).toBe(0);
    expect(received).toHaveLength(0);
  });
});

describe('https prober: timings and connections', () => {
  const phasesFit = (outcome: ProbeOutcome) => {
    const { dns_ms = 0, connect_ms = 0, tls_ms = 0, first_byte_ms = 0, total_ms } = outcome.timings;
    for (const value of [dns_ms, connect_ms, tls_ms, first_byte_ms]) expect(value).toBeGreaterThanOrEqual(0);
    expect(dns_ms + connect_ms + tls_ms + first_byte_ms).toBeLessThanOrEqual(total_ms);
  };

  it('measures dns, connect, tls and first byte within the total over https', async () => {
    const outcome = await probe({ url: `${urls.https}/ok` });
    expect(outcome.status).toBe('up');
    expect(outcome.timings).toEqual({
      dns_ms: expect.any(Number),
      connect_ms: expect.any(Number),
      tls_ms: expect.any(Number),
      first_byte_ms: expect.any(Number),
      total_ms: expect.any(Number),
    });
    phasesFit(outcome);
  });

  it('leaves out the phases that did not happen (IP literal, plain http)', async () => {
    const outcome = await probe({ url: `${urls.http}/ok` });
    expect(outcome.timings).toEqual({
      connect_ms: expect.any(Number),
      first_byte_ms: expect.any(Number),
      total_ms: expect.any(Number),
    });
    phasesFit(outcome);
  });

  it('sums the phases over redirect hops', async () => {
    // http (IP literal) → https (name) → http (IP literal): only the middle hop resolves and shakes hands.
    const back = encodeURIComponent(`${urls.http}/ok`);
    const to = encodeURIComponent(`${urls.https}/go?to=${back}`);
    const outcome = await probe({ url: `${urls.http}/go?to=${to}` });
    expect(outcome.status).toBe('up');
    expect(received.map((r) => r.url)).toEqual([`/go?to=${to}`, `/go?to=${back}`, '/ok']);
    expect(Object.keys(outcome.timings).sort()).toEqual([
      'connect_ms',
      'dns_ms',
      'first_byte_ms',
      'tls_ms',
      'total_ms',
    ]);
    phasesFit(outcome);
    expect(connections).toBe(3);
  });

  it('adds up each phase over the hops (checked against delays the test controls)', async () => {
    const port = new URL(urls.http).port;
    const outcome = await probe({ url: `http://slow.test:${port}/pause?to=%2Fpause` });
    expect(outcome).toMatchObject({ status: 'up', http_status: 200 });
    expect(lookups).toEqual(['slow.test', 'slow.test']);
    // Two lookups and two answers, each held back PAUSE_MS (timers may fire up to 1 ms early).
    expect(outcome.timings.dns_ms).toBeGreaterThanOrEqual(2 * (PAUSE_MS - 1));
    expect(outcome.timings.first_byte_ms).toBeGreaterThanOrEqual(2 * (PAUSE_MS - 1));
    phasesFit(outcome);
  });

  it('keeps partial timings of a failed check', async () => {
    const outcome = await probe({ url: `${urls.selfSigned}/ok` });
    expect(outcome.timings.dns_ms).toEqual(expect.any(Number));
    expect(outcome.timings.connect_ms).toEqual(expect.any(Number));
    expect(outcome.timings.first_byte_ms).toBeUndefined();
    phasesFit(outcome);
  });

  it('opens a fresh connection for every check, without keep-alive', async () => {
    const check = prober();
    await check({ url: `${urls.https}/ok`, check_certificate_expiration: false }, context());
    await check({ url: `${urls.https}/ok`, check_certificate_expiration: false }, context());
    expect(connections).toBe(2);
    expect(received.map((r) => r.headers.connection)).toEqual(['close', 'close']);
  });
});
