import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** Where freePort picks: below Linux's ephemeral range (32768–60999), which `listen(0)` draws from. */
const PICKED_PORTS = { from: 20_000, count: 12_000 };

/**
 * A TCP port free on 127.0.0.1 right now, below the kernel's ephemeral range. Servers that a test
 * stops while something still connects to them (targets, proxies, NATS) take their port from
 * here: a port from `listen(0)` could be handed to another suite's server once closed, which
 * would then answer what was meant to fail (seen in CI: a stopped target's checks answered by
 * another suite's receiver).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = PICKED_PORTS.from + Math.floor(Math.random() * PICKED_PORTS.count);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        error.code === 'EADDRINUSE' && attempt < 50 ? resolve(false) : reject(error),
      );
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
}

/**
 * A TCP relay in front of a service (PostgreSQL): `cut()` drops every connection and refuses
 * new ones, as an outage or a restart of the service looks to its clients; `restore()` ends it.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens on `port`, or on a freePort (it is cut and restored on the same port). */
  async start(port = 0): Promise<this> {
    const listenOn = port || (await freePort());
    const server = createServer((client) => {
      const upstream = connect({ host: this.targetHost, port: this.targetPort });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(listenOn, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restore(): Promise<void> {
    await this.start(this.port);
  }
}

const NATS_SERVER_BINARIES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/** The nats-server binary on this machine, or null. */
export function natsServerBinary(): string | null {
  return NATS_SERVER_BINARIES.find((path) => existsSync(path)) ?? null;
}

/** A private NATS server on its own port, so a test can stop and restart it without touching anyone else's. */
export class PrivateNats {
  private child: ChildProcess | null = null;
  port = 0;

  constructor(private readonly binary: string) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.port ||= await freePort();
    const child = spawn(this.binary, ['-a', '127.0.0.1', '-p', String(this.port)], { stdio: 'ignore' });
    this.child = child;
    for (let i = 0; i < 100; i++) {
      if (await answers(this.port)) return this;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`nats-server did not start on port ${this.port}`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('data', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
