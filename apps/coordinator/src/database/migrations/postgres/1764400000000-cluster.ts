import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Coordinator membership and the partition leases that split scheduling between replicas (PostgreSQL). */
export class Cluster1764400000000 implements MigrationInterface {
  name = 'Cluster1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "partition_leases" (
      "partition" integer NOT NULL,
      "owner" character varying(64) NOT NULL,
      "expires_at" bigint NOT NULL,
      CONSTRAINT "pk_partition_leases" PRIMARY KEY ("partition"))`);
    // PARTITION_COUNT (cluster/partitions.ts) rows, free.
    await q.query(`INSERT INTO "partition_leases" ("partition", "owner", "expires_at")
      SELECT p, '', 0 FROM generate_series(0, 63) AS p`);
    await q.query(`CREATE TABLE "coordinators" (
      "id" character varying(64) NOT NULL,
      "version" character varying(64) NOT NULL,
      "started_at" bigint NOT NULL,
      "last_seen_at" bigint NOT NULL,
      CONSTRAINT "pk_coordinators" PRIMARY KEY ("id"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "coordinators"`);
    await q.query(`DROP TABLE "partition_leases"`);
  }
}
