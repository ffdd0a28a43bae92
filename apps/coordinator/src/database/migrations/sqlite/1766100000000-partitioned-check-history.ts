import type { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = `"id" varchar(24) NOT NULL,
      "monitor_id" varchar(24) NOT NULL,
      "check_id" varchar(80) NOT NULL,
      "region" varchar(32) NOT NULL,
      "status" varchar(8) NOT NULL,
      "phase" varchar(16),
      "error" text,
      "response_time_ms" integer,
      "timings" text NOT NULL,
      "http_status" integer,
      "cert_not_after" bigint,
      "agent_id" varchar(64) NOT NULL,
      "checker_ip" varchar(64),
      "scheduled_at" bigint NOT NULL,
      "checked_at" bigint NOT NULL,
      "in_maintenance" boolean NOT NULL DEFAULT (0)`;

const COLUMN_LIST = `"id", "monitor_id", "check_id", "region", "status", "phase", "error", "response_time_ms", "timings", "http_status", "cert_not_after", "agent_id", "checker_ip", "scheduled_at", "checked_at", "in_maintenance"`;

const FOREIGN_KEY = `CONSTRAINT "fk_check_results_monitor" FOREIGN KEY ("monitor_id") REFERENCES "monitors" ("id") ON DELETE CASCADE ON UPDATE NO ACTION`;

/**
 * Fewer check_results indexes (SQLite), keeping every row: the check's key
 * (scheduled_at, monitor_id, region) becomes the primary key, so its unique index serves as
 * the table's key and the id's own index goes. Left: the key, (monitor_id, checked_at) and
 * (checked_at) (an account's monitors in a window). The table is rebuilt
 * (SQLite cannot change a primary key in place): a copy of every row, in the migration's
 * transaction. docs/decisions/0033-partitioned-check-history.md
 */
export class PartitionedCheckHistory1766100000000 implements MigrationInterface {
  name = 'PartitionedCheckHistory1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "temporary_check_results" (${COLUMNS}, ${FOREIGN_KEY}, PRIMARY KEY ("scheduled_at", "monitor_id", "region"))`,
    );
    await q.query(
      `INSERT INTO "temporary_check_results" (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM "check_results" ORDER BY "scheduled_at", "monitor_id", "region"`,
    );
    await q.query(`DROP TABLE "check_results"`);
    await q.query(`ALTER TABLE "temporary_check_results" RENAME TO "check_results"`);
    await q.query(`CREATE INDEX "idx_check_results_monitor_checked" ON "check_results" ("monitor_id", "checked_at")`);
    await q.query(`CREATE INDEX "idx_check_results_checked" ON "check_results" ("checked_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "temporary_check_results" ("id" varchar(24) PRIMARY KEY NOT NULL, ${COLUMNS.replace(
        `"id" varchar(24) NOT NULL,`,
        '',
      )}, ${FOREIGN_KEY})`,
    );
    await q.query(`INSERT INTO "temporary_check_results" (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM "check_results"`);
    await q.query(`DROP TABLE "check_results"`);
    await q.query(`ALTER TABLE "temporary_check_results" RENAME TO "check_results"`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_check_results_key" ON "check_results" ("scheduled_at", "monitor_id", "region")`,
    );
    await q.query(`CREATE INDEX "idx_check_results_monitor_checked" ON "check_results" ("monitor_id", "checked_at")`);
    await q.query(`CREATE INDEX "idx_check_results_checked" ON "check_results" ("checked_at")`);
  }
}
