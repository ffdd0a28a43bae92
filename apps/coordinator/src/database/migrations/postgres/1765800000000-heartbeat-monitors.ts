import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Heartbeat monitors (PostgreSQL, docs/decisions/0027-heartbeat-monitors.md): `monitor_type`
 * widens to hold `heartbeat` (nine characters), and each heartbeat monitor keeps its ping token,
 * unique and indexed so the ping route finds the monitor in one lookup (NULL for probed types).
 */
export class HeartbeatMonitors1765800000000 implements MigrationInterface {
  name = 'HeartbeatMonitors1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "monitors" ALTER COLUMN "monitor_type" TYPE character varying(16)`);
    await q.query(`ALTER TABLE "monitors" ADD COLUMN "heartbeat_token" character varying(64)`);
    await q.query(`CREATE UNIQUE INDEX "uq_monitors_heartbeat_token" ON "monitors" ("heartbeat_token")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "monitors" WHERE "monitor_type" = 'heartbeat'`);
    await q.query(`DROP INDEX "uq_monitors_heartbeat_token"`);
    await q.query(`ALTER TABLE "monitors" DROP COLUMN "heartbeat_token"`);
    await q.query(`ALTER TABLE "monitors" ALTER COLUMN "monitor_type" TYPE character varying(8)`);
  }
}
