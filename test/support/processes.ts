import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTestSecretsKey } from './databases.js';
import { TEST_PASSWORD_COST } from './password-cost.js';

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
    env: withTestSecretsKey({ ...TEST_PASSWORD_COST, ...process.env, ...env }),
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

/**
 * Builds dist/ now if the sources changed, so that a process started next is timed on its own
 * start-up, not on tsc. picket.mjs builds before it runs any command, and an agent with an empty
 * NATS_URL then stops at its configuration check: a build and nothing else.
 */
export function ensureBuilt(): void {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'picket.mjs'), 'agent'], {
    cwd: REPO_ROOT,
    env: { ...process.env, NATS_URL: '' },
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (!/NATS_URL/.test(result.stderr)) throw new Error(`building dist/ failed:\n${result.stderr}`);
}

/**
 * Resolves with the moment (`performance.now()`) the process's output first matches `pattern`;
 * rejects if the process exits before. Call it right after starting the process.
 */
export function whenOutputMatches(running: RunningProcess, pattern: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(running.output())) return;
      running.child.stdout?.off('data', check);
      running.child.stderr?.off('data', check);
      resolve(performance.now());
    };
    // Registered after startPicket's own listeners, so output() already holds the chunk.
    running.child.stdout?.on('data', check);
    running.child.stderr?.on('data', check);
    check();
    void running.exited.then((code) => {
      reject(new Error(`exited (${code}) before its output matched ${pattern}:\n${running.output()}`));
    });
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The admin CLI with `args` in the repository, with exactly `env`: `node scripts/picket.mjs cli`,
 * which is what `npm run -s cli --` runs, without npm's own start (0.35 s a run, and the CLI
 * suites run it some 70 times); with `{ npm: true }` through npm, exactly as an operator types it.
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  { npm = false }: { npm?: boolean } = {},
): Promise<CliResult> {
  const [command, commandArgs] = npm
    ? [process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '-s', 'cli', '--', ...args]]
    : [process.execPath, [join(REPO_ROOT, 'scripts', 'picket.mjs'), 'cli', ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
