import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * What the end-to-end benchmarks (detection, adversity) share: loopback targets that can be
 * switched off, a webhook receiver that records Picket's notifications, a small API client,
 * and an nftables table that is always removed again.
 */

/** A loopback HTTP target that can be switched off (connections refused) and on again; `delayMs` per request. */
export class Target {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly delayMs: () => number = () => 0) {}

  async start(): Promise<void> {
    const server = createServer((_req, res) => {
      const delay = this.delayMs();
      if (delay <= 0) res.end('ok');
      else setTimeout(() => res.end('ok'), delay);
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/`;
  }

  stop(): void {
    this.server?.close();
    for (const socket of this.sockets) socket.destroy();
    this.server = null;
  }
}

export interface Notification {
  event: string;
  monitorId: string;
  at: number;
}

/** Receives Picket's webhook notifications on 127.0.0.1 and keeps each with its arrival time. */
export class WebhookReceiver {
  readonly received: Notification[] = [];
  private readonly server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event?: string; monitor_id?: string };
        if (body.monitor_id && body.event) this.received.push({ event: body.event, monitorId: body.monitor_id, at });
      } catch {
        // not ours
      }
      res.end('ok');
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Arrival times of `event` for the monitor, oldest first. */
  times(monitorId: string, event: 'monitor.down' | 'monitor.up'): number[] {
    return this.received.filter((n) => n.monitorId === monitorId && n.event === event).map((n) => n.at);
  }

  close(): void {
    this.server.close();
  }
}

/** Picket's REST API with one key (answers parsed as JSON; a 4xx or 5xx throws). */
export function apiClient(baseUrl: string, apiKey: string) {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };
}

const NFT = process.env.BENCH_NFT ?? '/usr/sbin/nft';

const cleanups = new Set<() => void>();
let hooked = false;

/**
 * Runs `cleanup` (synchronous) when the process exits, also on Ctrl-C or SIGTERM, unless it
 * was cancelled (the returned function) after running normally. For what must not outlive a
 * benchmark: nftables rules, child processes.
 */
export function onCleanup(cleanup: () => void): () => void {
  if (!hooked) {
    hooked = true;
    const runAll = () => {
      for (const fn of [...cleanups]) {
        cleanups.delete(fn);
        try {
          fn();
        } catch {
          // best effort: the others still run
        }
      }
    };
    process.on('exit', runAll);
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      process.on(signal, () => {
        process.stderr.write(`\n${signal}: cleaning up\n`);
        runAll();
        process.exit(code);
      });
    }
  }
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

/**
 * One nftables table of the benchmark's own (inet family, one `output` chain: loopback packets
 * pass it in both directions). Removed by `remove()`, and also when the process exits or is
 * interrupted (Ctrl-C, SIGTERM), so no rule outlives the run.
 */
export class NftTable {
  private cancel: (() => void) | null = null;

  constructor(readonly name: string) {}

  /** Creates the table afresh with an empty output chain. Throws when nftables is not usable (not root, no nft). */
  create(): void {
    this.remove();
    this.nft('add', 'table', 'inet', this.name);
    this.cancel = onCleanup(() => this.remove());
    this.nft('add', 'chain', 'inet', this.name, 'output', '{ type filter hook output priority 0; }');
  }

  /** Appends a rule to the output chain, e.g. `['tcp', 'dport', '8080', 'drop']`. */
  rule(words: readonly string[]): void {
    this.nft('add', 'rule', 'inet', this.name, 'output', ...words);
  }

  /** Removes every rule, keeping the table. */
  flush(): void {
    this.nft('flush', 'chain', 'inet', this.name, 'output');
  }

  remove(): void {
    try {
      execFileSync(NFT, ['delete', 'table', 'inet', this.name], { stdio: 'ignore' });
    } catch {
      // not there
    }
    this.cancel?.();
    this.cancel = null;
  }

  private nft(...args: string[]): void {
    execFileSync(NFT, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  }
}
