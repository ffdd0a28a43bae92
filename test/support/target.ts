import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Ports for targets that stop and start again: below Linux's ephemeral range (32768–60999). */
const STOPPABLE_PORTS = { from: 20_000, count: 12_000 };

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

  /**
   * Listens on `port`, or on a free port below the kernel's ephemeral range. A stopped target's
   * port must not be handed to another suite's `listen(0)` while this suite's checks still go
   * to it: in CI a stopped target's port went to another suite's receiver, which answered the
   * checks (UP where the test expected DOWN) and saw them as stray requests.
   */
  async start(port = 0): Promise<this> {
    if (port !== 0) return this.listen(port);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.listen(STOPPABLE_PORTS.from + Math.floor(Math.random() * STOPPABLE_PORTS.count));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw error;
      }
    }
  }

  private async listen(port: number): Promise<this> {
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
    const server = this.server;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      this.server = null;
      throw error;
    }
    this.port = (server.address() as AddressInfo).port;
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
