import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Response-time histograms on the daily roll-ups (PostgreSQL), so results are added to a roll-up
 * instead of recomputing it from the day's raw rows. Existing roll-ups keep NULL: the first
 * result added to one of them recomputes it from its day's raw rows, histogram included.
 */
export class RollupHistograms1764600000000 implements MigrationInterface {
  name = 'RollupHistograms1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "check_rollups" ADD COLUMN "histogram" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "check_rollups" DROP COLUMN "histogram"`);
  }
}
