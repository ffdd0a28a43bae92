import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each coordinator replica records how it shares out the partitions ("balanced"), so that
 * replicas share them in balanced shares only once every live replica does, and a cluster in the
 * middle of an upgrade keeps to rendezvous hashing (docs/decisions/0041-balanced-partitions.md).
 * Rows of replicas from before have ''.
 */
export class BalancedPartitions1766300000000 implements MigrationInterface {
  name = 'BalancedPartitions1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "coordinators" ADD COLUMN "assignment" character varying(16) NOT NULL DEFAULT ''`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "coordinators" DROP COLUMN "assignment"`);
  }
}
