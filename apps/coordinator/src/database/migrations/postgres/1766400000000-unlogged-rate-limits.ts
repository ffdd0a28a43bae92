import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rate-limit buckets (`rate_limits`, `auth_failures`) become UNLOGGED: charging an API
 * request no longer writes the write-ahead log nor waits for its flush at commit. After a crash
 * of PostgreSQL, or on a promoted standby, the buckets start full again
 * (docs/decisions/0043-rate-limit-buckets-unlogged.md).
 */
export class UnloggedRateLimits1766400000000 implements MigrationInterface {
  name = 'UnloggedRateLimits1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "rate_limits" SET UNLOGGED`);
    await q.query(`ALTER TABLE "auth_failures" SET UNLOGGED`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "auth_failures" SET LOGGED`);
    await q.query(`ALTER TABLE "rate_limits" SET LOGGED`);
  }
}
