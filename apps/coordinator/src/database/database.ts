import { Inject, Injectable } from '@nestjs/common';
import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { Mutex, yieldToEventLoop } from '#runtime';
import { SQLITE_UNICODE_LOWER, type Dialect } from './data-source.js';

export const DATA_SOURCE = Symbol('DATA_SOURCE');

/**
 * What TypeORM's SQLite query runner sends to begin a transaction. Should a TypeORM upgrade
 * change it, database.spec's two-connection test fails ("database is locked").
 */
const DEFERRED_BEGIN = 'BEGIN TRANSACTION';

const immediateRunners = new WeakSet<QueryRunner>();

/** Makes a SQLite query runner begin its transactions IMMEDIATE (see Database.immediateTransaction). */
function beginImmediately(runner: QueryRunner): void {
  if (immediateRunners.has(runner)) return;
  immediateRunners.add(runner);
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  runner.query = ((sql: string, ...rest: unknown[]) =>
    query(sql === DEFERRED_BEGIN ? 'BEGIN IMMEDIATE TRANSACTION' : sql, ...rest)) as typeof runner.query;
}

/**
 * The one handle repositories use. On SQLite all work shares one connection, so
 * transactions are serialised here (TypeORM would otherwise interleave them as savepoints).
 * `dialect`, `bool` and `lower` serve per-dialect SQL (docs/decisions/0012-raw-sql-where-kept.md).
 */
@Injectable()
export class Database {
  private readonly mutex = new Mutex();
  readonly dialect: Dialect;

  constructor(@Inject(DATA_SOURCE) readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'postgres' ? 'postgres' : 'sqlite';
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.dialect === 'sqlite') {
      // One connection, synchronous calls: a burst of transactions (status changes of many
      // monitors at once) would otherwise run back to back and hold every request meanwhile.
      return this.mutex.run(async () => {
        await yieldToEventLoop();
        return this.immediateTransaction(work);
      });
    }
    return this.dataSource.transaction(work);
  }

  /**
   * A SQLite transaction that takes the write lock when it begins (`BEGIN IMMEDIATE`), waiting
   * up to busy_timeout for another process (the admin CLI, a second server on the same file)
   * to finish. TypeORM begins them DEFERRED: a transaction that read, then wrote after another
   * process had committed, failed at once with "database is locked" (SQLITE_BUSY_SNAPSHOT).
   */
  private async immediateTransaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    // The SQLite driver hands out its one query runner every time: it is patched once.
    const runner = this.dataSource.createQueryRunner();
    beginImmediately(runner);
    try {
      return await runner.manager.transaction(work);
    } finally {
      await runner.release();
    }
  }

  /**
   * SQLite only: better-sqlite3's own connection (the one TypeORM uses), for reads that stream
   * many rows instead of building an object per row (docs/decisions/0031-monitor-summary.md).
   * Its calls run synchronously, like TypeORM's on this driver.
   */
  sqliteConnection(): BetterSqlite3.Database {
    if (this.dialect !== 'sqlite') throw new Error('sqliteConnection() on a PostgreSQL database');
    return (this.dataSource.driver as unknown as { databaseConnection: BetterSqlite3.Database }).databaseConnection;
  }

  /**
   * The `n`th (1-based) bound parameter of a raw statement: `$n` on PostgreSQL, `?` on SQLite,
   * which binds them in the order they appear (so each is used once, in order).
   */
  placeholder(n: number): string {
    return this.dialect === 'postgres' ? `$${n}` : '?';
  }

  /** A boolean as a query parameter (SQLite binds integers). */
  bool(value: boolean): boolean | number {
    return this.dialect === 'sqlite' ? (value ? 1 : 0) : value;
  }

  /** An SQL expression lower-casing `expression` with Unicode rules on both databases. */
  lower(expression: string): string {
    return this.dialect === 'postgres' ? `LOWER(${expression})` : `${SQLITE_UNICODE_LOWER}(${expression})`;
  }
}
