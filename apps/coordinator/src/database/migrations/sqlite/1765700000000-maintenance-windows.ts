import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Maintenance windows (SQLite), and the flag on check results taken while one covered the
 * monitor (docs/decisions/0026-maintenance-windows.md). Earlier results were not in maintenance.
 */
export class MaintenanceWindows1765700000000 implements MigrationInterface {
  name = 'MaintenanceWindows1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "maintenance_windows" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "account_id" varchar(24) NOT NULL,
      "name" text NOT NULL,
      "monitors" text NOT NULL,
      "starts_at" bigint NOT NULL,
      "ends_at" bigint,
      "rrule" text,
      "duration" integer,
      "timezone" varchar(64) NOT NULL,
      "active" boolean NOT NULL,
      "created_at" bigint NOT NULL,
      "updated_at" bigint NOT NULL,
      CONSTRAINT "fk_maintenance_windows_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(
      `CREATE INDEX "idx_maintenance_windows_account_created" ON "maintenance_windows" ("account_id", "created_at")`,
    );
    await q.query(`ALTER TABLE "check_results" ADD COLUMN "in_maintenance" boolean NOT NULL DEFAULT (0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "check_results" DROP COLUMN "in_maintenance"`);
    await q.query(`DROP TABLE "maintenance_windows"`);
  }
}
