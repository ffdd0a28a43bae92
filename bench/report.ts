import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { PICKET_VERSION } from '#runtime';

export type Row = Record<string, string | number>;

/** A plain-text table, also valid Markdown. */
export function table(rows: readonly Row[]): string {
  const first = rows[0];
  if (!first) return '(no rows)\n';
  const columns = Object.keys(first);
  const cell = (v: string | number | undefined) => (typeof v === 'number' ? formatNumber(v) : (v ?? ''));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(cell(r[c])).length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [
    line(columns),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map((r) => line(columns.map((c) => String(cell(r[c]))))),
  ].join('\n');
}

function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);
}

/** Machine, versions and date: the header of every published result. */
export function environment(extra: Record<string, string> = {}): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const facts = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    node: process.version,
    picket: PICKET_VERSION,
    ...extra,
  };
  return Object.entries(facts)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
}

const DOC = join(process.cwd(), 'docs', 'benchmarks.md');

/** Prints the table and appends it, with the environment, to docs/benchmarks.md. */
export function publish(
  name: string,
  description: string,
  rows: readonly Row[],
  extra: Record<string, string> = {},
): void {
  const text = `### ${name}\n\n${description}\n\n${environment(extra)}\n\n${table(rows)}\n`;
  process.stdout.write(`\n${text}\n`);
  if (!existsSync(DOC)) writeFileSync(DOC, '# Benchmarks\n\nResults appended by `npm run bench -- <name>`.\n\n');
  appendFileSync(DOC, `\n${text}`);
}

/** Percentile of a sorted array (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** CPU seconds (user + system) this process used since `since`. */
export function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

export function rssMb(): number {
  return process.memoryUsage().rss / 2 ** 20;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Starts `start(i, due)` for i = 0 … rate × seconds − 1, the i-th at `due` = the first start
 * + i / rate (ms since the epoch), like a scheduler would; resolves when every one has settled.
 */
export async function atFixedRate(
  rate: number,
  seconds: number,
  start: (i: number, due: number) => Promise<void>,
): Promise<void> {
  const pending: Promise<void>[] = [];
  const started = Date.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    pending.push(start(i, due));
  }
  await Promise.all(pending);
}

/**
 * Runs a benchmark's worker process, which prints one JSON line on stdout, and returns that line
 * parsed; its stderr goes to ours. Rejects when the worker fails.
 */
export async function jsonLineOf<T>(command: string, args: readonly string[], env = process.env): Promise<T> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  // 'close', not 'exit': the whole of stdout has been read by then.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`${[command, ...args].join(' ')} exited with ${code}`);
  return JSON.parse(out.trim()) as T;
}
