import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Private regions' enrollment tokens and enrolled agents (PostgreSQL; docs/decisions/0030-private-regions.md). */
export class AgentEnrollment1766000000000 implements MigrationInterface {
  name = 'AgentEnrollment1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "agent_enrollment_tokens" (
      "id" character varying(24) NOT NULL,
      "account_id" character varying(24) NOT NULL,
      "region_id" character varying(32) NOT NULL,
      "token_hash" character varying(64) NOT NULL,
      "created_at" bigint NOT NULL,
      "expires_at" bigint NOT NULL,
      "used_at" bigint,
      "used_by_key" character varying(56),
      CONSTRAINT "pk_agent_enrollment_tokens" PRIMARY KEY ("id"),
      CONSTRAINT "fk_agent_enrollment_tokens_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE UNIQUE INDEX "uq_agent_enrollment_tokens_hash" ON "agent_enrollment_tokens" ("token_hash")`);
    await q.query(`CREATE TABLE "private_region_agents" (
      "id" character varying(24) NOT NULL,
      "account_id" character varying(24) NOT NULL,
      "region_id" character varying(32) NOT NULL,
      "name" text NOT NULL,
      "public_key" character varying(56) NOT NULL,
      "token_id" character varying(24) NOT NULL,
      "enrolled_at" bigint NOT NULL,
      "revoked_at" bigint,
      CONSTRAINT "pk_private_region_agents" PRIMARY KEY ("id"))`);
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
