import { Injectable } from '@nestjs/common';
import { LessThan } from 'typeorm';
import { Database } from '../database/database.js';
import { HOUR_MS } from './gcra.js';
import { AuthFailureEntity, RateLimitEntity } from './rate-limit.entity.js';

/**
 * Where buckets live: the accounts' API budgets (`rate_limits`,
 * docs/decisions/0003-auth-permissions-rate-limit.md) and the failure budgets of client addresses
 * (`auth_failures`, docs/decisions/0018-abuse-limits-and-quotas.md). Table and column names are
 * these constants, never input.
 */
export type BucketKind = 'account' | 'auth_failure';

const TABLES: { readonly [K in BucketKind]: { table: string; key: string } } = {
  account: { table: 'rate_limits', key: 'account_id' },
  auth_failure: { table: 'auth_failures', key: 'bucket' },
};

const postgresAdmit = ({ table, key }: { table: string; key: string }) => `
  INSERT INTO "${table}" ("${key}", "tat") VALUES ($1, $2::float8 + $3::float8)
  ON CONFLICT ("${key}") DO UPDATE SET "tat" = GREATEST("${table}"."tat", $2::float8) + $3::float8
  WHERE GREATEST("${table}"."tat", $2::float8) + $3::float8 - $2::float8 <= $4::float8
  RETURNING "tat"`;

const sqliteAdmit = ({ table, key }: { table: string; key: string }) => `
  INSERT INTO "${table}" ("${key}", "tat") VALUES (?, ? + ?)
  ON CONFLICT ("${key}") DO UPDATE SET "tat" = max("${table}"."tat", ?) + ?
  WHERE max("${table}"."tat", ?) + ? - ? <= ?
  RETURNING "tat"`;

const ADMIT = {
  postgres: { account: postgresAdmit(TABLES.account), auth_failure: postgresAdmit(TABLES.auth_failure) },
  sqlite: { account: sqliteAdmit(TABLES.account), auth_failure: sqliteAdmit(TABLES.auth_failure) },
} as const;

/**
 * The buckets, shared by every coordinator replica through the database. `admit` is one
 * statement: the row is updated only if the request fits, so concurrent requests on any
 * number of replicas can never together take more than the budget.
 * One raw statement per dialect: docs/decisions/0012-raw-sql-where-kept.md.
 */
@Injectable()
export class RateLimitStore {
  constructor(private readonly db: Database) {}

  /** Charges `incrementMs` of TAT at `now` if it fits; returns the new TAT, or null when refused. */
  async admit(kind: BucketKind, id: string, now: number, incrementMs: number): Promise<number | null> {
    // better-sqlite3 binds positional parameters only: SQLite's list repeats them.
    const params =
      this.db.dialect === 'postgres'
        ? [id, now, incrementMs, HOUR_MS]
        : [id, now, incrementMs, now, incrementMs, now, incrementMs, now, HOUR_MS];
    const rows = await this.db.manager.query<{ tat: number | string }[]>(ADMIT[this.db.dialect][kind], params);
    const row = rows[0];
    return row === undefined ? null : Number(row.tat);
  }

  /** The stored TAT of a bucket, or null for one never charged (or pruned). */
  async tatOf(kind: BucketKind, id: string): Promise<number | null> {
    const row =
      kind === 'account'
        ? await this.db.manager.findOneBy(RateLimitEntity, { accountId: id })
        : await this.db.manager.findOneBy(AuthFailureEntity, { bucket: id });
    return row ? Number(row.tat) : null;
  }

  /** Forgets failure buckets that are full again (TAT in the past): the same as no row. */
  async pruneAuthFailures(now: number): Promise<void> {
    await this.db.manager.delete(AuthFailureEntity, { tat: LessThan(now) });
  }
}
