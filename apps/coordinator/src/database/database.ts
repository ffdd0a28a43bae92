import { Inject, Injectable } from '@nestjs/common';
import type { DataSource, EntityManager } from 'typeorm';
import { Mutex } from '#runtime';
import { SQLITE_UNICODE_LOWER, type Dialect } from './data-source.js';

export const DATA_SOURCE = Symbol('DATA_SOURCE');

/**
 * The one handle repositories use. On SQLite all work shares one connection, so
 * transactions are serialised here (TypeORM would otherwise interleave them as savepoints).
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
    if (this.dialect === 'sqlite') return this.mutex.run(() => this.dataSource.transaction(work));
    return this.dataSource.transaction(work);
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
