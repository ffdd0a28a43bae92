import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a monitor last had a decided (UP or DOWN) check result (SQLite), so the API can say
 * `unknown` when Picket has not seen a monitor for three intervals
 * (docs/decisions/0001-truth-when-blind.md). Filled from the stored results, so an upgrade does
 * not show every monitor as `unknown` until its next check; a monitor without any decided
 * result keeps NULL and counts from `created_at`.
 */
export class MonitorLastChecked1764900000000 implements MigrationInterface {
  name = 'MonitorLastChecked1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "monitors" ADD COLUMN "last_checked_at" bigint`);
    // Through the (monitor_id, checked_at) index: each monitor's results, read from the newest.
    await q.query(
      `UPDATE "monitors" SET "last_checked_at" = (SELECT MAX(r."checked_at") FROM "check_results" r WHERE r."monitor_id" = "monitors"."id" AND r."status" IN ('up', 'down'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "monitors" DROP COLUMN "last_checked_at"`);
  }
}
