import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Abuse limits (docs/decisions/0018-abuse-limits-and-quotas.md), SQLite: the failure budgets of
 * client addresses that failed to authenticate, and a name for each API key (`keys list`).
 */
export class AbuseLimits1765200000000 implements MigrationInterface {
  name = 'AbuseLimits1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "auth_failures" (
      "bucket" varchar(80) PRIMARY KEY NOT NULL,
      "tat" double precision NOT NULL)`);
    await q.query(`ALTER TABLE "api_keys" ADD COLUMN "name" text NOT NULL DEFAULT ('')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "api_keys" DROP COLUMN "name"`);
    await q.query(`DROP TABLE "auth_failures"`);
  }
}
