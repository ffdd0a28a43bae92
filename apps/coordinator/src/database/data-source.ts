import type BetterSqlite3 from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource, type DataSourceOptions, type MixedList } from 'typeorm';
import { SQLITE_CACHE_MB_DEFAULT, type DatabaseTarget } from '../config/database-url.js';
import { POSTGRES_MIGRATIONS } from './migrations/postgres/index.js';
import { SQLITE_MIGRATIONS } from './migrations/sqlite/index.js';

export type Dialect = 'sqlite' | 'postgres';

/** A Unicode-aware LOWER registered on every SQLite connection; for queries only, never in the schema. */
export const SQLITE_UNICODE_LOWER = 'picket_lower';

export { parseDatabaseUrl, type DatabaseTarget } from '../config/database-url.js';

/**
 * The entity classes of every table. The database layer imports no feature: the composition
 * root assembles the list (apps/coordinator/src/entities.ts) and passes it in.
 */
export type Entities = NonNullable<DataSourceOptions['entities']>;

/** `sqlite:<path>` (a file path, or `:memory:`) or `postgres://…` / `postgresql://…`. */
export function dataSourceOptions(target: DatabaseTarget, entities: Entities): DataSourceOptions {
  const common = {
    entities,
    migrationsTableName: 'picket_migrations',
    migrationsRun: false,
    synchronize: false, // reviewed migrations only (docs/decisions/0015-two-migration-sets.md)
    logging: false,
  } as const;
  if (target.dialect === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      database: target.path,
      enableWAL: target.path !== ':memory:',
      prepareDatabase: (db: Pick<BetterSqlite3.Database, 'pragma' | 'function'>) => {
        db.pragma('busy_timeout = 2000');
        db.pragma('foreign_keys = ON');
        db.pragma('synchronous = NORMAL');
        // Negative: KiB, not pages (docs/decisions/0045-a-smaller-sqlite-page-cache.md).
        db.pragma(`cache_size = -${(target.cacheMb ?? SQLITE_CACHE_MB_DEFAULT) * 1024}`);
        // SQLite's LOWER folds ASCII only; Database.lower() uses this for Unicode, as PostgreSQL does.
        db.function(SQLITE_UNICODE_LOWER, { deterministic: true }, (value: unknown) =>
          typeof value === 'string' ? value.toLowerCase() : value,
        );
      },
      migrations: SQLITE_MIGRATIONS as MixedList<string | (new () => object)>,
    };
  }
  return {
    ...common,
    type: 'postgres',
    url: target.url,
    applicationName: 'picket',
    extra: { max: POSTGRES_POOL_SIZE, connectionTimeoutMillis: 5000 },
    migrations: POSTGRES_MIGRATIONS as MixedList<string | (new () => object)>,
  };
}

/** Connections a coordinator opens to PostgreSQL at most (its pool). */
export const POSTGRES_POOL_SIZE = 10;

/** Owner-only modes of the embedded database's folder and files (docs/decisions/0020-secrets-at-rest.md). */
export const DATA_DIRECTORY_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

/** The files SQLite keeps for a database: the file itself, its write-ahead log and shared memory. */
export function sqliteFiles(path: string): string[] {
  const file = resolve(path);
  return [file, `${file}-wal`, `${file}-shm`];
}

/**
 * Tightens `file` to owner read and write when it exists and anyone else may read or write it.
 * A file of another owner (reached through its group) cannot be changed and is left as it is.
 */
export function tightenFile(file: string): void {
  if (!existsSync(file)) return;
  if ((statSync(file).mode & 0o077) === 0) return;
  try {
    chmodSync(file, DATA_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

/**
 * The embedded database's folder, created owner-only (0700) when missing; a folder that already
 * exists is left as it is (it may be shared, such as /var/lib). Returns its absolute path.
 */
export function ensureDataDirectory(path: string): string {
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: DATA_DIRECTORY_MODE });
    chmodSync(dir, DATA_DIRECTORY_MODE); // whatever the umask
  }
  return dir;
}

/**
 * Before SQLite opens the file: the folder exists, a new database file is created 0600 (SQLite
 * gives its -wal and -shm files the mode of the database file), and existing files of a looser
 * mode (0644 from older versions) are tightened to 0600.
 */
export function prepareSqliteFiles(path: string): void {
  ensureDataDirectory(path);
  const [file = resolve(path)] = sqliteFiles(path);
  if (!existsSync(file)) closeSync(openSync(file, 'a', DATA_FILE_MODE));
  for (const each of sqliteFiles(path)) tightenFile(each);
}

/** Connects (creating the SQLite file's folder and file owner-only if needed); does not migrate. */
export async function openDataSource(target: DatabaseTarget, entities: Entities): Promise<DataSource> {
  const embedded = target.dialect === 'sqlite' && target.path !== ':memory:' ? target.path : null;
  if (embedded !== null) prepareSqliteFiles(embedded);
  const dataSource = new DataSource(dataSourceOptions(target, entities));
  await dataSource.initialize();
  // The -wal and -shm files SQLite made just now (0600 like the file); ones left by an older version are tightened.
  if (embedded !== null) for (const each of sqliteFiles(embedded)) tightenFile(each);
  return dataSource;
}
