import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Starts `node scripts/picket.mjs <command>` (which builds dist/ if sources changed) with
 * the given environment, capturing its output for failure messages.
 */
export function startPicket(command: 'start' | 'agent', env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'picket.mjs'), command], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  return {
    child,
    output: () => output,
    exited,
    kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts an agent process for tests: fast heartbeats, a short drain, health on a free port. */
export function startTestAgent(nats: { url: string; prefix: string }, id: string, regions: string): RunningProcess {
  return startPicket('agent', {
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    AGENT_ID: id,
    AGENT_REGIONS: regions,
    AGENT_HTTP_PORT: '0',
    AGENT_HEARTBEAT_SECONDS: '1',
    AGENT_DRAIN_SECONDS: '2',
  });
}
