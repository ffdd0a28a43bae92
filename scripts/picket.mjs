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

/** Builds dist/ when any source or config is newer than the last build (one builder at a time). */
function ensureBuilt() {
  const stamp = join(root, 'dist', '.build-stamp');
  const sources = Math.max(
    newestMtime(join(root, 'apps')),
    newestMtime(join(root, 'libs')),
    newestMtime(join(root, 'bench')),
    newestMtime(join(root, 'package.json')),
    newestMtime(join(root, 'tsconfig.json')),
    newestMtime(join(root, 'tsconfig.build.json')),
  );
  if (newestMtime(stamp) >= sources) return;
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
    if (newestMtime(stamp) >= sources) return;
    say('building…');
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    built = run(process.execPath, [tsc, '-p', 'tsconfig.build.json']) === 0;
    if (built) writeFileSync(stamp, new Date().toISOString());
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
  if (!built) {
    say('build failed');
    process.exit(1);
  }
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
