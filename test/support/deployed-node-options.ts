import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The NODE_OPTIONS that deploy/ gives `app`, from its systemd unit or its image (there: NODE_OPTIONS
 * or the flags of its CMD): the one place the heap limits are written (the benchmarks run "as
 * deployed" from here).
 */
export function deployedNodeOptions(app: 'agent' | 'coordinator', artifact: 'systemd' | 'docker' = 'systemd'): string {
  const path = artifact === 'systemd' ? `deploy/systemd/picket-${app}.service` : `deploy/docker/${app}.Dockerfile`;
  const text = readFileSync(repoFile(path), 'utf8');
  const match = /^(?:Environment="NODE_OPTIONS=|ENV NODE_OPTIONS=")([^"\n]*)"$/m.exec(text);
  if (match) return match[1] ?? '';
  // The agent image gives them as flags before the script: its node binary has a file
  // capability, and Node ignores NODE_OPTIONS then (docs/decisions/0021-per-monitor-metrics-and-node-24.md).
  const cmd = /^CMD \["node", ((?:"--[^"]+", )+)"[^"]+"\]$/m.exec(text);
  if (!cmd) throw new Error(`${path} sets no NODE_OPTIONS and runs node without flags`);
  return [...(cmd[1] ?? '').matchAll(/"([^"]+)"/g)].map((flag) => flag[1]).join(' ');
}

/** A file of the repository, found upwards from this module (which may run from dist/). */
function repoFile(path: string): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, path);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${path} not found above ${fileURLToPath(import.meta.url)}`);
  }
}
