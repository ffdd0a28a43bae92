import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Status pages (PostgreSQL). */
export class StatusPages1764500000000 implements MigrationInterface {
  name = 'StatusPages1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "status_pages" (
      "id" character varying(24) NOT NULL,
      "account_id" character varying(24) NOT NULL,
      "name" text NOT NULL,
      "monitors" text NOT NULL,
      "period" integer NOT NULL,
      "custom_domain" character varying(253),
      "show_incident_reasons" boolean NOT NULL,
      "basic_auth" text,
      "created_at" bigint NOT NULL,
      "updated_at" bigint NOT NULL,
      CONSTRAINT "pk_status_pages" PRIMARY KEY ("id"),
      CONSTRAINT "fk_status_pages_account" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE INDEX "idx_status_pages_account_created" ON "status_pages" ("account_id", "created_at")`);
    await q.query(`CREATE UNIQUE INDEX "uq_status_pages_custom_domain" ON "status_pages" ("custom_domain")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "status_pages"`);
  }
}
