import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notification rules (SQLite, docs/decisions/0029-notification-rules.md): a monitor's delay,
 * reminders and escalation steps (a JSON column; NULL reads as the defaults), and which planned
 * message of an outage each outbox row is (`rule`: `main`, `esc1`..`esc5`, `rem1`, …),
 * unique per incident, contact and event so a replayed plan never queues a message twice.
 * Existing rows are `main`: before the rules, one row per incident, contact and event.
 */
export class NotificationRules1765900000000 implements MigrationInterface {
  name = 'NotificationRules1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "monitors" ADD COLUMN "notification_rules" text`);
    await q.query(`ALTER TABLE "notifications" ADD COLUMN "rule" varchar(16) NOT NULL DEFAULT ('main')`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_notifications_planned" ON "notifications" ("incident_id", "contact_id", "event", "rule")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "uq_notifications_planned"`);
    await q.query(`DELETE FROM "notifications" WHERE "rule" <> 'main'`);
    await q.query(`ALTER TABLE "notifications" DROP COLUMN "rule"`);
    await q.query(`ALTER TABLE "monitors" DROP COLUMN "notification_rules"`);
  }
}
