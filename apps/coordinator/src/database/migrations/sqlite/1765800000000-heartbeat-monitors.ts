import type { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = [
  'id',
  'account_id',
  'name',
  'active',
  'check_interval',
  'timeout',
  'fail_threshold',
  'regions',
  'monitor_type',
  'settings',
  'last_status',
  'last_status_change',
  'created_at',
  'updated_at',
  'last_checked_at',
]
  .map((c) => `"${c}"`)
  .join(', ');

/**
 * Heartbeat monitors (SQLite, docs/decisions/0027-heartbeat-monitors.md): `monitor_type` widens
 * to hold `heartbeat` (nine characters), and each heartbeat monitor keeps its ping token, unique
 * and indexed so the ping route finds the monitor in one lookup (NULL for probed types).
 *
 * SQLite cannot change a column's declared type, so the table is rebuilt (SQLite's documented
 * procedure: new table, copy, drop, rename). migrate() turns foreign keys off around the SQLite
 * migrations and checks them before committing, so dropping the old table cascades to nothing
 * and the other tables' references to "monitors" follow the renamed table.
 */
export class HeartbeatMonitors1765800000000 implements MigrationInterface {
  name = 'HeartbeatMonitors1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await this.rebuild(q, 16, true);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM "monitors" WHERE "monitor_type" = 'heartbeat'`);
    await this.rebuild(q, 8, false);
  }

  private async rebuild(q: QueryRunner, typeLength: number, token: boolean): Promise<void> {
    await q.query(`CREATE TABLE "temporary_monitors" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "account_id" varchar(24) NOT NULL,
      "name" text NOT NULL,
      "active" boolean NOT NULL,
      "check_interval" integer NOT NULL,
      "timeout" integer NOT NULL,
      "fail_threshold" integer NOT NULL,
      "regions" text NOT NULL,
      "monitor_type" varchar(${typeLength}) NOT NULL,
      "settings" text NOT NULL,
      "last_status" varchar(16) NOT NULL,
      "last_status_change" bigint NOT NULL,
      "created_at" bigint NOT NULL,
      "updated_at" bigint NOT NULL,
      "last_checked_at" bigint,${token ? '\n      "heartbeat_token" varchar(64),' : ''}
      CONSTRAINT "fk_monitors_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`INSERT INTO "temporary_monitors" (${COLUMNS}) SELECT ${COLUMNS} FROM "monitors"`);
    await q.query(`DROP TABLE "monitors"`);
    await q.query(`ALTER TABLE "temporary_monitors" RENAME TO "monitors"`);
    await q.query(`CREATE INDEX "idx_monitors_account_created" ON "monitors" ("account_id", "created_at", "id")`);
    await q.query(`CREATE INDEX "idx_monitors_account_updated" ON "monitors" ("account_id", "updated_at", "id")`);
    if (token) {
      await q.query(`CREATE UNIQUE INDEX "uq_monitors_heartbeat_token" ON "monitors" ("heartbeat_token")`);
    }
  }
}
