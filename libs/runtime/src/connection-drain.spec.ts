import { afterEach, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { Agent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { generate } from 'selfsigned';
import { drainConnectionsOnClose } from './connection-drain.js';

/**
 * Each test closes a server while a client holds a connection that Node's own close leaves open
 * (for 72 s, Fastify's keep-alive timeout, or 120 s): without the drain the close does not
 * finish and the test runs out of time. The answers must still arrive whole.
 */
const BODY = 'x'.repeat(200_000);

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

describe('drainConnectionsOnClose', () => {
  let app: FastifyInstance | undefined;
  let release: () => void = () => undefined;
  /** Settles when `/slow` has its request: only from then is the answer under way at close. */
  let arrived: Promise<void> = Promise.resolve();

  afterEach(async () => {
    release();
    await app?.close();
    app = undefined;
  });

  /** A server whose `/slow` answers when the test says so, and `/fast` at once. */
  async function serve(tls?: { key: string; cert: string }): Promise<number> {
    const options = { logger: false, keepAliveTimeout: 72_000, connectionTimeout: 120_000 };
    app = tls ? Fastify({ ...options, https: tls }) : Fastify(options);
    drainConnectionsOnClose(app);
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached: () => void = () => undefined;
    arrived = new Promise<void>((resolve) => (reached = resolve));
    app.get('/slow', async () => {
      reached();
      await gate;
      return BODY;
    });
    app.get('/fast', async () => 'ok');
    await app.listen({ port: 0, host: '127.0.0.1' });
    return (app.server.address() as { port: number }).port;
  }

  function get(port: number, path: string, agent: Agent, tls = false): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const send = tls ? httpsRequest : httpRequest;
      send({ host: '127.0.0.1', port, path, agent, rejectUnauthorized: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      })
        .once('error', reject)
        .end();
    });
  }

  /** Until the server no longer listens: its close has begun, the answer under way is not out yet. */
  async function listenerClosed(): Promise<void> {
    while (app!.server.listening) await new Promise((resolve) => setImmediate(resolve));
  }

  it('ends a keep-alive connection once the answer under way at close is out, whole', async () => {
    const port = await serve();
    const agent = new Agent({ keepAlive: true });
    const answer = get(port, '/slow', agent);
    // A fixed wait raced a loaded CI machine: a connection whose request has not arrived by the
    // close is ended by design (nothing is under way on it), and the client saw ECONNRESET.
    await arrived;
    const closed = app!.close();
    await listenerClosed();
    release();
    await expect(answer).resolves.toEqual({ status: 200, connection: 'keep-alive', body: BODY });
    await closed;
    app = undefined;
    agent.destroy();
  });

  it('does the same over TLS', async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec' });
    const port = await serve({ key: pems.private, cert: pems.cert });
    const agent = new HttpsAgent({ keepAlive: true });
    const answer = get(port, '/slow', agent, true);
    await arrived;
    const closed = app!.close();
    await listenerClosed();
    release();
    await expect(answer).resolves.toMatchObject({ status: 200, body: BODY });
    await closed;
    app = undefined;
    agent.destroy();
  });

  it('closes a connection that never sent a request', async () => {
    const port = await serve();
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const gone = new Promise((resolve) => socket.once('close', resolve));
    await app!.close();
    app = undefined;
    await gone;
  });
});
