import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ApiClient } from '../support/api-client.js';
import { CapturingLogger, startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { parseRawResponse, plainRequest, rawExchange, type RawResponse } from '../support/raw-http.js';

/**
 * The HTTP edge against malformed and unusual requests (docs/decisions/0017-http-edge-hardening.md):
 * a body declared in another charset than UTF-8 is 415, every method Node accepts but no route
 * takes is 405 with Allow on a known path, and broken HTTP framing is answered with our error
 * envelope, never Fastify's or Node's own body.
 */
describe('the HTTP edge', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let port: number;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, { env: { DISPATCH_ENABLED: 'false' }, logger });
    api = (await c.newAccount()).client;
    port = Number(new URL(c.baseUrl).port);
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  /** The answer must be exactly our envelope with this code. */
  const expectEnvelope = (res: RawResponse | null, status: number, code: string) => {
    expect(res).not.toBeNull();
    expect({ status: res!.status, type: res!.headers['content-type'] }).toEqual({
      status,
      type: 'application/json; charset=utf-8',
    });
    expect(JSON.parse(res!.body)).toEqual({ status: 'error', error: { code, message: expect.any(String) } });
  };

  describe('charset of a JSON body', () => {
    // An empty object: a body read as JSON is then refused field by field (422), which tells it was read.
    const post = (contentType: string, body: Buffer = Buffer.from('{}')) =>
      api.request('POST', '/api/monitors', { raw: body, headers: { 'content-type': contentType } });

    it.each([
      'application/json; charset=utf-16',
      'application/json; charset=UTF-16LE',
      'application/json;charset=latin1',
      'application/json; charset=ISO-8859-1',
      'application/json; charset="utf-16"',
      'application/json; CHARSET=us-ascii',
      'application/json; charset=',
      'application/json; charset=utf-8; charset=utf-16',
    ])('refuses %s with 415 UNSUPPORTED_MEDIA_TYPE', async (contentType) => {
      const res = await post(contentType, Buffer.from('{}', contentType.includes('16') ? 'utf16le' : 'latin1'));
      expect(res.status).toBe(415);
      expect(res.body).toEqual({
        status: 'error',
        error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) },
      });
    });

    it('refuses it before the API key is looked at, like any body it cannot read', async () => {
      const res = await c.client().request('POST', '/api/monitors', {
        raw: '{}',
        headers: { 'content-type': 'application/json; charset=latin1' },
      });
      expect(res.status).toBe(415);
    });

    it.each([
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=UTF-8',
      'application/json;charset="utf-8"',
      'application/json; charset=utf8',
      'Application/JSON; Charset=Utf-8; foo=bar',
    ])('reads %s as UTF-8', async (contentType) => {
      const res = await post(contentType);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('methods no route takes', () => {
    const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      plainRequest(port, method, path, headers, body);

    // Every method Node's parser accepts, besides those with routes, CONNECT (a tunnel: Node closes
    // the socket) and HEAD (an answer without body).
    const UNROUTED = ['QUERY', 'PROPFIND', 'PROPPATCH', 'SEARCH', 'REPORT', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'];
    const MORE = ['TRACE', 'PURGE', 'LINK', 'UNLINK', 'BIND', 'REBIND', 'UNBIND', 'ACL', 'MKACTIVITY', 'CHECKOUT'];
    const EVEN_MORE = ['MERGE', 'M-SEARCH', 'NOTIFY', 'SUBSCRIBE', 'UNSUBSCRIBE', 'MKCALENDAR', 'SOURCE', 'OPTIONS'];

    it.each([...UNROUTED, ...MORE, ...EVEN_MORE])('%s on a known path is 405 with Allow', async (method) => {
      for (const [path, allow] of [
        ['/api/monitors', 'GET, HEAD, POST'],
        ['/status/0123456789abcdef01234567.json', 'GET, HEAD'],
      ] as const) {
        const res = await call(method, path);
        expect({ method, path, status: res.status, allow: res.headers.allow }).toEqual({
          method,
          path,
          status: 405,
          allow,
        });
        expect(res.body).toEqual({
          status: 'error',
          error: { code: 'METHOD_NOT_ALLOWED', message: `${method} is not allowed on this path.` },
        });
      }
    });

    it('QUERY is 405 whatever its body or Content-Type, and 404 on an unknown path', async () => {
      const json = { 'content-type': 'application/json' };
      expect((await call('QUERY', '/api/monitors', json, '{}')).status).toBe(405);
      expect((await call('QUERY', '/api/monitors', json, '{"broken')).status).toBe(405);
      expect((await call('QUERY', '/api/monitors', { 'content-type': 'text/plain' }, 'x')).status).toBe(405);
      expect((await call('QUERY', '/api/monitors', { authorization: `Bearer ${api.apiKey!}` })).status).toBe(405);
      const unknown = await call('QUERY', '/api/nothing-here');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('NOT_FOUND');
    });

    it('answers a wrong method before reading the body', async () => {
      const res = await call('DELETE', '/api/monitors', { 'content-type': 'application/json' }, '{"broken');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, POST');
    });
  });

  describe('broken HTTP framing', () => {
    const HEAD = 'POST /api/monitors HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';

    it.each([
      ['an invalid Content-Length', `${HEAD}Content-Length: abc\r\n\r\n{}`],
      ['a negative Content-Length', `${HEAD}Content-Length: -2\r\n\r\n{}`],
      ['two different Content-Lengths', `${HEAD}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
      [
        'Content-Length and Transfer-Encoding',
        `${HEAD}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      ],
      ['a bad chunk size', `${HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
      ['a chunk longer than its size', `${HEAD}Transfer-Encoding: chunked\r\n\r\n1\r\n{}}\r\n0\r\n\r\n`],
      ['an unknown transfer coding', `${HEAD}Transfer-Encoding: gzip, chunked, rot13\r\n\r\n0\r\n\r\n`],
      ['an obsolete folded header', `${HEAD}X-Folded: a\r\n  b\r\nContent-Length: 2\r\n\r\n{}`],
      ['a space before the colon', `${HEAD}Content-Length : 2\r\n\r\n{}`],
      ['a NUL in a header', `${HEAD}X-Nul: a\u0000b\r\nContent-Length: 2\r\n\r\n{}`],
      ['a bare LF line ending', 'GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n'],
      ['an unknown method token', 'FETCH /api/monitors HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['a lower-case method', 'get /api/monitors HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['a space in the target', 'GET /api/mon itors HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['an unknown HTTP version', 'GET /healthz HTTP/7.1\r\nHost: 127.0.0.1\r\n\r\n'],
      ['a TLS handshake on the plain port', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u00fc\u0003\u0003'],
      ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`],
    ])('%s: 400 in our envelope, and the connection closed', async (_name, text) => {
      const exchange = await rawExchange(port, Buffer.from(text, 'latin1'));
      expectEnvelope(parseRawResponse(exchange.received), 400, 'INVALID_JSON');
      expect(parseRawResponse(exchange.received)!.headers.connection).toBe('close');
      expect(exchange.closedAfterMs).not.toBeNull();
    });

    it('a client that goes away in the middle of a body: nothing logged as an error', async () => {
      const exchange = await rawExchange(port, `${HEAD}Content-Length: 10\r\n\r\n{}`, { waitMs: 200 });
      expect(exchange.received).toBe('');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(logger.lines.filter((line) => line.startsWith('error'))).toEqual([]);
    });

    it('the server keeps serving, and logged no error for any of it', async () => {
      expect((await api.get('/api/monitors')).status).toBe(200);
      expect(logger.lines.filter((line) => line.startsWith('error'))).toEqual([]);
    });
  });
});
