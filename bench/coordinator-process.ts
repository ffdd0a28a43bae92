import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './report.js';

/** The repository root (this file runs from dist/bench). */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CoordinatorProcess {
  child: ChildProcess;
  pid: number;
  url: string;
}

/** Extra node arguments for every coordinator a bench starts (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
const NODE_ARGS = (process.env.BENCH_COORDINATOR_NODE_ARGS ?? '').split(' ').filter(Boolean);

/** Starts the built coordinator (`dist/`) with `env` on a free loopback port; resolves once it is ready (`/readyz`). */
export async function startCoordinator(env: Record<string, string>, port = freePort()): Promise<CoordinatorProcess> {
  const child = spawn(process.execPath, [...NODE_ARGS, join(ROOT, 'dist/apps/coordinator/src/main.js')], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`coordinator exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { child, pid: child.pid!, url };
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error('coordinator did not start within 120 s');
}

/** SIGTERM (a clean stop), SIGKILL after 30 s. */
export async function stopCoordinator({ child }: CoordinatorProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(30_000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** Resident memory of a process, MB (NaN once it has exited). */
export function processRssMb(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return NaN;
  }
  const line = status.split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

/**
 * A port for a coordinator: 20000–32767, below Linux's ephemeral range (32768–60999), from which
 * the system picks the ports of the benchmark's own listeners (`listen(0)`, the probed target
 * among them) and of outgoing connections: one picked there once made a start fail with
 * EADDRINUSE.
 */
export function freePort(): number {
  return 20_000 + Math.floor(Math.random() * 12_768);
}
