import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Abuse limits (docs/decisions/0018-abuse-limits-and-quotas.md), PostgreSQL: the failure budgets
 * of client addresses that failed to authenticate, and a name for each API key (`keys list`).
 */
export class AbuseLimits1765200000000 implements MigrationInterface {
  name = 'AbuseLimits1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "auth_failures" (
      "bucket" character varying(80) NOT NULL,
      "tat" double precision NOT NULL,
      CONSTRAINT "pk_auth_failures" PRIMARY KEY ("bucket"))`);
    await q.query(`ALTER TABLE "api_keys" ADD COLUMN "name" text NOT NULL DEFAULT ''`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "api_keys" DROP COLUMN "name"`);
    await q.query(`DROP TABLE "auth_failures"`);
  }
}
