import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atFixedRate, publish, sleep, type Row } from './report.js';
import { listen, processCpu, startTargets } from './targets.js';

const BLACKBOX = process.env.BENCH_BLACKBOX ?? '/usr/bin/prometheus-blackbox-exporter';
const FPING = process.env.BENCH_FPING ?? '/usr/bin/fping';
/**
 * Probe cost: the same checks of loopback targets at the same fixed rate, by Picket's probe
 * executor (a separate process, as in an agent) and by prometheus-blackbox-exporter driven
 * through /probe; ICMP against fping. CPU seconds per 1000 checks of the prober's process.
 */
export async function probeBench(): Promise<void> {
  const rate = Number(process.env.BENCH_RATE ?? 200);
  const seconds = Number(process.env.BENCH_SECONDS ?? 20);
  const dir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  const targets = await startTargets(dir);
  const { caFile } = targets;
  const rows: Row[] = [];
  try {
    const blackbox = await startBlackbox(dir, caFile);
    for (const [name, kind, url, module, target] of [
      ['HTTP', 'https', targets.http, 'http_2xx', targets.http],
      ['HTTPS', 'https', targets.https, 'http_2xx', targets.https],
      ['TCP', 'tcp', `tcp://${targets.tcp}`, 'tcp_connect', targets.tcp],
    ] as const) {
      const picket = await runPicket(kind, url, rate, seconds, caFile);
      const peer = blackbox ? await driveBlackbox(blackbox, module, target, rate, seconds) : null;
      rows.push(row(name, rate, picket, 'blackbox_exporter', peer));
    }
    blackbox?.stop();
    const ping = await runPicket('ping', 'ping://127.0.0.1', rate, seconds);
    rows.push(row('ICMP', rate, ping, 'fping', runFping(rate, seconds)));
  } finally {
    targets.close();
    rmSync(dir, { recursive: true, force: true });
  }
  publish(
    'Probe cost',
    `\`npm run bench -- probe\`: ${rate} checks/s for ${seconds} s against loopback targets (a new connection ` +
      `per check). Picket = the agent's ProbeExecutor in its own process; blackbox_exporter = ` +
      `prometheus-blackbox-exporter driven through /probe at the same rate; fping = \`fping -C\` at the same ` +
      `rate. CPU = the prober process's user+system seconds per 1000 checks; Picket RSS = the peak resident memory ` +
      `of its prober process (the agent's executor and probers, without NATS).`,
    rows,
  );
}

interface Measured {
  checks: number;
  failures: number;
  cpu: number;
  /** Peak RSS of the prober process, MB (Picket only). */
  rss?: number;
}

function row(name: string, rate: number, picket: Measured, peerName: string, peer: Measured | null): Row {
  const per1000 = (m: Measured) => (1000 * m.cpu) / Math.max(1, m.checks);
  return {
    check: name,
    'rate /s': rate,
    'Picket CPU s/1000': per1000(picket),
    'Picket failed': picket.failures,
    'Picket RSS MB': picket.rss ?? 'n/a',
    peer: peerName,
    'peer CPU s/1000': peer ? per1000(peer) : 'n/a',
    'peer failed': peer ? peer.failures : 'n/a',
    'Picket / peer': peer ? per1000(picket) / per1000(peer) : 'n/a',
  };
}

async function runPicket(kind: string, url: string, rate: number, seconds: number, ca?: string): Promise<Measured> {
  const worker = join(dirname(fileURLToPath(import.meta.url)), 'probe-worker.js');
  const child = spawn(process.execPath, [worker, kind, url, String(rate), String(seconds), ...(ca ? [ca] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(out.trim()) as Measured;
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
): Promise<Measured> {
  const url = `http://127.0.0.1:${bb.port}/probe?module=${module}&target=${encodeURIComponent(target)}`;
  await fetch(url).then((r) => r.text()); // warm-up
  const cpuBefore = processCpu(bb.pid);
  let checks = 0;
  let failures = 0;
  await atFixedRate(rate, seconds, () =>
    fetch(url)
      .then((r) => r.text())
      .then(
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
  return { checks, failures, cpu: processCpu(bb.pid) - cpuBefore };
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
