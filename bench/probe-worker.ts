import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import got from 'got';
import { systemClock } from '#runtime';
import { createProberTable, IcmpPinger, ProbeExecutor } from '#probes';
import type { ProbedType } from '#contracts';
import { probeRequest } from '../test/support/probe-request.js';
import { DEFAULT_BATCH_WINDOW_MS } from '../apps/coordinator/src/probing/batch-window.js';
import { atFixedRate, sleep } from './report.js';

/**
 * One prober process for the probe benchmark: runs `kind` checks of `url` at `rate` per
 * second, first for `warmup` seconds (not counted: the JIT compiles the hot path, the heap
 * finds its size) and then for `seconds`, and prints one JSON line: the measured checks,
 * failures, the CPU seconds they cost and the peak RSS (MB).
 * Usage: probe-worker <kind> <url> <rate> <seconds> <warmup> [ca-file]
 *
 * Kinds: `https`, `tcp`, `ping` run Picket's checks through the agent's ProbeExecutor, with
 * the agent's prober table (the CA of the targets comes from NODE_EXTRA_CA_CERTS). The
 * floor kinds do the least the same process could do for such a check, to show where
 * Picket's time goes: `idle` (the fixed-rate loop alone), `net` (a TCP connect, then
 * close), `tls` (a TLS connect with a full handshake), `node` (a GET with node:http or
 * node:https, body read), `got` (the same GET with got and nothing but the options Picket
 * cannot do without). Each floor opens a fresh connection per check, as Picket does.
 */
const [kind, url = '', rateText, secondsText, warmupText, caFile] = process.argv.slice(2);
const rate = Number(rateText);
const seconds = Number(secondsText);
const warmup = Number(warmupText);
const picket = kind === 'https' || kind === 'tcp' || kind === 'ping';
const run = picket ? await picketChecks(kind) : floorChecks(kind ?? '');
/**
 * Picket's checks arrive as an agent's do since batches (docs/decisions/0034-batched-probe-traffic.md):
 * those due within the coordinator's window together, at its end (BENCH_BATCH_MS, default
 * PROBE_BATCH_WINDOW_MS's default; 0: each at its own due time, as before). The floors always
 * run each check at its due time.
 */
const batchMs = picket ? Number(process.env.BENCH_BATCH_MS ?? DEFAULT_BATCH_WINDOW_MS) : 0;

async function picketChecks(type: ProbedType): Promise<(scheduledAt: number) => Promise<boolean>> {
  const pinger = await IcmpPinger.open();
  // The targets' CA comes as an agent's would, through NODE_EXTRA_CA_CERTS (see runPicket).
  const table = createProberTable({ pinger });
  const executor = new ProbeExecutor({ agentId: 'bench', clock: systemClock, table, maxInFlight: 10_000 });
  const monitorId = randomBytes(12).toString('hex');
  const settings = type === 'https' ? { url, check_certificate_expiration: false } : { url };
  return async (scheduledAt) =>
    (await executor.execute(probeRequest(type, settings, { monitorId, scheduledAt }))).status === 'up';
}

function floorChecks(floor: string): (scheduledAt: number) => Promise<boolean> {
  const target = new URL(url);
  const port = Number(target.port);
  const host = target.hostname;
  const secureContext: SecureContext | undefined = caFile
    ? createSecureContext({ ca: [...rootCertificates, readFileSync(caFile, 'utf8')] })
    : undefined;
  // No keep-alive and no TLS session cache: every check connects and handshakes afresh.
  const agents = {
    http: new HttpAgent({ keepAlive: false }),
    https: new HttpsAgent({ keepAlive: false, maxCachedSessions: 0, ...(secureContext ? { secureContext } : {}) }),
  };
  const settle = (start: (done: (ok: boolean) => void) => void) => () => new Promise<boolean>(start);
  switch (floor) {
    case 'idle':
      return () => Promise.resolve(true);
    case 'net':
      return settle((done) => {
        const socket = netConnect({ host, port }, () => {
          socket.destroy();
          done(true);
        });
        socket.once('error', () => done(false));
      });
    case 'tls':
      return settle((done) => {
        const socket = tlsConnect({ host, port, secureContext }, () => {
          socket.destroy();
          done(socket.authorized);
        });
        socket.once('error', () => done(false));
      });
    case 'node':
      return settle((done) => {
        const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
        const request = send(url, { agent: target.protocol === 'https:' ? agents.https : agents.http }, (response) => {
          response.resume();
          response.once('end', () => done(response.statusCode === 200));
        });
        request.once('error', () => done(false));
        request.end();
      });
    case 'got': {
      const client = got.extend({ agent: agents, retry: { limit: 0 }, throwHttpErrors: false });
      return settle((done) => {
        const stream = client.stream(url);
        stream.once('response', (response: { statusCode: number }) => {
          stream.resume();
          stream.once('end', () => done(response.statusCode === 200));
        });
        stream.once('error', () => done(false));
      });
    }
    default:
      throw new Error(`unknown kind ${floor}`);
  }
}

let checks = 0;
let failures = 0;
let peakRssMb = 0;
const sampler = setInterval(() => {
  peakRssMb = Math.max(peakRssMb, process.memoryUsage().rss / 2 ** 20);
}, 250);
const check = async (i: number, due: number): Promise<void> => {
  const ok = await run(Math.floor(due) + i);
  checks++;
  if (!ok) failures++;
};
/** `rate` checks per second for `seconds`, the ones due in each window of `batchMs` started together at its end. */
async function inBatches(duration: number): Promise<void> {
  const pending: Promise<void>[] = [];
  const started = Date.now();
  const total = rate * duration;
  for (let window = 1, sent = 0; sent < total; window++) {
    const end = started + window * batchMs;
    const wait = end - Date.now();
    if (wait > 0) await sleep(wait);
    const due = Math.min(total, Math.floor((window * batchMs * rate) / 1000));
    const batch: Promise<void>[] = [];
    // One wakeup starts the window's checks together, as the agent's runProbeBatch does.
    for (; sent < due; sent++) batch.push(check(sent, started + (sent * 1000) / rate));
    if (batch.length > 0) pending.push(Promise.all(batch).then(() => undefined));
  }
  await Promise.all(pending);
}

const paced = (duration: number) => (batchMs > 0 ? inBatches(duration) : atFixedRate(rate, duration, check));
if (warmup > 0) await paced(warmup);
checks = 0;
failures = 0;
const cpu = process.cpuUsage();
const started = Date.now();
await paced(seconds);
const used = process.cpuUsage(cpu);
const elapsed = (Date.now() - started) / 1000;
clearInterval(sampler);
process.stdout.write(
  `${JSON.stringify({ checks, failures, cpu: (used.user + used.system) / 1e6, elapsed, rss: Math.round(peakRssMb) })}\n`,
);
process.exit(0);
