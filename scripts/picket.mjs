// The entry behind `npm start`, `npm test` and `npm run cli`. On a fresh clone it installs
// dependencies and builds first, so the README's two commands work as written. Everything
// it prints itself goes to stderr: `npm run -s cli` keeps stdout for the command's JSON.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const say = (message) => process.stderr.write(`[picket] ${message}\n`);

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: ['inherit', 2, 2], ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

function ensureInstalled() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= newestMtime(lock)) return;
  say('installing dependencies (first run; native addons are compiled, this takes a few minutes)…');
  // `npm install` honours the lock file; `npm ci` would also demand every platform's optional
  // binaries in it, which registry mirrors that carry only some platforms cannot satisfy.
  if (run(npm, ['install', '--no-audit', '--no-fund']) !== 0) {
    say('dependency installation failed');
    process.exit(1);
  }
}

/** Runs `build` when any of `sources` is newer than `stamp` (one builder at a time, across processes). */
function buildIfStale(stamp, sources, label, build) {
  const newest = Math.max(...sources.map((path) => newestMtime(join(root, path))));
  if (newestMtime(stamp) >= newest) return;
  const lockDir = join(root, 'dist', '.build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch {
      if (Date.now() > deadline) rmSync(lockDir, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  let built;
  try {
    if (newestMtime(stamp) >= newest) return;
    say(`building ${label}…`);
    built = build();
    if (built) writeFileSync(stamp, new Date().toISOString());
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
  if (!built) {
    say(`${label}: build failed`);
    process.exit(1);
  }
}

/** Builds dist/ when any source or config is newer than the last build. */
function ensureBuilt() {
  buildIfStale(
    join(root, 'dist', '.build-stamp'),
    ['apps', 'libs', 'bench', 'package.json', 'tsconfig.json', 'tsconfig.build.json'],
    'the coordinator and agent',
    () => {
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      return run(process.execPath, [tsc, '-p', 'tsconfig.build.json']) === 0;
    },
  );
  ensureDashboardBuilt();
}

/**
 * Builds the web dashboard (Vite, into dist/dashboard) when its sources are newer than its
 * stamp; the coordinator serves it at / (docs/dashboard.md).
 */
function ensureDashboardBuilt() {
  buildIfStale(
    join(root, 'dist', '.dashboard-stamp'),
    ['apps/dashboard', 'libs/contracts/src/regions.ts', 'apps/coordinator/src/auth/permissions.ts', 'package.json'],
    'the dashboard',
    () => {
      const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
      return run(process.execPath, [vite, 'build', '--config', 'apps/dashboard/vite.config.mjs']) === 0;
    },
  );
}

const [command, ...args] = process.argv.slice(2);

/** Runs a built entry point in this process, as if started directly with `args`. */
async function runBuilt(entry) {
  const file = join(root, entry);
  process.argv = [process.argv[0], file, ...args];
  await import(pathToFileURL(file).href);
}

switch (command) {
  case 'start':
    ensureInstalled();
    ensureBuilt();
    await runBuilt('dist/apps/coordinator/src/main.js');
    break;
  case 'agent':
    ensureInstalled();
    ensureBuilt();
    await runBuilt('dist/apps/agent/src/main.js');
    break;
  case 'cli':
    ensureInstalled();
    ensureBuilt();
    await runBuilt('dist/apps/coordinator/src/cli.js');
    break;
  case 'build-agent':
    ensureInstalled();
    ensureBuilt();
    await runBuilt('scripts/build-agent.mjs');
    break;
  case 'bench':
    ensureInstalled();
    ensureBuilt();
    await runBuilt('dist/bench/run.js');
    break;
  case 'test': {
    ensureInstalled();
    // The suites run from the sources, but the dashboard's browser tests need its build.
    ensureDashboardBuilt();
    const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
    const status = run(
      process.execPath,
      ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', jest, ...args],
      {
        stdio: 'inherit',
      },
    );
    process.exit(status);
    break;
  }
  default:
    say(`usage: node scripts/picket.mjs start|agent|test|cli|bench|build-agent [arguments]`);
    process.exit(2);
}
