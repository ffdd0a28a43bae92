import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource, type DataSourceOptions, type MixedList } from 'typeorm';
import type { DatabaseTarget } from '../config/database-url.js';
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
    extra: { max: 10, connectionTimeoutMillis: 5000 },
    migrations: POSTGRES_MIGRATIONS as MixedList<string | (new () => object)>,
  };
}

/** Connects (creating the SQLite file's folder if needed); does not migrate. */
export async function openDataSource(target: DatabaseTarget, entities: Entities): Promise<DataSource> {
  if (target.dialect === 'sqlite' && target.path !== ':memory:') {
    mkdirSync(dirname(resolve(target.path)), { recursive: true });
  }
  const dataSource = new DataSource(dataSourceOptions(target, entities));
  await dataSource.initialize();
  return dataSource;
}
