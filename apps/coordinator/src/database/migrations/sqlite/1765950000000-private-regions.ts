import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts' private regions (SQLite; docs/decisions/0030-private-regions.md). */
export class PrivateRegions1765950000000 implements MigrationInterface {
  name = 'PrivateRegions1765950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "private_regions" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "account_id" varchar(24) NOT NULL,
      "region_id" varchar(32) NOT NULL,
      "name" text NOT NULL,
      "created_at" bigint NOT NULL,
      CONSTRAINT "fk_private_regions_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_private_regions_account_region" ON "private_regions" ("account_id", "region_id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "private_regions"`);
  }
}
