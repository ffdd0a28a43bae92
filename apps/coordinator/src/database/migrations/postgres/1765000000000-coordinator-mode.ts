import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each coordinator replica records how it runs checks ("embedded" or "nats") and its NATS
 * subject prefix, so that a replica started with a different mode on the same database refuses
 * to start instead of joining the cluster (docs/decisions/0001-truth-when-blind.md). Rows of
 * replicas from before have '' and are not compared.
 */
export class CoordinatorMode1765000000000 implements MigrationInterface {
  name = 'CoordinatorMode1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "coordinators" ADD COLUMN "mode" character varying(16) NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE "coordinators" ADD COLUMN "subject_prefix" character varying(255) NOT NULL DEFAULT ''`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "coordinators" DROP COLUMN "subject_prefix"`);
    await q.query(`ALTER TABLE "coordinators" DROP COLUMN "mode"`);
  }
}
