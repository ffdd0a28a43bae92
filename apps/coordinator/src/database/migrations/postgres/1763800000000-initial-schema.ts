import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, API keys, contacts, monitors and their contact lists (PostgreSQL). */
export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "accounts" (
      "id" character varying(24) NOT NULL,
      "name" text NOT NULL,
      "subscription_status" character varying(16) NOT NULL,
      "created_at" bigint NOT NULL,
      CONSTRAINT "pk_accounts" PRIMARY KEY ("id"))`);
    await q.query(`CREATE TABLE "api_keys" (
      "id" character varying(24) NOT NULL,
      "account_id" character varying(24) NOT NULL,
      "key_hash" character varying(64) NOT NULL,
      "prefix" character varying(16) NOT NULL,
      "permissions" text NOT NULL,
      "created_at" bigint NOT NULL,
      "revoked_at" bigint,
      "last_used_at" bigint,
      CONSTRAINT "pk_api_keys" PRIMARY KEY ("id"),
      CONSTRAINT "fk_api_keys_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys" ("key_hash")`);
    await q.query(`CREATE INDEX "idx_api_keys_account" ON "api_keys" ("account_id")`);
    await q.query(`CREATE TABLE "contacts" (
      "id" character varying(24) NOT NULL,
      "account_id" character varying(24) NOT NULL,
      "name" text NOT NULL,
      "channel" character varying(16) NOT NULL,
      "details" text NOT NULL,
      "active" boolean NOT NULL,
      "down_alerts_only" boolean NOT NULL,
      "error" text,
      "consecutive_failures" integer NOT NULL DEFAULT '0',
      "created_at" bigint NOT NULL,
      "updated_at" bigint NOT NULL,
      CONSTRAINT "pk_contacts" PRIMARY KEY ("id"),
      CONSTRAINT "fk_contacts_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE INDEX "idx_contacts_account_created" ON "contacts" ("account_id", "created_at")`);
    await q.query(`CREATE TABLE "monitors" (
      "id" character varying(24) NOT NULL,
      "account_id" character varying(24) NOT NULL,
      "name" text NOT NULL,
      "active" boolean NOT NULL,
      "check_interval" integer NOT NULL,
      "timeout" integer NOT NULL,
      "fail_threshold" integer NOT NULL,
      "regions" text NOT NULL,
      "monitor_type" character varying(8) NOT NULL,
      "settings" text NOT NULL,
      "last_status" character varying(16) NOT NULL,
      "last_status_change" bigint NOT NULL,
      "created_at" bigint NOT NULL,
      "updated_at" bigint NOT NULL,
      CONSTRAINT "pk_monitors" PRIMARY KEY ("id"),
      CONSTRAINT "fk_monitors_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE INDEX "idx_monitors_account_created" ON "monitors" ("account_id", "created_at")`);
    await q.query(`CREATE INDEX "idx_monitors_account_updated" ON "monitors" ("account_id", "updated_at")`);
    await q.query(`CREATE TABLE "monitor_contacts" (
      "monitor_id" character varying(24) NOT NULL,
      "contact_id" character varying(24) NOT NULL,
      "position" integer NOT NULL,
      CONSTRAINT "pk_monitor_contacts" PRIMARY KEY ("monitor_id", "contact_id"),
      CONSTRAINT "fk_monitor_contacts_monitor" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_monitor_contacts_contact" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE INDEX "idx_monitor_contacts_contact" ON "monitor_contacts" ("contact_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['monitor_contacts', 'monitors', 'contacts', 'api_keys', 'accounts']) {
      await q.query(`DROP TABLE "${table}"`);
    }
  }
}
