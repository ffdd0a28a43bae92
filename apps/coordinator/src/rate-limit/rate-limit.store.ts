import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { HOUR_MS } from './gcra.js';
import { RateLimitEntity } from './rate-limit.entity.js';

const POSTGRES_ADMIT = `
  INSERT INTO "rate_limits" ("account_id", "tat") VALUES ($1, $2::float8 + $3::float8)
  ON CONFLICT ("account_id") DO UPDATE SET "tat" = GREATEST("rate_limits"."tat", $2::float8) + $3::float8
  WHERE GREATEST("rate_limits"."tat", $2::float8) + $3::float8 - $2::float8 <= $4::float8
  RETURNING "tat"`;

const SQLITE_ADMIT = `
  INSERT INTO "rate_limits" ("account_id", "tat") VALUES (?, ? + ?)
  ON CONFLICT ("account_id") DO UPDATE SET "tat" = max("rate_limits"."tat", ?) + ?
  WHERE max("rate_limits"."tat", ?) + ? - ? <= ?
  RETURNING "tat"`;

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
  async admit(accountId: string, now: number, incrementMs: number): Promise<number | null> {
    // better-sqlite3 binds positional parameters only: SQLite's list repeats them.
    const [sql, params] =
      this.db.dialect === 'postgres'
        ? [POSTGRES_ADMIT, [accountId, now, incrementMs, HOUR_MS]]
        : [SQLITE_ADMIT, [accountId, now, incrementMs, now, incrementMs, now, incrementMs, now, HOUR_MS]];
    const rows = await this.db.manager.query<{ tat: number | string }[]>(sql, params);
    const row = rows[0];
    return row === undefined ? null : Number(row.tat);
  }

  async tatOf(accountId: string): Promise<number | null> {
    const row = await this.db.manager.findOneBy(RateLimitEntity, { accountId });
    return row ? Number(row.tat) : null;
  }
}
