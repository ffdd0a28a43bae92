import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dashboard users, their sessions and one-time tokens (PostgreSQL;
 * docs/decisions/0022-users-and-sessions.md).
 */
export class UsersAndSessions1765600000000 implements MigrationInterface {
  name = 'UsersAndSessions1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "users" (
      "id" character varying(24) NOT NULL,
      "account_id" character varying(24) NOT NULL,
      "email" text NOT NULL,
      "email_key" character varying(254) NOT NULL,
      "name" text NOT NULL,
      "role" character varying(16) NOT NULL,
      "password_hash" text,
      "disabled" boolean NOT NULL,
      "created_at" bigint NOT NULL,
      "updated_at" bigint NOT NULL,
      "last_login_at" bigint,
      CONSTRAINT "pk_users" PRIMARY KEY ("id"),
      CONSTRAINT "fk_users_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE INDEX "idx_users_account_created" ON "users" ("account_id", "created_at")`);
    await q.query(`CREATE UNIQUE INDEX "uq_users_email_key" ON "users" ("email_key")`);
    await q.query(`CREATE TABLE "one_time_tokens" (
      "id" character varying(24) NOT NULL,
      "token_hash" character varying(64) NOT NULL,
      "purpose" character varying(16) NOT NULL,
      "account_id" character varying(24) NOT NULL,
      "user_id" character varying(24),
      "created_at" bigint NOT NULL,
      "expires_at" bigint NOT NULL,
      "used_at" bigint,
      CONSTRAINT "pk_one_time_tokens" PRIMARY KEY ("id"),
      CONSTRAINT "fk_one_time_tokens_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_one_time_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE UNIQUE INDEX "uq_one_time_tokens_hash" ON "one_time_tokens" ("token_hash")`);
    await q.query(`CREATE INDEX "idx_one_time_tokens_user" ON "one_time_tokens" ("user_id")`);
    await q.query(`CREATE TABLE "sessions" (
      "id" character varying(24) NOT NULL,
      "token_hash" character varying(64) NOT NULL,
      "user_id" character varying(24) NOT NULL,
      "created_at" bigint NOT NULL,
      "last_seen_at" bigint NOT NULL,
      CONSTRAINT "pk_sessions" PRIMARY KEY ("id"),
      CONSTRAINT "fk_sessions_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE UNIQUE INDEX "uq_sessions_token_hash" ON "sessions" ("token_hash")`);
    await q.query(`CREATE INDEX "idx_sessions_user" ON "sessions" ("user_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "sessions"`);
    await q.query(`DROP TABLE "one_time_tokens"`);
    await q.query(`DROP TABLE "users"`);
  }
}
