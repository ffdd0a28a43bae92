import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { NestFactory } from '@nestjs/core';
import BetterSqlite3 from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTITIES } from '../entities.js';
import { DatabaseModule, WalCheckpointing } from './database.module.js';
import { Database } from './database.js';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, WalCheckpointer } from './wal-checkpointer.js';

/** Polls `ready` every 10 ms for up to 5 s. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ready(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ready()) throw new Error('timed out');
}

describe('WalCheckpointer', () => {
  let dir: string;
  let main: BetterSqlite3.Database;
  const started: WalCheckpointer[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'picket-wal-'));
    main = new BetterSqlite3(join(dir, 'p.db'));
    main.pragma('journal_mode = WAL');
    main.pragma('synchronous = NORMAL');
    main.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  });

  afterEach(async () => {
    for (const c of started.splice(0)) await c.stop();
    if (main.open) main.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(intervalMs = 3_600_000, onFailure?: (error: string) => void): Promise<WalCheckpointer> {
    const checkpointer = await WalCheckpointer.start(main, { intervalMs, onFailure });
    started.push(checkpointer);
    return checkpointer;
  }

  /** `transactions` commits of 100 rows of 2 KiB each: a row fills a page, about 100 pages of log per commit. */
  function write(transactions: number): void {
    const insert = main.prepare('INSERT INTO t (body) VALUES (?)');
    const batch = main.transaction(() => {
      for (let i = 0; i < 100; i++) insert.run('x'.repeat(2048));
    });
    for (let i = 0; i < transactions; i++) batch();
  }

  const autocheckpoint = () => main.pragma('wal_autocheckpoint', { simple: true });

  it('leaves the checkpoints to the worker: the main connection commits past 1000 pages without one', async () => {
    const checkpointer = await start();
    expect(autocheckpoint()).toBe(BACKSTOP_AUTOCHECKPOINT_PAGES);
    write(30);
    const result = await checkpointer.checkpointNow();
    // Every frame of the 30 commits is still in the log, and the worker's checkpoint copied them all.
    expect(result.log).toBeGreaterThan(3000);
    expect(result.checkpointed).toBe(result.log);
    expect(result.busy).toBe(0);
    expect(checkpointer.completed).toBe(1);
  });

  it('without it the main connection checkpoints for itself (the test above can fail)', async () => {
    write(30);
    const checkpointer = await start();
    // The main connection checkpointed each time the log passed 1000 pages, and the next commit
    // started it over: at most 1000 pages and one commit's remain.
    expect((await checkpointer.checkpointNow()).log).toBeLessThan(1200);
  });

  it('checkpoints on its interval, and the rows are all there afterwards', async () => {
    const checkpointer = await start(20);
    write(5);
    await until(() => checkpointer.completed >= 2);
    expect(main.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 500 });
  });

  it('stop ends the worker and gives the checkpoints back to the main connection', async () => {
    const onFailure = jest.fn();
    const checkpointer = await start(3_600_000, onFailure);
    await checkpointer.stop();
    expect(autocheckpoint()).toBe(1000);
    await expect(checkpointer.checkpointNow()).rejects.toThrow('stopped');
    await checkpointer.stop(); // twice is harmless
    expect(onFailure).not.toHaveBeenCalled();
  });

  it('refuses to start, changing nothing, when the worker cannot open the file', async () => {
    const pragma = jest.fn();
    const missing = { name: join(dir, 'gone', 'x.db'), open: true, pragma } as unknown as BetterSqlite3.Database;
    await expect(WalCheckpointer.start(missing)).rejects.toThrow();
    expect(pragma).not.toHaveBeenCalled();
  });
});

describe('DatabaseModule with walCheckpointWorker', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'picket-wal-module-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  async function boot(walCheckpointWorker: boolean) {
    const file = join(dir, `${walCheckpointWorker}.db`);
    const app = await NestFactory.createApplicationContext(
      DatabaseModule.forRoot({ dialect: 'sqlite', path: file }, ENTITIES, { walCheckpointWorker }),
      { logger: false },
    );
    const main = app.get(Database).sqliteConnection();
    const autocheckpoint = main.pragma('wal_autocheckpoint', { simple: true });
    main.exec('CREATE TABLE t (x)');
    // The worker's connection takes its share of the log: only the last connection to close folds it in.
    if (walCheckpointWorker) await app.get(WalCheckpointing).checkpointer?.checkpointNow();
    await app.close();
    return { autocheckpoint, logLeft: existsSync(`${file}-wal`) };
  }

  it.each([
    [true, BACKSTOP_AUTOCHECKPOINT_PAGES],
    [false, 1000],
  ])(
    'walCheckpointWorker %s: the main connection auto-checkpoints at %i pages; the log is folded in at close',
    async (worker, pages) => {
      // The worker's connection is closed before the main one, which as the last folds the log in.
      expect(await boot(worker)).toEqual({ autocheckpoint: pages, logLeft: false });
    },
  );
});
