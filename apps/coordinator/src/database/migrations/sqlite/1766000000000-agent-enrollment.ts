import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Private regions' enrollment tokens and enrolled agents (SQLite; docs/decisions/0030-private-regions.md). */
export class AgentEnrollment1766000000000 implements MigrationInterface {
  name = 'AgentEnrollment1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "agent_enrollment_tokens" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "account_id" varchar(24) NOT NULL,
      "region_id" varchar(32) NOT NULL,
      "token_hash" varchar(64) NOT NULL,
      "created_at" bigint NOT NULL,
      "expires_at" bigint NOT NULL,
      "used_at" bigint,
      "used_by_key" varchar(56),
      CONSTRAINT "fk_agent_enrollment_tokens_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE UNIQUE INDEX "uq_agent_enrollment_tokens_hash" ON "agent_enrollment_tokens" ("token_hash")`);
    await q.query(`CREATE TABLE "private_region_agents" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "account_id" varchar(24) NOT NULL,
      "region_id" varchar(32) NOT NULL,
      "name" text NOT NULL,
      "public_key" varchar(56) NOT NULL,
      "token_id" varchar(24) NOT NULL,
      "enrolled_at" bigint NOT NULL,
      "revoked_at" bigint)`);
    await q.query(`CREATE UNIQUE INDEX "uq_private_region_agents_key" ON "private_region_agents" ("public_key")`);
    await q.query(
      `CREATE INDEX "ix_private_region_agents_region" ON "private_region_agents" ("account_id", "region_id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "private_region_agents"`);
    await q.query(`DROP TABLE "agent_enrollment_tokens"`);
  }
}
