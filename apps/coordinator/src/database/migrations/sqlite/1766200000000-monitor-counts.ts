import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each account's number of monitors, kept by triggers on `monitors` (SQLite;
 * docs/decisions/0035-monitor-counts-and-page-from-either-end.md). A later migration that
 * rebuilds `monitors` (new table, copy, drop, rename) drops these triggers with the old table and
 * must make them again.
 */
export class MonitorCounts1766200000000 implements MigrationInterface {
  name = 'MonitorCounts1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "monitor_counts" (
      "account_id" varchar(24) PRIMARY KEY NOT NULL,
      "monitors" integer NOT NULL,
      CONSTRAINT "fk_monitor_counts_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`INSERT INTO "monitor_counts" ("account_id", "monitors")
      SELECT "account_id", COUNT(*) FROM "monitors" GROUP BY "account_id"`);
    await q.query(`CREATE TRIGGER "trg_monitor_counts_insert" AFTER INSERT ON "monitors" BEGIN
      INSERT INTO "monitor_counts" ("account_id", "monitors") VALUES (NEW."account_id", 1)
        ON CONFLICT ("account_id") DO UPDATE SET "monitors" = "monitors" + 1;
    END`);
    await q.query(`CREATE TRIGGER "trg_monitor_counts_delete" AFTER DELETE ON "monitors" BEGIN
      UPDATE "monitor_counts" SET "monitors" = "monitors" - 1 WHERE "account_id" = OLD."account_id";
    END`);
    await q.query(`CREATE TRIGGER "trg_monitor_counts_move" AFTER UPDATE OF "account_id" ON "monitors"
      WHEN OLD."account_id" <> NEW."account_id" BEGIN
      UPDATE "monitor_counts" SET "monitors" = "monitors" - 1 WHERE "account_id" = OLD."account_id";
      INSERT INTO "monitor_counts" ("account_id", "monitors") VALUES (NEW."account_id", 1)
        ON CONFLICT ("account_id") DO UPDATE SET "monitors" = "monitors" + 1;
    END`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "trg_monitor_counts_move"`);
    await q.query(`DROP TRIGGER "trg_monitor_counts_delete"`);
    await q.query(`DROP TRIGGER "trg_monitor_counts_insert"`);
    await q.query(`DROP TABLE "monitor_counts"`);
  }
}
