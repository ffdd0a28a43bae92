import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Status pages (SQLite). */
export class StatusPages1764500000000 implements MigrationInterface {
  name = 'StatusPages1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "status_pages" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "account_id" varchar(24) NOT NULL,
      "name" text NOT NULL,
      "monitors" text NOT NULL,
      "period" integer NOT NULL,
      "custom_domain" varchar(253),
      "show_incident_reasons" boolean NOT NULL,
      "basic_auth" text,
      "created_at" bigint NOT NULL,
      "updated_at" bigint NOT NULL,
      CONSTRAINT "fk_status_pages_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE INDEX "idx_status_pages_account_created" ON "status_pages" ("account_id", "created_at")`);
    await q.query(`CREATE UNIQUE INDEX "uq_status_pages_custom_domain" ON "status_pages" ("custom_domain")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "status_pages"`);
  }
}
