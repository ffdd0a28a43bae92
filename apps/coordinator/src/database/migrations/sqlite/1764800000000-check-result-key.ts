import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cheaper check_results indexes for ingest (SQLite). A result is unique by (scheduled_at,
 * monitor_id, region), which is what its check_id spells: indexed in that order, new results
 * land at the right edge of the index instead of on one random page each. The
 * (monitor_id, region, checked_at) index goes: reads of one region use (monitor_id,
 * checked_at) and filter. See docs/benchmarks.md, Ingest.
 */
export class CheckResultKey1764800000000 implements MigrationInterface {
  name = 'CheckResultKey1764800000000';

  async up(q: QueryRunner): Promise<void> {
    // A result stored twice under check_ids that did not match its fields (agents' replies
    // were only matched on check_id before) keeps its first copy.
    await q.query(
      `DELETE FROM "check_results" WHERE "rowid" NOT IN (SELECT MIN("rowid") FROM "check_results" GROUP BY "scheduled_at", "monitor_id", "region")`,
    );
    await q.query(`DROP INDEX "uq_check_results_check_id"`);
    await q.query(`DROP INDEX "idx_check_results_monitor_region_checked"`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_check_results_key" ON "check_results" ("scheduled_at", "monitor_id", "region")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "uq_check_results_key"`);
    await q.query(
      `CREATE INDEX "idx_check_results_monitor_region_checked" ON "check_results" ("monitor_id", "region", "checked_at")`,
    );
    await q.query(`CREATE UNIQUE INDEX "uq_check_results_check_id" ON "check_results" ("check_id")`);
  }
}
