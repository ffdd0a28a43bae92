import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { testPki } from './tls.js';

export interface RecordedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingMessage['headers'];
  /** The exact bytes received. */
  raw: Buffer;
  /** `raw` parsed as JSON, or undefined. */
  json: unknown;
}

export type ReceiverHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

/**
 * A fake destination on 127.0.0.1 (https with the test CA, or plain http) that records every
 * request and answers through `handler`, which a test can swap to produce each error shape.
 */
export class FakeReceiver {
  readonly requests: RecordedRequest[] = [];
  handler: ReceiverHandler;
  private server?: Server;
  baseUrl = '';

  constructor(handler: ReceiverHandler) {
    this.handler = handler;
  }

  async start(options: { https: boolean } = { https: true }): Promise<this> {
    const listener = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
        } catch {
          json = undefined;
        }
        const recorded: RecordedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          raw,
          json,
        };
        this.requests.push(recorded);
        void Promise.resolve(this.handler(recorded, res)).catch((error: unknown) => {
          res.statusCode = 599;
          res.end(String(error));
        });
      });
    };
    if (options.https) {
      const pki = await testPki();
      this.server = createHttpsServer({ key: pki.server.key, cert: pki.server.cert }, listener);
    } else {
      this.server = createHttpServer(listener);
    }
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.baseUrl = `${options.https ? 'https' : 'http'}://127.0.0.1:${port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Sends a JSON answer. */
export function reply(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
  res.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
}
