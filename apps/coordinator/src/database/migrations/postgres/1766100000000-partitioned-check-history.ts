import type { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = `"id" character varying(24) NOT NULL,
      "monitor_id" character varying(24) NOT NULL,
      "check_id" character varying(80) NOT NULL,
      "region" character varying(32) NOT NULL,
      "status" character varying(8) NOT NULL,
      "phase" character varying(16),
      "error" text,
      "response_time_ms" integer,
      "timings" text NOT NULL,
      "http_status" integer,
      "cert_not_after" bigint,
      "agent_id" character varying(64) NOT NULL,
      "checker_ip" character varying(64),
      "scheduled_at" bigint NOT NULL,
      "checked_at" bigint NOT NULL,
      "in_maintenance" boolean NOT NULL DEFAULT false`;

const COLUMN_LIST = `"id", "monitor_id", "check_id", "region", "status", "phase", "error", "response_time_ms", "timings", "http_status", "cert_not_after", "agent_id", "checker_ip", "scheduled_at", "checked_at", "in_maintenance"`;

const FOREIGN_KEY = `CONSTRAINT "fk_check_results_monitor" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE NO ACTION`;

const DAY_MS = 86_400_000;
/** Partitions made for today and this many days after (history/check-partitions.ts, PARTITION_DAYS_AHEAD). */
const DAYS_AHEAD = 3;
/** Days of stored results older than this (the longest RESULTS_RETENTION_DAYS) go to the DEFAULT partition. */
const DAYS_BACK = 3651;

/** `check_results_p20260310` (history/check-partitions.ts, partitionName). */
function partitionName(day: number): string {
  return `check_results_p${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/**
 * Check history partitioned by day of `scheduled_at` (PostgreSQL), keeping every row: the table
 * is renamed, a partitioned `check_results` made beside it with a partition for each day that
 * holds results (within the longest retention) and for today and the next three, plus a DEFAULT
 * partition, the rows copied across, and only then the primary key (the check's key, which
 * contains the partition key), the per-monitor and `checked_at` indexes and the foreign key
 * built, in bulk. The id's own index goes. Runs in one transaction (docs/operations.md, Upgrades, for its cost).
 * docs/decisions/0033-partitioned-check-history.md
 */
export class PartitionedCheckHistory1766100000000 implements MigrationInterface {
  name = 'PartitionedCheckHistory1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "check_results" RENAME TO "check_results_unpartitioned"`);
    await q.query(`ALTER TABLE "check_results_unpartitioned" DROP CONSTRAINT "pk_check_results"`);
    await q.query(`ALTER TABLE "check_results_unpartitioned" DROP CONSTRAINT "fk_check_results_monitor"`);
    await q.query(`DROP INDEX "idx_check_results_monitor_checked"`);
    await q.query(`DROP INDEX "idx_check_results_checked"`);
    await q.query(`CREATE TABLE "check_results" (${COLUMNS}) PARTITION BY RANGE ("scheduled_at")`);
    await q.query(`CREATE TABLE "check_results_default" PARTITION OF "check_results" DEFAULT`);
    const [{ today }] = (await q.query(`SELECT floor(extract(epoch FROM now()) / 86400)::bigint AS today`)) as [
      { today: string },
    ];
    const days = new Set<number>();
    for (let day = Number(today); day <= Number(today) + DAYS_AHEAD; day++) days.add(day);
    // The key's index (scheduled_at first) answers this with one probe per distinct day.
    const stored = (await q.query(
      `WITH RECURSIVE d(day) AS (
         SELECT MIN("scheduled_at") / ${DAY_MS} FROM "check_results_unpartitioned" WHERE "scheduled_at" >= $1
         UNION ALL
         SELECT (SELECT MIN("scheduled_at") / ${DAY_MS} FROM "check_results_unpartitioned" WHERE "scheduled_at" >= (d.day + 1) * ${DAY_MS})
         FROM d WHERE d.day IS NOT NULL AND d.day < $2)
       SELECT day FROM d WHERE day IS NOT NULL AND day <= $2`,
      [(Number(today) - DAYS_BACK) * DAY_MS, Number(today) + DAYS_AHEAD],
    )) as { day: string }[];
    for (const { day } of stored) days.add(Number(day));
    for (const day of [...days].sort((a, b) => a - b)) {
      await q.query(
        `CREATE TABLE "${partitionName(day)}" PARTITION OF "check_results" FOR VALUES FROM (${day * DAY_MS}) TO (${(day + 1) * DAY_MS})`,
      );
    }
    await q.query(
      `INSERT INTO "check_results" (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM "check_results_unpartitioned"`,
    );
    await q.query(`DROP TABLE "check_results_unpartitioned"`);
    await q.query(
      `ALTER TABLE "check_results" ADD CONSTRAINT "pk_check_results" PRIMARY KEY ("scheduled_at", "monitor_id", "region")`,
    );
    await q.query(`CREATE INDEX "idx_check_results_monitor_checked" ON "check_results" ("monitor_id", "checked_at")`);
    // What reads every monitor of an account in a window (the summary) scans per partition.
    await q.query(`CREATE INDEX "idx_check_results_checked" ON "check_results" ("checked_at")`);
    await q.query(`ALTER TABLE "check_results" ADD ${FOREIGN_KEY}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "check_results" RENAME TO "check_results_partitioned"`);
    await q.query(`ALTER TABLE "check_results_partitioned" DROP CONSTRAINT "pk_check_results"`);
    await q.query(`ALTER TABLE "check_results_partitioned" DROP CONSTRAINT "fk_check_results_monitor"`);
    await q.query(`DROP INDEX "idx_check_results_monitor_checked"`);
    await q.query(`DROP INDEX "idx_check_results_checked"`);
    await q.query(`CREATE TABLE "check_results" (${COLUMNS})`);
    await q.query(
      `INSERT INTO "check_results" (${COLUMN_LIST}) SELECT ${COLUMN_LIST} FROM "check_results_partitioned"`,
    );
    await q.query(`DROP TABLE "check_results_partitioned"`);
    await q.query(`ALTER TABLE "check_results" ADD CONSTRAINT "pk_check_results" PRIMARY KEY ("id")`);
    await q.query(`ALTER TABLE "check_results" ADD ${FOREIGN_KEY}`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_check_results_key" ON "check_results" ("scheduled_at", "monitor_id", "region")`,
    );
    await q.query(`CREATE INDEX "idx_check_results_monitor_checked" ON "check_results" ("monitor_id", "checked_at")`);
    await q.query(`CREATE INDEX "idx_check_results_checked" ON "check_results" ("checked_at")`);
  }
}
