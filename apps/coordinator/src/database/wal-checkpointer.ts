import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * How often the worker checkpoints the write-ahead log. At 100,000 monitors the results write
 * about 8 MB of log a second; a checkpoint a second keeps the log near that size.
 */
export const WAL_CHECKPOINT_INTERVAL_MS = 1_000;

/**
 * The main connection's own auto-checkpoint while the worker runs, in pages (64 MiB of 4 KiB
 * pages): only a backstop, for a worker that falls far behind. SQLite's default is 1000.
 */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 16_384;

/** SQLite's own default auto-checkpoint, put back when the worker stops. */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;

/** What one `PRAGMA wal_checkpoint(PASSIVE)` reported: frames in the log, and copied into the database. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

type WorkerReply =
  { kind: 'ready' } | ({ kind: 'done'; id: number } & CheckpointResult) | { kind: 'failed'; id: number; error: string };

/**
 * The worker's own program (CommonJS, run with `eval`): its own connection to the same file,
 * a PASSIVE checkpoint every interval and on request. PASSIVE never waits for a lock and never
 * blocks the main connection's reads or writes; it copies what no reader still needs.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
function checkpoint(id) {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ kind: 'done', id, ...result });
  } catch (error) {
    parentPort.postMessage({ kind: 'failed', id, error: String(error && error.message) });
  }
}
const timer = setInterval(() => checkpoint(0), workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message.kind === 'now') checkpoint(message.id);
  if (message.kind === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
parentPort.postMessage({ kind: 'ready' });
`;

export interface WalCheckpointerOptions {
  intervalMs?: number;
  /** The first failed checkpoint after one that succeeded, and the worker's end if it was not stopped. */
  onFailure?: (error: string) => void;
}

/**
 * Checkpoints an embedded database's write-ahead log from a worker thread, so the main thread's
 * commits never do it (docs/decisions/0047-wal-checkpoints-off-the-event-loop.md). better-sqlite3
 * runs on the event loop's thread: a commit that crossed SQLite's auto-checkpoint threshold
 * copied the log into the database and synced both there, holding every request for 20–75 ms
 * about twice a second at 100,000 monitors.
 *
 * `start` resolves once the worker has its connection; the main connection's auto-checkpoint is
 * then only a backstop (BACKSTOP_AUTOCHECKPOINT_PAGES). `stop` puts SQLite's default back, so the
 * main connection, the last one open, checkpoints and removes the log when it closes.
 */
export class WalCheckpointer {
  private readonly pending = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private stopping = false;
  private stopped = false;
  private failing = false;
  /** Checkpoints the worker completed (by interval or on request). */
  completed = 0;

  private constructor(
    private readonly worker: Worker,
    private readonly main: Pick<BetterSqlite3.Database, 'pragma' | 'open'>,
    private readonly onFailure: (error: string) => void,
  ) {
    worker.on('message', (reply: WorkerReply) => this.received(reply));
    worker.on('error', (error) => this.gone(error.message));
    worker.on('exit', () => this.gone('the checkpoint worker exited'));
  }

  /** Starts the worker for the file `main` has open; rejects (and changes nothing) if it cannot open it. */
  static async start(
    main: Pick<BetterSqlite3.Database, 'pragma' | 'name' | 'open'>,
    { intervalMs = WAL_CHECKPOINT_INTERVAL_MS, onFailure = () => undefined }: WalCheckpointerOptions = {},
  ): Promise<WalCheckpointer> {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file: main.name, intervalMs },
    });
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => reject(error);
      // A worker that ended without an error before it was ready would otherwise leave the start waiting.
      const ended = (code: number) => reject(new Error(`the checkpoint worker exited (${code}) before it was ready`));
      worker.once('error', failed);
      worker.once('exit', ended);
      worker.once('message', (reply: WorkerReply) => {
        worker.off('error', failed);
        worker.off('exit', ended);
        if (reply.kind === 'ready') resolve();
        else reject(new Error(`unexpected first message from the checkpoint worker: ${reply.kind}`));
      });
    });
    const checkpointer = new WalCheckpointer(worker, main, onFailure);
    // After the listeners: adding a 'message' listener refs the worker again, and an un-stopped
    // worker would keep the process from exiting.
    worker.unref();
    main.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
    return checkpointer;
  }

  /** A checkpoint now, in the worker (tests and diagnostics; the interval runs regardless). */
  checkpointNow(): Promise<CheckpointResult> {
    if (this.stopped) return Promise.reject(new Error('the checkpoint worker is stopped'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ kind: 'now', id });
    });
  }

  /** Ends the worker and gives checkpoints back to the main connection. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopping = true;
    // Waited for: unref'd, the worker would let a process with nothing else to do exit (code 0)
    // in the middle of its shutdown, before the code after it ran.
    this.worker.ref();
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage({ kind: 'stop' });
    await exited;
  }

  private received(reply: WorkerReply): void {
    if (reply.kind === 'ready') return;
    if (reply.kind === 'done') {
      this.completed++;
      this.failing = false;
    } else if (!this.failing) {
      this.failing = true;
      this.onFailure(reply.error);
    }
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (reply.kind === 'done') waiting.resolve({ busy: reply.busy, log: reply.log, checkpointed: reply.checkpointed });
    else waiting.reject(new Error(reply.error));
  }

  /** The worker is gone (stopped, or failed): the main connection checkpoints for itself again. */
  private gone(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    if (!this.stopping) this.onFailure(reason);
    if (this.main.open) this.main.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
    for (const waiting of this.pending.values()) waiting.reject(new Error(reason));
    this.pending.clear();
  }
}
