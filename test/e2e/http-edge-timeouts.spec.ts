import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config.js';
import { CapturingLogger, startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { parseRawResponse, rawExchange, type RawExchange } from '../support/raw-http.js';
import { testPki } from '../support/tls.js';

/**
 * Slow clients (docs/decisions/0017-http-edge-hardening.md): headers must arrive within
 * HTTP_HEADERS_TIMEOUT_SECONDS and the whole request within HTTP_REQUEST_TIMEOUT_SECONDS, with or
 * without an API key. The limits are 1 s and 2 s here so the suite takes seconds; the waits below
 * are only bounds for the close (limit + Node's check interval + slack), never performance claims.
 */
const HEADERS_S = 1;
const REQUEST_S = 2;
/** Longest a slow connection may stay open: the request limit, plus generous slack for a loaded machine. */
const CLOSE_BOUND_MS = REQUEST_S * 1000 + 4000;
/** Headers, then a body that never comes whole (no API key). */
const SLOW_BODY =
  'POST /api/monitors HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{';

describe('slow clients', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let port: number;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, {
      env: {
        DISPATCH_ENABLED: 'false',
        HTTP_HEADERS_TIMEOUT_SECONDS: String(HEADERS_S),
        HTTP_REQUEST_TIMEOUT_SECONDS: String(REQUEST_S),
      },
      logger,
    });
    port = Number(new URL(c.baseUrl).port);
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  /** Closed by the server within the bound; whatever it said first is our 400 envelope. */
  const expectClosedByServer = (exchange: RawExchange) => {
    expect(exchange.closedAfterMs).not.toBeNull();
    // The answer may be lost to the reset of a connection the client is still writing to; when it
    // arrives it is ours.
    const answer = parseRawResponse(exchange.received);
    if (answer !== null) {
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({
        status: 'error',
        error: { code: 'INVALID_JSON', message: expect.stringContaining('not received in time') },
      });
    }
  };

  it('closes a connection whose body trickles in (no API key needed)', async () => {
    expectClosedByServer(await rawExchange(port, SLOW_BODY, { drip: ' ', dripEveryMs: 100, waitMs: CLOSE_BOUND_MS }));
  });

  it('closes a connection whose body stops after the headers', async () => {
    expectClosedByServer(await rawExchange(port, SLOW_BODY, { waitMs: CLOSE_BOUND_MS }));
  });

  it('closes a connection whose headers trickle in', async () => {
    const head = 'GET /api/monitors HTTP/1.1\r\nHost: 127.0.0.1\r\n';
    expectClosedByServer(
      await rawExchange(port, head, { drip: 'X-Slow: a\r\n', dripEveryMs: 100, waitMs: CLOSE_BOUND_MS }),
    );
  });

  it('closes a connection that sends half a request line and stops', async () => {
    expectClosedByServer(await rawExchange(port, 'GET /api/moni', { waitMs: CLOSE_BOUND_MS }));
  });

  it('closes a connection that never sends a byte', async () => {
    expectClosedByServer(await rawExchange(port, '', { waitMs: CLOSE_BOUND_MS }));
  });

  it('closes every one of many slow connections at once', async () => {
    const all = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        rawExchange(port, i % 2 === 0 ? SLOW_BODY : 'GET / HTTP/1.1\r\n', {
          drip: i % 2 === 0 ? ' ' : 'X-Slow: a\r\n',
          dripEveryMs: 200,
          waitMs: CLOSE_BOUND_MS,
        }),
      ),
    );
    expect(all.filter((exchange) => exchange.closedAfterMs === null)).toHaveLength(0);
  });

  it('leaves an idle keep-alive connection alone between requests, past the header limit', async () => {
    const get = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    // Ask once, wait longer than the header limit with nothing sent, ask again on the same connection.
    const exchange = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.once('error', reject);
      socket.on('connect', () => {
        socket.write(get);
        setTimeout(() => socket.write(get), HEADERS_S * 1000 + 800);
        setTimeout(
          () => {
            socket.destroy();
            resolve(received);
          },
          HEADERS_S * 1000 + 1600,
        );
      });
    });
    expect(exchange.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
  });

  it('keeps serving, and logged no error for any of it', async () => {
    const res = await fetch(`${c.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(logger.lines.filter((line) => line.startsWith('error'))).toEqual([]);
  });
});

describe('slow clients over HTTPS', () => {
  // Fastify ignores its `http` server options when it serves HTTPS: the limits must reach the TLS server too.
  const dir = mkdtempSync(join(tmpdir(), 'picket-slow-tls-'));
  let db: TestDatabase;
  let c: RunningCoordinator;
  let ca = '';

  beforeAll(async () => {
    const pki = await testPki();
    ca = pki.ca;
    writeFileSync(join(dir, 'cert.pem'), pki.server.cert);
    writeFileSync(join(dir, 'key.pem'), pki.server.key);
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, {
      env: {
        DISPATCH_ENABLED: 'false',
        TLS_CERT_FILE: join(dir, 'cert.pem'),
        TLS_KEY_FILE: join(dir, 'key.pem'),
        HTTP_HEADERS_TIMEOUT_SECONDS: String(HEADERS_S),
        HTTP_REQUEST_TIMEOUT_SECONDS: String(REQUEST_S),
      },
    });
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('closes a connection whose body trickles in', async () => {
    const port = Number(new URL(c.baseUrl).port);
    const closedAfterMs = await new Promise<number | null>((resolve) => {
      const started = Date.now();
      const socket = connectTls({ host: '127.0.0.1', port, ca, servername: 'localhost' });
      const drip = setInterval(() => socket.writable && socket.write(' '), 100);
      const bound = setTimeout(() => {
        clearInterval(drip);
        socket.destroy();
        resolve(null);
      }, CLOSE_BOUND_MS);
      socket.on('error', () => undefined);
      socket.on('secureConnect', () => socket.write(SLOW_BODY));
      socket.on('close', () => {
        clearInterval(drip);
        clearTimeout(bound);
        resolve(Date.now() - started);
      });
    });
    expect(closedAfterMs).not.toBeNull();
  });
});

describe('HTTP_HEADERS_TIMEOUT_SECONDS and HTTP_REQUEST_TIMEOUT_SECONDS', () => {
  it('default to 10 s and 30 s', () => {
    const config = loadCoordinatorConfig({});
    expect([config.HTTP_HEADERS_TIMEOUT_SECONDS, config.HTTP_REQUEST_TIMEOUT_SECONDS]).toEqual([10, 30]);
  });

  it.each([
    [{ HTTP_HEADERS_TIMEOUT_SECONDS: '0' }, 'HTTP_HEADERS_TIMEOUT_SECONDS'],
    [{ HTTP_HEADERS_TIMEOUT_SECONDS: '1.5' }, 'HTTP_HEADERS_TIMEOUT_SECONDS'],
    [{ HTTP_REQUEST_TIMEOUT_SECONDS: '3601' }, 'HTTP_REQUEST_TIMEOUT_SECONDS'],
    [{ HTTP_REQUEST_TIMEOUT_SECONDS: 'soon' }, 'HTTP_REQUEST_TIMEOUT_SECONDS'],
    [{ HTTP_HEADERS_TIMEOUT_SECONDS: '20', HTTP_REQUEST_TIMEOUT_SECONDS: '10' }, 'may not exceed'],
  ])('refuses %j at boot', (env, named) => {
    expect(() => loadCoordinatorConfig(env)).toThrow(ConfigError);
    expect(() => loadCoordinatorConfig(env)).toThrow(named);
  });
});
