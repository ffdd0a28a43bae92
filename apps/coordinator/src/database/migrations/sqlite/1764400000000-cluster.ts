import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Coordinator membership and the partition leases that split scheduling between replicas (SQLite). */
export class Cluster1764400000000 implements MigrationInterface {
  name = 'Cluster1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "partition_leases" (
      "partition" integer PRIMARY KEY NOT NULL,
      "owner" varchar(64) NOT NULL,
      "expires_at" bigint NOT NULL)`);
    // PARTITION_COUNT (cluster/partitions.ts) rows, free.
    await q.query(`WITH RECURSIVE p(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM p WHERE n < 63)
      INSERT INTO "partition_leases" ("partition", "owner", "expires_at") SELECT n, '', 0 FROM p`);
    await q.query(`CREATE TABLE "coordinators" (
      "id" varchar(64) PRIMARY KEY NOT NULL,
      "version" varchar(64) NOT NULL,
      "started_at" bigint NOT NULL,
      "last_seen_at" bigint NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "coordinators"`);
    await q.query(`DROP TABLE "partition_leases"`);
  }
}
