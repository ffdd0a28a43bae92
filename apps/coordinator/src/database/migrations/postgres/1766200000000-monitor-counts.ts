import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each account's number of monitors, kept by a trigger on `monitors` (PostgreSQL;
 * docs/decisions/0035-monitor-counts-and-page-from-either-end.md). The counter row is updated in
 * the writing transaction: a monitor's insert already holds its account's lock (account-gate.ts),
 * and deletes of one account queue on the row only until they commit.
 */
export class MonitorCounts1766200000000 implements MigrationInterface {
  name = 'MonitorCounts1766200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "monitor_counts" (
      "account_id" character varying(24) NOT NULL,
      "monitors" integer NOT NULL,
      CONSTRAINT "pk_monitor_counts" PRIMARY KEY ("account_id"),
      CONSTRAINT "fk_monitor_counts_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    // Counted under a lock that keeps writers out until the triggers exist (this transaction's end).
    await q.query(`LOCK TABLE "monitors" IN SHARE ROW EXCLUSIVE MODE`);
    await q.query(`INSERT INTO "monitor_counts" ("account_id", "monitors")
      SELECT "account_id", COUNT(*) FROM "monitors" GROUP BY "account_id"`);
    await q.query(`CREATE FUNCTION "picket_monitor_counts"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' OR TG_OP = 'UPDATE' THEN
          UPDATE "monitor_counts" SET "monitors" = "monitors" - 1 WHERE "account_id" = OLD."account_id";
        END IF;
        IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
          INSERT INTO "monitor_counts" ("account_id", "monitors") VALUES (NEW."account_id", 1)
            ON CONFLICT ("account_id") DO UPDATE SET "monitors" = "monitor_counts"."monitors" + 1;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER "trg_monitor_counts" AFTER INSERT OR DELETE ON "monitors"
      FOR EACH ROW EXECUTE FUNCTION "picket_monitor_counts"()`);
    await q.query(`CREATE TRIGGER "trg_monitor_counts_move" AFTER UPDATE OF "account_id" ON "monitors"
      FOR EACH ROW WHEN (OLD."account_id" IS DISTINCT FROM NEW."account_id") EXECUTE FUNCTION "picket_monitor_counts"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "trg_monitor_counts_move" ON "monitors"`);
    await q.query(`DROP TRIGGER "trg_monitor_counts" ON "monitors"`);
    await q.query(`DROP FUNCTION "picket_monitor_counts"()`);
    await q.query(`DROP TABLE "monitor_counts"`);
  }
}
