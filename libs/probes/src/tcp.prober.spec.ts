import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type LookupFunction, type Server, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { ProbeRequest, TcpSettings } from '#contracts';
import { systemClock } from '#runtime';
import type { ProbeContext, ProberTable } from './prober.js';
import { runProbe } from './run-probe.js';
import { tableWithOnly } from '../../../test/support/probe-request.js';
import { createTcpProber } from './tcp.prober.js';

// ---- helpers ------------------------------------------------------------------------------------

/** Test names resolve through this lookup only; `slow.test` never answers. */
const HOSTS: Record<string, { address: string; family: 4 | 6 }> = {
  'db.test': { address: '127.0.0.1', family: 4 },
  'db6.test': { address: '::1', family: 6 },
};
const lookups: string[] = [];
const testLookup: LookupFunction = (hostname, options, callback) => {
  lookups.push(hostname);
  if (hostname === 'slow.test') return; // a resolver that never answers
  setImmediate(() => {
    const entry = HOSTS[hostname];
    if (entry === undefined) {
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: 'ENOTFOUND',
        syscall: 'getaddrinfo',
        hostname,
      });
      callback(error, '', 0);
    } else if (options.all) {
      callback(null, [entry]);
    } else {
      callback(null, entry.address, entry.family);
    }
  });
};

const prober = createTcpProber({ lookup: testLookup });

function context(signal = new AbortController().signal): ProbeContext {
  return { signal, timeoutMs: 5000 };
}

function table(): ProberTable {
  return tableWithOnly('tcp', prober);
}

function request(url: string, timeoutMs: number): ProbeRequest<'tcp'> {
  return {
    check_id: `0123456789abcdef01234567:1767225600000:eu-west-1`,
    monitor_id: '0123456789abcdef01234567',
    region: 'eu-west-1',
    scheduled_at: 1767225600000,
    type: 'tcp',
    settings: { url } satisfies TcpSettings,
    timeout_ms: timeoutMs,
  };
}

async function listen(host: string): Promise<{ server: Server; port: number; accepted: Socket[] }> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => {
    accepted.push(socket);
    socket.on('error', () => {});
  });
  server.listen(0, host);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, accepted };
}

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

// ---- servers ------------------------------------------------------------------------------------

let v4: Awaited<ReturnType<typeof listen>>;
let v6: Awaited<ReturnType<typeof listen>>;
let closedPort: number;

beforeAll(async () => {
  v4 = await listen('127.0.0.1');
  v6 = await listen('::1');
  const closed = await listen('127.0.0.1');
  closedPort = closed.port;
  await new Promise((resolve) => closed.server.close(resolve));
});

afterAll(async () => {
  for (const { server, accepted } of [v4, v6]) {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

afterEach(() => {
  lookups.length = 0;
});

// ---- tests --------------------------------------------------------------------------------------

describe('tcp prober', () => {
  it('is UP when the port accepts, with the connect time, and closes the connection at once', async () => {
    const before = v4.accepted.length;
    const outcome = await prober({ url: `tcp://127.0.0.1:${v4.port}` }, context());
    expect(outcome).toMatchObject({ status: 'up', phase: null, error: null, local_address: '127.0.0.1' });
    expect(outcome.timings.connect_ms).toEqual(expect.any(Number));
    expect(outcome.timings.total_ms).toBeGreaterThanOrEqual(outcome.timings.connect_ms ?? Infinity);
    expect(outcome.timings.dns_ms).toBeUndefined();
    expect(lookups).toEqual([]);
    // The server saw exactly this connection, and the prober closed it.
    await waitFor(() => v4.accepted.length > before);
    const socket = v4.accepted[before];
    if (socket === undefined) throw new Error('no connection accepted');
    await waitFor(() => socket.readableEnded || socket.destroyed);
    expect(v4.accepted).toHaveLength(before + 1);
  });

  it('is UP over IPv6', async () => {
    const outcome = await prober({ url: `tcp://[::1]:${v6.port}` }, context());
    expect(outcome).toMatchObject({ status: 'up', local_address: '::1' });
  });

  it('resolves a name with the given lookup and times the dns phase', async () => {
    const outcome = await prober({ url: `tcp://db.test:${v4.port}` }, context());
    expect(outcome).toMatchObject({ status: 'up', local_address: '127.0.0.1' });
    expect(outcome.timings.dns_ms).toEqual(expect.any(Number));
    expect(outcome.timings.connect_ms).toEqual(expect.any(Number));
    expect(lookups).toEqual(['db.test']);

    const six = await prober({ url: `tcp://db6.test:${v6.port}` }, context());
    expect(six).toMatchObject({ status: 'up', local_address: '::1' });
  });

  it('is DOWN/connect when the port is closed', async () => {
    const outcome = await prober({ url: `tcp://127.0.0.1:${closedPort}` }, context());
    expect(outcome).toMatchObject({
      status: 'down',
      phase: 'connect',
      error: `connection refused (127.0.0.1:${closedPort})`,
    });
    expect(outcome.timings.total_ms).toEqual(expect.any(Number));
  });

  it('is DOWN/dns when the name does not resolve, without connecting', async () => {
    const before = v4.accepted.length;
    const outcome = await prober({ url: `tcp://missing.test:${v4.port}` }, context());
    expect(outcome).toMatchObject({ status: 'down', phase: 'dns', error: 'host name not found' });
    expect(outcome.timings.connect_ms).toBeUndefined();
    expect(lookups).toEqual(['missing.test']);
    expect(v4.accepted).toHaveLength(before);
  });

  it('does not connect when the signal is already aborted', async () => {
    const stop = new AbortController();
    stop.abort(new Error('agent stopping'));
    const before = v4.accepted.length;
    const outcome = await prober({ url: `tcp://127.0.0.1:${v4.port}` }, context(stop.signal));
    expect(outcome).toMatchObject({ status: 'unknown', phase: 'internal', error: 'probe cancelled by the agent' });
    expect(v4.accepted).toHaveLength(before);
  });
});

describe('tcp prober: deadline and cancellation (through runProbe)', () => {
  it('is DOWN/timeout when the lookup does not answer before the deadline', async () => {
    const result = await runProbe(table(), request(`tcp://slow.test:${v4.port}`, 150), {
      agentId: 'test-agent',
      clock: systemClock,
    });
    expect(result).toMatchObject({ status: 'down', phase: 'timeout', error: 'timed out after 150 ms' });
    expect(result.response_time_ms).toEqual(expect.any(Number));
    expect(lookups).toEqual(['slow.test']);
  });

  it('is UNKNOWN when the agent stops the check (not the deadline)', async () => {
    const stop = new AbortController();
    const pending = runProbe(table(), request(`tcp://slow.test:${v4.port}`, 60_000), {
      agentId: 'test-agent',
      clock: systemClock,
      signal: stop.signal,
    });
    await waitFor(() => lookups.length > 0);
    stop.abort(new Error('agent stopping'));
    expect(await pending).toMatchObject({
      status: 'unknown',
      phase: 'internal',
      error: 'probe cancelled by the agent',
      response_time_ms: null,
    });
  });

  describe('a listener whose accept queue is full (its SYNs are dropped)', () => {
    let worker: Worker;
    let release: Int32Array;
    let port: number;
    const fillers: Socket[] = [];

    beforeAll(async () => {
      // The listener lives in a worker whose event loop is blocked, so it never accepts:
      // once its backlog is full, the kernel drops new SYNs and a connect hangs.
      const shared = new SharedArrayBuffer(4);
      release = new Int32Array(shared);
      worker = new Worker(
        `const { parentPort, workerData } = require('node:worker_threads');
         const server = require('node:net').createServer();
         server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
           parentPort.postMessage(server.address().port);
           Atomics.wait(new Int32Array(workerData), 0, 0);
           server.close();
         });`,
        { eval: true, workerData: shared },
      );
      [port] = (await once(worker, 'message')) as [number];
      // Fill the queue: connect until one attempt stays pending.
      for (let i = 0; i < 16; i++) {
        const socket = connect({ host: '127.0.0.1', port });
        socket.on('error', () => {});
        fillers.push(socket);
        const connected = await Promise.race([
          once(socket, 'connect').then(() => true),
          new Promise<false>((resolve) => setTimeout(() => resolve(false), 250)),
        ]);
        if (!connected) return;
      }
      throw new Error('the accept queue never filled');
    });

    afterAll(async () => {
      for (const socket of fillers) socket.destroy();
      Atomics.store(release, 0, 1);
      Atomics.notify(release, 0);
      await worker.terminate();
    });

    it('is DOWN/timeout when the connection is not established before the deadline', async () => {
      const result = await runProbe(table(), request(`tcp://127.0.0.1:${port}`, 300), {
        agentId: 'test-agent',
        clock: systemClock,
      });
      expect(result).toMatchObject({ status: 'down', phase: 'timeout', error: 'timed out after 300 ms' });
      expect(result.timings.connect_ms).toBeUndefined();
    });

    it('is UNKNOWN when the agent stops it while connecting', async () => {
      const stop = new AbortController();
      const pending = runProbe(table(), request(`tcp://127.0.0.1:${port}`, 60_000), {
        agentId: 'test-agent',
        clock: systemClock,
        signal: stop.signal,
      });
      setTimeout(() => stop.abort(new Error('agent stopping')), 50);
      expect(await pending).toMatchObject({ status: 'unknown', phase: 'internal', checker_ip: null });
    });
  });
});
