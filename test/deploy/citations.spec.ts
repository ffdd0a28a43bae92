import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/processes.js';

/**
 * The project keeps its own reasons in docs/decisions/ and the code cites those files, never
 * documents outside the repository: a citation a reader of this repository cannot follow is
 * a dead end. Every cited decision record must exist.
 */
const THIS_FILE = 'test/deploy/citations.spec.ts';
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: REPO_ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /^(apps|libs|test|bench|scripts|deploy|docs)\//.test(f) || f === 'README.md')
  .filter((f) => /\.(ts|mjs|js|md|ya?ml|service|Dockerfile)$/.test(f) && f !== THIS_FILE)
  .filter((f) => existsSync(join(REPO_ROOT, f)));

/** Names of the documents we were handed, which live outside the repository. */
const OUTSIDE =
  /\bDECISIONS\b|(?<!\d{4}-)notification-channels(\.md)? §|security-and-reliability|security reference|shared\/(ARCHITECTURE|DECISIONS|spec|reference)|\bARCHITECTURE\b/;

describe('citations', () => {
  it('reads the repository (the scan is real)', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(files).toContain('apps/coordinator/src/evaluation/status.ts');
  });

  it('cite no document outside the repository', () => {
    const outside = files.flatMap((f) =>
      readFileSync(join(REPO_ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (OUTSIDE.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(outside).toEqual([]);
  });

  it('name decision records that exist', () => {
    const cited = new Set(
      files.flatMap((f) =>
        [...readFileSync(join(REPO_ROOT, f), 'utf8').matchAll(/decisions\/(\d{4}(?:-[a-z0-9-]+)?)(\.md)?/g)].map(
          (m) => m[1]!,
        ),
      ),
    );
    expect(cited.size).toBeGreaterThan(5);
    const records = execFileSync('ls', [join(REPO_ROOT, 'docs/decisions')], { encoding: 'utf8' }).split('\n');
    const missing = [...cited].filter((c) => !records.some((r) => r === `${c}.md` || r.startsWith(`${c}-`)));
    expect(missing).toEqual([]);
  });
});
