import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Check history: raw check results and per-day roll-ups per monitor and region (PostgreSQL). */
export class CheckHistory1763900000000 implements MigrationInterface {
  name = 'CheckHistory1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "check_results" (
      "id" character varying(24) NOT NULL,
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
      CONSTRAINT "pk_check_results" PRIMARY KEY ("id"),
      CONSTRAINT "fk_check_results_monitor" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE UNIQUE INDEX "uq_check_results_check_id" ON "check_results" ("check_id")`);
    await q.query(`CREATE INDEX "idx_check_results_monitor_checked" ON "check_results" ("monitor_id", "checked_at")`);
    await q.query(
      `CREATE INDEX "idx_check_results_monitor_region_checked" ON "check_results" ("monitor_id", "region", "checked_at")`,
    );
    await q.query(`CREATE INDEX "idx_check_results_checked" ON "check_results" ("checked_at")`);
    await q.query(`CREATE TABLE "check_rollups" (
      "monitor_id" character varying(24) NOT NULL,
      "day" integer NOT NULL,
      "region" character varying(32) NOT NULL,
      "checks" integer NOT NULL,
      "failures" integer NOT NULL,
      "unknowns" integer NOT NULL,
      "sum_response_ms" bigint NOT NULL,
      "count_response" integer NOT NULL,
      "p95_response_ms" integer,
      CONSTRAINT "pk_check_rollups" PRIMARY KEY ("monitor_id", "day", "region"),
      CONSTRAINT "fk_check_rollups_monitor" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['check_rollups', 'check_results']) {
      await q.query(`DROP TABLE "${table}"`);
    }
  }
}
