import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/processes.js';

/**
 * Markdown tables render as tables only when every row has the header's cells. In GitHub's
 * Markdown an unescaped `|` splits a cell even inside backticks (a PromQL `a|b` regex, a shell
 * pipe), which breaks the row or drops the rest of it. This checks every table in the docs.
 */

/** The cells of a table row by GitHub's rule: split at every `|` not escaped as `\|`. */
function cellCount(row: string): number {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).length;
}

/** Each table (header, delimiter row, body) of a Markdown text, with the line it starts on. */
function tables(text: string): { line: number; rows: string[] }[] {
  const lines = text.split('\n');
  const found: { line: number; rows: string[] }[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*(```|~~~)/.test(lines[i]!)) inFence = !inFence;
    if (inFence) continue;
    const isTableStart =
      /^\s*\|/.test(lines[i]!) && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(lines[i + 1] ?? '');
    if (!isTableStart) continue;
    const rows: string[] = [];
    let j = i;
    while (j < lines.length && /^\s*\|/.test(lines[j]!)) rows.push(lines[j++]!);
    found.push({ line: i + 1, rows });
    i = j;
  }
  return found;
}

/** Rows whose cell count differs from the header's, as `file:line: n cells, header m`. */
function brokenRows(file: string, text: string): string[] {
  return tables(text).flatMap(({ line, rows }) => {
    const want = cellCount(rows[0]!);
    return rows.flatMap((row, k) => {
      const got = cellCount(row);
      return got === want ? [] : [`${file}:${line + k}: ${got} cells, the header has ${want}`];
    });
  });
}

const DOCS = [
  'README.md',
  'deploy/README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(REPO_ROOT, 'docs/decisions'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/decisions/${f}`),
];

describe('Markdown tables in the docs', () => {
  it('finds the tables (docs/operations.md has its metrics and alerts tables)', () => {
    const text = readFileSync(join(REPO_ROOT, 'docs/operations.md'), 'utf8');
    expect(tables(text).length).toBeGreaterThanOrEqual(4);
  });

  it('catches a pipe inside a cell, even in backticks', () => {
    const broken = '| Alert | When |\n| --- | --- |\n| `X` | `outcome=~"bug|config"` |\n| `Y` | `a\\|b` |\n';
    expect(brokenRows('example.md', broken)).toEqual(['example.md:3: 3 cells, the header has 2']);
  });

  it.each(DOCS)('%s: every row has as many cells as its header', (file) => {
    expect(brokenRows(file, readFileSync(join(REPO_ROOT, file), 'utf8'))).toEqual([]);
  });
});
