import type { DataSource } from 'typeorm';

/** An arbitrary, fixed key for PostgreSQL's advisory lock around schema changes and bootstrap. */
const MIGRATION_LOCK_KEY = 7_460_117;

function isSqliteBusy(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

async function withAdvisoryLock<T>(dataSource: DataSource, fn: () => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await fn();
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}

async function retryWhileBusy<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isSqliteBusy(error) || attempt >= 40) throw error;
      await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
    }
  }
}

/**
 * Runs a short check-then-write (first-start bootstrap) while no other process runs it on
 * PostgreSQL (an advisory lock). On SQLite it only runs `fn` again when the database was busy:
 * another process can still pass the same check at the same time, so `fn` must check again where
 * it writes (inside its write transaction, or by an insert that ignores a conflict).
 */
export async function exclusively<T>(dataSource: DataSource, fn: () => Promise<T>): Promise<T> {
  return dataSource.options.type === 'postgres' ? withAdvisoryLock(dataSource, fn) : retryWhileBusy(fn);
}

/**
 * Applies every pending reviewed migration of the database's dialect, one process at a time:
 * PostgreSQL under an advisory lock (each migration in its own transaction); SQLite inside
 * one BEGIN IMMEDIATE transaction, which holds the file's write lock, so a second process
 * (the CLI next to a running server) waits and then finds nothing to do.
 * docs/decisions/0015-two-migration-sets.md
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  if (dataSource.options.type === 'postgres') {
    return withAdvisoryLock(dataSource, async () => {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    });
  }
  return retryWhileBusy(async () => {
    // Foreign keys off for the migrations (SQLite's procedure for rebuilding a table others
    // reference: dropping it must not cascade) and checked before the commit. The pragma is a
    // no-op inside a transaction, so it is set before BEGIN (one connection: better-sqlite3).
    await dataSource.query('PRAGMA foreign_keys = OFF');
    try {
      await dataSource.query('BEGIN IMMEDIATE');
      try {
        const applied = await dataSource.runMigrations({ transaction: 'none' });
        const broken = await dataSource.query<unknown[]>('PRAGMA foreign_key_check');
        if (broken.length > 0) throw new Error(`migrations left ${broken.length} broken foreign keys`);
        await dataSource.query('COMMIT');
        return applied.map((m) => m.name);
      } catch (error) {
        await dataSource.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      await dataSource.query('PRAGMA foreign_keys = ON');
    }
  });
}
