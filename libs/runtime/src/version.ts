import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Picket's version, from the package.json above this file (source or dist). */
function readVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'picket' && pkg.version) return pkg.version;
    }
    dir = dirname(dir);
  }
  return '0.0.0-unknown';
}

/** Set by the single-file agent build (scripts/build-agent.mjs), which has no package.json beside it. */
declare const __PICKET_VERSION__: string | undefined;

export const PICKET_VERSION = typeof __PICKET_VERSION__ === 'string' ? __PICKET_VERSION__ : readVersion();
