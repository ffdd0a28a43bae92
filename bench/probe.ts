import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpAgent, get as httpGet } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_BATCH_WINDOW_MS } from '../apps/coordinator/src/probing/batch-window.js';
import { atFixedRate, cpuSeconds, jsonLineOf, percentile, publish, sleep, type Row } from './report.js';
import { listen, processCpu, startTargets, type LoopbackTargets } from './targets.js';

const BLACKBOX = process.env.BENCH_BLACKBOX ?? '/usr/bin/prometheus-blackbox-exporter';
const FPING = process.env.BENCH_FPING ?? '/usr/bin/fping';
/** Node command-line options for Picket's prober processes (and its floors); none by default. */
const PICKET_NODE_ARGS = (process.env.BENCH_PICKET_NODE_ARGS ?? '').split(' ').filter(Boolean);
/**
 * Probe cost: the same checks of loopback targets at the same fixed rate, by Picket's probe
 * executor (a separate process, as in an agent) and by prometheus-blackbox-exporter driven
 * through /probe; ICMP against fping. CPU seconds per 1000 checks of the prober's process.
 *
 * The cost of a wakeup on a VM moves by tens of percent within minutes, so every figure is
 * measured in BENCH_ROUNDS rounds, each round running every check kind once for each prober
 * (Picket, then its peer, then the floors, back to back), and the tables give medians: a
 * ratio is the median of the rounds' ratios, each of a Picket run and the peer run right
 * after it.
 */
export async function probeBench(): Promise<void> {
  const rate = Number(process.env.BENCH_RATE ?? 200);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const warmup = Number(process.env.BENCH_WARMUP ?? 5);
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const withFloors = process.env.BENCH_FLOORS !== '0';
  const only = checkFilter(process.env.BENCH_CHECKS);
  const dir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  const targets = await startTargets(dir);
  const { caFile } = targets;
  const measure = (kind: string, url: string) => runPicket(kind, url, rate, seconds, warmup, caFile);
  const sampled = (name: string, peerName: string, floorKinds: readonly Floor[], run: Sampled['run']): Sampled => {
    const kinds = withFloors ? floorKinds : [];
    return { name, peerName, floorKinds: kinds, picket: [], peer: [], floors: new Map(kinds.map((k) => [k, []])), run };
  };
  const allChecks: Sampled[] = [
    ...networkChecks(targets).map((check) =>
      sampled(check.name, 'blackbox_exporter', check.floorKinds, {
        picket: () => measure(check.kind, check.url),
        peer: (blackbox) =>
          blackbox ? driveBlackbox(blackbox, check.module, check.target, rate, seconds, warmup) : null,
        floor: (kind) => measure(kind, check.kind === 'tcp' ? `http://${targets.tcp}/` : check.url),
      }),
    ),
    sampled('ICMP', 'fping', ['idle'], {
      picket: () => measure('ping', 'ping://127.0.0.1'),
      peer: () => runFping(rate, seconds),
      floor: (kind) => measure(kind, targets.http),
    }),
  ];
  const checks = allChecks.filter((check) => only === null || only.has(check.name.toLowerCase()));
  try {
    const blackbox = await startBlackbox(dir, caFile);
    for (let round = 0; round < rounds; round++) {
      for (const check of checks) {
        check.picket.push(await check.run.picket());
        check.peer.push(await check.run.peer(blackbox));
        for (const kind of check.floorKinds) check.floors.get(kind)?.push(await check.run.floor(kind));
      }
    }
    blackbox?.stop();
  } finally {
    targets.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = checks.map((check) => sampledRow(check, rate));
  const floorRows = checks.flatMap((check) => [
    floorRow(check, "Picket's prober through the executor", check.picket),
    ...check.floorKinds.map((kind) => floorRow(check, FLOORS[kind], check.floors.get(kind) ?? [])),
  ]);
  publish(
    'Probe cost',
    `\`npm run bench -- probe\`: ${rate} checks/s against loopback targets (a new connection per check), in ` +
      `${rounds} rounds; in each, every prober runs each check for ${seconds} s after ${warmup} s not counted. ` +
      `Picket = the agent's ProbeExecutor in its own process; blackbox_exporter = prometheus-blackbox-exporter ` +
      `driven through /probe at the same rate, one HTTP request per check; Picket's checks arrive as an agent's do, ` +
      `${batchNote()}; fping = \`fping -C\` at the same rate. CPU = the prober ` +
      `process's user+system seconds per 1000 checks, the median of the rounds; "Picket / peer" = the median ` +
      `of the rounds' ratios, "ratio range" their lowest and highest; Picket RSS = the peak resident memory of ` +
      `its prober process (the agent's executor and probers, without NATS).${nodeArgsNote()}`,
    rows,
  );
  if (withFloors) {
    publish(
      'Probe cost floors',
      `The same run: what the same kind of process (Node, the same fixed-rate loop, a fresh connection per ` +
        `check) spends on the least it could do for each check, beside Picket's prober and the peer, medians ` +
        `of the rounds. "/ peer" is the CPU per check over the peer's (blackbox_exporter, fping) in the same ` +
        `round; "/ Picket" over Picket's prober's in the same round.`,
      floorRows,
    );
  }
}

/** BENCH_CHECKS: the check kinds to run (`http,https,tcp,icmp`, any of them), or null for all. */
function checkFilter(value: string | undefined): Set<string> | null {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const known = ['http', 'https', 'tcp', 'icmp'];
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new Error(`BENCH_CHECKS: unknown check ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return names.length === 0 ? null : new Set(names);
}

/** How Picket's prober process gets its checks (BENCH_BATCH_MS, read by probe-worker.ts). */
function batchNote(): string {
  const ms = Number(process.env.BENCH_BATCH_MS ?? DEFAULT_BATCH_WINDOW_MS);
  return ms > 0
    ? `those due within each ${ms} ms window started together at its end (the coordinator's batches, BENCH_BATCH_MS)`
    : 'each at its own due time (BENCH_BATCH_MS=0, as before batches)';
}

/** Says which node options Picket's processes ran with, when not Node's defaults. */
function nodeArgsNote(): string {
  return PICKET_NODE_ARGS.length > 0 ? ` Picket's processes ran as \`node ${PICKET_NODE_ARGS.join(' ')}\`.` : '';
}

/** One check kind's measurements, a sample per round for each prober. */
interface Sampled {
  name: string;
  peerName: string;
  floorKinds: readonly Floor[];
  picket: Measured[];
  peer: (Measured | null)[];
  floors: Map<Floor, Measured[]>;
  run: {
    picket(): Promise<Measured>;
    peer(blackbox: Blackbox | null): Promise<Measured | null> | Measured | null;
    floor(kind: Floor): Promise<Measured>;
  };
}

type Floor = 'idle' | 'net' | 'tls' | 'node' | 'got';

/** A check compared with blackbox_exporter: Picket's kind and URL, the peer's module and target, the floors. */
interface NetworkCheck {
  name: string;
  kind: 'https' | 'tcp';
  url: string;
  module: string;
  target: string;
  floorKinds: readonly Floor[];
}

function networkChecks(targets: LoopbackTargets): NetworkCheck[] {
  return [
    {
      name: 'HTTP',
      kind: 'https',
      url: targets.http,
      module: 'http_2xx',
      target: targets.http,
      floorKinds: ['idle', 'net', 'node', 'got'],
    },
    {
      name: 'HTTPS',
      kind: 'https',
      url: targets.https,
      module: 'http_2xx',
      target: targets.https,
      floorKinds: ['tls', 'node', 'got'],
    },
    {
      name: 'TCP',
      kind: 'tcp',
      url: `tcp://${targets.tcp}`,
      module: 'tcp_connect',
      target: targets.tcp,
      floorKinds: ['net'],
    },
  ];
}

/**
 * The highest rate each prober sustains on one core: Picket's prober process and
 * blackbox_exporter pinned to CPU 1, this process (the targets, and the driver of
 * blackbox_exporter) to CPU 0. Each step runs `seconds` at a rate from BENCH_MAX_RATES, in
 * order, until one fails: a check not up, or the step's checks taking more than 10 % longer
 * than the step (the prober fell behind). Needs two CPUs and taskset.
 */
export async function probeMaxBench(): Promise<void> {
  const rates = (process.env.BENCH_MAX_RATES ?? '250,500,1000,2000,4000').split(',').map(Number);
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const warmup = Number(process.env.BENCH_WARMUP ?? 2);
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  const dir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  const targets = await startTargets(dir);
  const rows: Row[] = [];
  try {
    const blackbox = await startBlackbox(dir, targets.caFile);
    if (blackbox) execFileSync('taskset', ['-a', '-p', '-c', '1', String(blackbox.pid)], { stdio: 'ignore' });
    for (const { name, kind, url, module, target } of networkChecks(targets)) {
      const picket = (rate: number) => runPicket(kind, url, rate, seconds, warmup, targets.caFile, '1');
      rows.push(await highestRate(name, 'Picket', rates, seconds, warmup, picket));
      if (!blackbox) continue;
      const peer = (rate: number) => driveBlackbox(blackbox, module, target, rate, seconds, warmup);
      rows.push(await highestRate(name, 'blackbox_exporter', rates, seconds, warmup, peer));
    }
    blackbox?.stop();
  } finally {
    targets.close();
    rmSync(dir, { recursive: true, force: true });
  }
  publish(
    'Highest rate on one core',
    `\`npm run bench -- probe-max\`: the prober process pinned to one CPU (taskset), the loopback targets and ` +
      `blackbox_exporter's driver on the other; rates tried in turn (${rates.join(', ')} checks/s, ${seconds} s ` +
      `each after ${warmup} s of warm-up) until a step fails: a check not up, or the checks taking more than 10 % ` +
      `longer than the step. "bench cores" is what the targets and driver used meanwhile: near 1, the other CPU ` +
      `and not the prober may be what stopped the step.${nodeArgsNote()}`,
    rows,
  );
}

async function highestRate(
  check: string,
  prober: string,
  rates: readonly number[],
  seconds: number,
  warmup: number,
  run: (rate: number) => Promise<Measured>,
): Promise<Row> {
  let best: { rate: number; measured: Measured; bench: number } | null = null;
  let failed = 'none (the highest rate tried passed)';
  for (const rate of rates) {
    const benchCpu = process.cpuUsage();
    const measured = await run(rate);
    const elapsed = measured.elapsed ?? seconds;
    // The targets (and the peer's driver) work through the warm-up too.
    const bench = cpuSeconds(benchCpu) / (warmup + elapsed);
    const behind = elapsed > seconds * 1.1;
    if (measured.failures > 0 || behind) {
      const why = [
        measured.failures > 0 ? `${measured.failures} not up` : '',
        behind ? `took ${elapsed.toFixed(1)} s` : '',
      ]
        .filter(Boolean)
        .join(', ');
      failed = `${rate}/s: ${why}; bench cores ${bench.toFixed(2)}`;
      break;
    }
    best = { rate, measured, bench };
  }
  return {
    check,
    prober,
    'highest rate /s': best?.rate ?? 'none',
    'CPU s/1000 there': best ? per1000(best.measured) : 'n/a',
    'prober cores there': best ? best.measured.cpu / (best.measured.elapsed ?? seconds) : 'n/a',
    'bench cores there': best?.bench ?? 'n/a',
    'first failed step': failed,
  };
}

const FLOORS: Readonly<Record<Floor, string>> = {
  idle: 'the fixed-rate loop alone (no check)',
  net: 'TCP connect + close (node:net)',
  tls: 'TLS connect, full handshake (node:tls)',
  node: 'GET with node:http / node:https',
  got: 'GET with got, minimal options',
};

function floorRow(check: Sampled, what: string, samples: readonly Measured[]): Row {
  return {
    check: check.name,
    'what runs': what,
    'CPU s/1000': median(samples.map(per1000)),
    failed: sum(samples.map((m) => m.failures)),
    '/ peer': pairedRatio(samples, check.peer),
    '/ Picket': pairedRatio(samples, check.picket),
  };
}

function per1000(m: Measured): number {
  return (1000 * m.cpu) / Math.max(1, m.checks);
}

interface Measured {
  checks: number;
  failures: number;
  cpu: number;
  /** Seconds from the first check started to the last one answered. */
  elapsed?: number;
  /** Peak RSS of the prober process, MB (Picket only). */
  rss?: number;
}

function sampledRow(check: Sampled, rate: number): Row {
  const peers = check.peer.filter((m): m is Measured => m !== null);
  const ratios = pairs(check.picket, check.peer).map(([picket, peer]) => per1000(picket) / per1000(peer));
  return {
    check: check.name,
    'rate /s': rate,
    rounds: check.picket.length,
    'Picket CPU s/1000': median(check.picket.map(per1000)),
    'Picket failed': sum(check.picket.map((m) => m.failures)),
    'Picket RSS MB': Math.max(...check.picket.map((m) => m.rss ?? 0)),
    peer: check.peerName,
    'peer CPU s/1000': peers.length > 0 ? median(peers.map(per1000)) : 'n/a',
    'peer failed': peers.length > 0 ? sum(peers.map((m) => m.failures)) : 'n/a',
    'Picket / peer': ratios.length > 0 ? median(ratios) : 'n/a',
    'ratio range': ratios.length > 0 ? `${fixed(Math.min(...ratios))}–${fixed(Math.max(...ratios))}` : 'n/a',
  };
}

/** The samples of two series taken in the same round, where both exist. */
function pairs(a: readonly (Measured | null)[], b: readonly (Measured | null)[]): [Measured, Measured][] {
  return a.flatMap((m, i) => {
    const other = b[i];
    return m && other ? [[m, other] as [Measured, Measured]] : [];
  });
}

function pairedRatio(samples: readonly Measured[], against: readonly (Measured | null)[]): number | string {
  const ratios = pairs(samples, against).map(([m, other]) => per1000(m) / per1000(other));
  return ratios.length > 0 ? median(ratios) : 'n/a';
}

/** The median (the lower middle of an even count). */
function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((x, y) => x - y),
    50,
  );
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function fixed(value: number): string {
  return value.toFixed(2);
}

async function runPicket(
  kind: string,
  url: string,
  rate: number,
  seconds: number,
  warmup: number,
  ca?: string,
  cpu?: string,
): Promise<Measured> {
  const worker = join(dirname(fileURLToPath(import.meta.url)), 'probe-worker.js');
  const args = [
    ...PICKET_NODE_ARGS,
    worker,
    kind,
    url,
    String(rate),
    String(seconds),
    String(warmup),
    ...(ca ? [ca] : []),
  ];
  // Pinned to one CPU when asked (taskset runs the command in its own process).
  const [command, argv] =
    cpu === undefined ? [process.execPath, args] : ['taskset', ['-c', cpu, process.execPath, ...args]];
  // Picket's probers trust the targets' CA as an agent would: through NODE_EXTRA_CA_CERTS.
  return jsonLineOf<Measured>(command, argv, ca ? { ...process.env, NODE_EXTRA_CA_CERTS: ca } : process.env);
}

interface Blackbox {
  port: number;
  pid: number;
  stop(): void;
}

async function startBlackbox(dir: string, caFile: string): Promise<Blackbox | null> {
  const config = join(dir, 'blackbox.yml');
  writeFileSync(
    config,
    [
      'modules:',
      '  http_2xx:',
      '    prober: http',
      '    timeout: 5s',
      '    http:',
      '      preferred_ip_protocol: ip4',
      '      tls_config:',
      `        ca_file: ${caFile}`,
      '  tcp_connect:',
      '    prober: tcp',
      '    timeout: 5s',
      '    tcp:',
      '      preferred_ip_protocol: ip4',
      '',
    ].join('\n'),
  );
  const probe = createTcpServer();
  const port = await listen(probe);
  probe.close();
  let child;
  try {
    child = spawn(BLACKBOX, [`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' });
  } catch {
    return null;
  }
  for (let i = 0; i < 50; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/-/healthy`).then(
        (r) => r.ok,
        () => false,
      )
    ) {
      return { port, pid: child.pid ?? 0, stop: () => child.kill() };
    }
    await sleep(100);
  }
  child.kill();
  process.stderr.write(`blackbox_exporter did not start (${BLACKBOX}); its columns are n/a\n`);
  return null;
}

async function driveBlackbox(
  bb: Blackbox,
  module: string,
  target: string,
  rate: number,
  seconds: number,
  warmup: number,
): Promise<Measured> {
  const url = `http://127.0.0.1:${bb.port}/probe?module=${module}&target=${encodeURIComponent(target)}`;
  // node:http with keep-alive: the driver shares a CPU with the targets in probe-max, and
  // costs about half what fetch does there.
  const agent = new HttpAgent({ keepAlive: true });
  const probe = () =>
    new Promise<string>((resolve, reject) => {
      const request = httpGet(url, { agent }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.once('end', () => resolve(body));
        response.once('error', reject);
      });
      request.once('error', reject);
    });
  await probe();
  // The same warm-up as Picket's worker gets, not counted.
  if (warmup > 0) await atFixedRate(rate, warmup, () => probe().then(() => undefined));
  const cpuBefore = processCpu(bb.pid);
  const started = Date.now();
  let checks = 0;
  let failures = 0;
  await atFixedRate(rate, seconds, () =>
    probe().then(
      (body) => {
        checks++;
        if (!/^probe_success 1$/m.test(body)) failures++;
      },
      () => {
        checks++;
        failures++;
      },
    ),
  );
  agent.destroy();
  return { checks, failures, cpu: processCpu(bb.pid) - cpuBefore, elapsed: (Date.now() - started) / 1000 };
}

function runFping(rate: number, seconds: number): Measured | null {
  // One target, `rate` pings per second: -p is the interval per target in ms.
  const count = rate * seconds;
  const interval = Math.max(1, Math.round(1000 / rate));
  try {
    const output = execFileSync(
      'bash',
      ['-c', `TIMEFORMAT='%U %S'; { time ${FPING} -q -C ${count} -p ${interval} 127.0.0.1 ; } 2>&1`],
      {
        encoding: 'utf8',
      },
    );
    const lines = output.trim().split('\n');
    const [user, sys] = (lines.at(-1) ?? '0 0').split(' ').map(Number);
    const replies = (lines.find((l) => l.startsWith('127.0.0.1')) ?? '').split(':')[1]?.trim().split(/\s+/) ?? [];
    const failures = replies.filter((r) => r === '-').length;
    return { checks: count, failures, cpu: (user ?? 0) + (sys ?? 0) };
  } catch (error) {
    process.stderr.write(`fping failed (${String(error)}); its columns are n/a\n`);
    return null;
  }
}
