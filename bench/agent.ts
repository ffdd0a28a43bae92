import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { subjectsFor, toWireBatch, toWireRequest, type ProbedType, type ProbeRequest } from '#contracts';
import { connectNats, NatsLink, systemClock, type NatsConnection } from '#runtime';
import { DEFAULT_BATCH_WINDOW_MS } from '../apps/coordinator/src/probing/batch-window.js';
import { BatchingNatsTransport } from '../apps/coordinator/src/probing/nats-batch.transport.js';
import { NatsTransport } from '../apps/coordinator/src/probing/nats.transport.js';
import { systemTimers } from '../apps/coordinator/src/scheduling/timers.js';
import { processRssMb } from './coordinator-process.js';
import { deployedNodeOptions } from '../test/support/deployed-node-options.js';
import { probeRequest } from '../test/support/probe-request.js';
import { waitFor } from '../test/support/wait.js';
import { atFixedRate, percentile, publish, sleep, type Row } from './report.js';
import { listen, processCpu, startTargets } from './targets.js';

const REGION = 'eu-west-1';
/** The agent's main module (this file runs from dist/bench). */
const AGENT_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'apps', 'agent', 'src', 'main.js');

/**
 * A whole agent process, as deployed: it takes probe requests from NATS (the local server),
 * runs them and replies. The bench sends requests at a fixed rate, like a coordinator, and
 * measures the agent's CPU per 1000 checks, its peak RSS, and how many replies came back and
 * how fast. Each check type runs at each rate.
 */
export async function agentBench(): Promise<void> {
  const rates = (process.env.BENCH_RATES ?? '200,500').split(',').map(Number);
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  const natsUrl = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
  // The coordinator's batch window (PROBE_BATCH_WINDOW_MS and its default); 0: one request per check, as before batches.
  const batchMs = Number(process.env.BENCH_BATCH_MS ?? DEFAULT_BATCH_WINDOW_MS);
  // One agent per option set, side by side: Node's defaults, and the heap limits deploy/ ships.
  const optionSets = (process.env.BENCH_AGENT_NODE_OPTIONS ?? `none;${deployedNodeOptions('agent')}`).split(';');
  const dir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  const targets = await startTargets(dir);
  const silent = await startSilentTarget();
  const quiet = { log: () => undefined, warn: () => undefined };
  const nc = await withDeadline(
    connectNats(natsUrl, 'picket-bench', quiet),
    10_000,
    `no NATS server at ${natsUrl} (set BENCH_NATS_URL)`,
  );
  const checks: [string, ProbedType, ProbeRequest['settings']][] = [
    ['HTTP', 'https', { url: targets.http, check_certificate_expiration: false }],
    ['HTTPS', 'https', { url: targets.https, check_certificate_expiration: false }],
    ['TCP', 'tcp', { url: `tcp://${targets.tcp}` }],
    ['ICMP', 'ping', { url: 'ping://127.0.0.1' }],
    // An outage of slow targets: every check waits out its 5 s timeout, 5 × rate in flight.
    ['HTTP, silent target', 'https', { url: silent.url, check_certificate_expiration: false }],
  ];
  const rows: Row[] = [];
  try {
    for (const options of optionSets) {
      const nodeOptions = options === 'none' ? '' : options;
      const prefix = `bench_${randomBytes(4).toString('hex')}`;
      // On the command line, not in NODE_OPTIONS: Node refuses most V8 flags there.
      const agent = spawn(process.execPath, [...nodeOptions.split(' ').filter(Boolean), AGENT_MAIN], {
        env: {
          ...process.env,
          NATS_URL: natsUrl,
          NATS_SUBJECT_PREFIX: prefix,
          AGENT_REGIONS: REGION,
          AGENT_ID: 'bench',
          AGENT_HTTP_PORT: '0',
          LOG_LEVEL: 'warn',
          // The HTTPS target's certificate comes from the bench's own CA.
          NODE_EXTRA_CA_CERTS: targets.caFile,
          NODE_OPTIONS: '',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      try {
        await waitForAgent(sender(nc, prefix));
        // Its batch subscription too: a first batch nobody takes would send the next 30 s check by check.
        if (batchMs > 0) await waitForBatches(nc, prefix);
        const send = batchMs > 0 ? await batchSender(natsUrl, prefix, batchMs) : sender(nc, prefix);
        for (const rate of rates) {
          for (const [name, type, settings] of checks) {
            const measured = await drive(agent.pid!, send, type, settings, rate, seconds);
            rows.push({ 'node options': nodeOptions || '(none)', check: name, ...measured });
          }
        }
      } finally {
        agent.kill('SIGTERM');
        await new Promise((resolve) => agent.once('exit', resolve));
      }
    }
  } finally {
    await nc.drain().catch(() => undefined);
    targets.close();
    silent.close();
    rmSync(dir, { recursive: true, force: true });
  }
  publish(
    'Agent under load',
    `\`npm run bench -- agent\`: one agent process (\`dist/apps/agent/src/main.js\`, region ${REGION}) taking ` +
      `probe requests from the local NATS server, sent by this process at a fixed rate for ${seconds} s per line ` +
      `(each a new connection to a loopback target), ${batchMs > 0 ? `batched as a coordinator does (BatchingNatsTransport, BENCH_BATCH_MS ${batchMs} ms window)` : 'one request per check (BENCH_BATCH_MS=0)'}. CPU = the agent's user+system seconds per 1000 checks; ` +
      `checks/s per core = the rate divided by the cores the agent used; reply = from request to reply at the ` +
      `sender; peak RSS sampled every 250 ms. Each line runs once per set of node options (BENCH_AGENT_NODE_OPTIONS, sets separated by \`;\`).`,
    rows,
  );
}

/** `work`, or an error after `ms` (connecting to NATS retries for ever). */
async function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A listener that accepts connections and never answers (held until closed). */
async function startSilentTarget(): Promise<{ url: string; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.resume(); // read and drop the request, so the client's close is seen
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

type Send = (type: ProbedType, settings: ProbeRequest['settings'], n: number) => Promise<string>;

/** Sends one probe request and resolves with the reply's status ('no reply' on a timeout). */
function sender(nc: NatsConnection, prefix: string): Send {
  const subject = subjectsFor(prefix).probe(REGION);
  const monitorId = randomBytes(12).toString('hex');
  return async (type, settings, n) => {
    const scheduledAt = Date.now() * 1000 + n; // unique per request
    const request = probeRequest(type, settings, { monitorId, scheduledAt, region: REGION });
    try {
      const reply = await nc.request(subject, JSON.stringify(toWireRequest(request)), { timeout: 7000 });
      return (JSON.parse(reply.string()) as { status: string }).status;
    } catch {
      return 'no reply';
    }
  };
}

/** Sends checks as a coordinator does: coalesced per window into batches (BatchingNatsTransport). */
async function batchSender(natsUrl: string, prefix: string, windowMs: number): Promise<Send> {
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const link = new NatsLink(natsUrl, 'picket-bench-batches', quiet, {
    connectTimeoutSeconds: 0,
    onGiveUp: () => undefined,
  });
  link.start();
  await link.whenConnected();
  const single = new NatsTransport(link, prefix, systemClock);
  const transport = new BatchingNatsTransport(link, prefix, systemClock, systemTimers, single, { windowMs });
  const monitorId = randomBytes(12).toString('hex');
  return async (type, settings, n) => {
    const scheduledAt = Date.now() * 1000 + n; // unique per request
    const request = probeRequest(type, settings, { monitorId, scheduledAt, region: REGION });
    const result = await transport.request(request);
    return result.agent_id === 'coordinator' ? 'no reply' : result.status;
  };
}

/** Until the agent answers a batch on its batch subject. */
async function waitForBatches(nc: NatsConnection, prefix: string): Promise<void> {
  const subject = subjectsFor(prefix).probeBatch(REGION);
  const check = probeRequest('tcp', { url: 'tcp://127.0.0.1:9' }, { region: REGION });
  await waitFor(
    'the agent to answer a batch',
    async () =>
      nc.request(subject, JSON.stringify(toWireBatch([check])), { timeout: 7000 }).then(
        () => true,
        () => undefined,
      ),
    60_000,
  );
}

async function waitForAgent(send: Send): Promise<void> {
  await waitFor(
    'the agent to answer',
    async () => ((await send('tcp', { url: 'tcp://127.0.0.1:9' }, 0)) === 'no reply' ? undefined : true),
    60_000,
  );
}

async function drive(
  pid: number,
  send: Send,
  type: ProbedType,
  settings: ProbeRequest['settings'],
  rate: number,
  seconds: number,
): Promise<Row> {
  await sleep(1000); // let the previous line's stragglers settle
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, processRssMb(pid));
  }, 250);
  const statuses = new Map<string, number>();
  const latencies: number[] = [];
  const cpuBefore = processCpu(pid);
  const started = Date.now();
  const total = rate * seconds;
  await atFixedRate(rate, seconds, async (i) => {
    const sent = performance.now();
    const status = await send(type, settings, i + 1);
    latencies.push(performance.now() - sent);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const elapsed = (Date.now() - started) / 1000;
  const cpu = processCpu(pid) - cpuBefore;
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  const cores = cpu / elapsed;
  return {
    'rate /s': rate,
    sent: total,
    up: statuses.get('up') ?? 0,
    'not up': total - (statuses.get('up') ?? 0) - (statuses.get('no reply') ?? 0),
    'no reply': statuses.get('no reply') ?? 0,
    'reply p50 ms': percentile(latencies, 50),
    'reply p99 ms': percentile(latencies, 99),
    'agent CPU s/1000': (1000 * cpu) / total,
    'cores used': cores,
    'checks/s per core': Math.round(total / elapsed / Math.max(cores, 0.001)),
    'agent peak RSS MB': Math.round(peakRss),
  };
}
