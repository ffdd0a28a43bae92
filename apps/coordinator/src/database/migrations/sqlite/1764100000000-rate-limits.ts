import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The rate-limit buckets, one row per account (SQLite). */
export class RateLimits1764100000000 implements MigrationInterface {
  name = 'RateLimits1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "rate_limits" (
      "account_id" varchar(24) PRIMARY KEY NOT NULL,
      "tat" double precision NOT NULL,
      CONSTRAINT "fk_rate_limits_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "rate_limits"`);
  }
}
