import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from './faults.js';

/**
 * A local HTTP target that can be switched between healthy (200), failing (503) and gone
 * (connections refused), counting the requests it answers.
 */
export class SwitchableTarget {
  mode: 'ok' | 'fail' = 'ok';
  /** Answers this much later (a slow target keeps checks in flight). */
  delayMs = 0;
  requests = 0;
  /** Requests received and not yet answered. */
  inFlight = 0;
  private server: Server | null = null;
  port = 0;

  /** Listens on `port`, or on a freePort: once stopped, its port is not handed to another suite's server. */
  async start(port = 0): Promise<this> {
    const listenOn = port || (await freePort());
    this.server = createServer((_req, res) => {
      this.requests++;
      this.inFlight++;
      const answer = () => {
        this.inFlight--;
        res.statusCode = this.mode === 'ok' ? 200 : 503;
        res.end(this.mode);
      };
      if (this.delayMs > 0) setTimeout(answer, this.delayMs);
      else answer();
    });
    await new Promise<void>((resolve) => this.server!.listen(listenOn, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/health`;
  }

  /** Stops listening: checks then get "connection refused". */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async restart(): Promise<void> {
    await this.start(this.port);
  }
}
