import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Incidents, the notification outbox and its attempt log, certificate alerts, server settings (SQLite). */
export class Notifications1764000000000 implements MigrationInterface {
  name = 'Notifications1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "incidents" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "account_id" varchar(24) NOT NULL,
      "monitor_id" varchar(24) NOT NULL,
      "monitor_name" text NOT NULL,
      "started_at" bigint NOT NULL,
      "resolved_at" bigint,
      "reason" text NOT NULL,
      "user_comment" text NOT NULL DEFAULT (''),
      "check_results" text NOT NULL,
      "created_at" bigint NOT NULL,
      "updated_at" bigint NOT NULL,
      CONSTRAINT "fk_incidents_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_incidents_monitor" FOREIGN KEY ("monitor_id") REFERENCES "monitors" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE INDEX "idx_incidents_account_started" ON "incidents" ("account_id", "started_at")`);
    await q.query(`CREATE INDEX "idx_incidents_monitor_resolved" ON "incidents" ("monitor_id", "resolved_at")`);
    await q.query(`CREATE TABLE "notifications" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "account_id" varchar(24) NOT NULL,
      "contact_id" varchar(24) NOT NULL,
      "monitor_id" varchar(24) NOT NULL,
      "incident_id" varchar(24),
      "event" varchar(32) NOT NULL,
      "payload" text NOT NULL,
      "state" varchar(16) NOT NULL,
      "attempts" integer NOT NULL DEFAULT (0),
      "next_attempt_at" bigint NOT NULL,
      "locked_until" bigint NOT NULL DEFAULT (0),
      "created_at" bigint NOT NULL,
      "last_attempt_at" bigint,
      "last_class" varchar(16),
      "last_status" integer,
      "last_detail" text,
      "delivered_at" bigint,
      "ref" text,
      CONSTRAINT "fk_notifications_account" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_notifications_contact" FOREIGN KEY ("contact_id") REFERENCES "contacts" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_notifications_monitor" FOREIGN KEY ("monitor_id") REFERENCES "monitors" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_notifications_incident" FOREIGN KEY ("incident_id") REFERENCES "incidents" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(`CREATE INDEX "idx_notifications_due" ON "notifications" ("state", "next_attempt_at")`);
    await q.query(`CREATE INDEX "idx_notifications_contact_incident" ON "notifications" ("contact_id", "incident_id")`);
    await q.query(`CREATE TABLE "notification_attempts" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "notification_id" varchar(24) NOT NULL,
      "attempted_at" bigint NOT NULL,
      "outcome" varchar(16) NOT NULL,
      "status" integer,
      "detail" text NOT NULL,
      "duration_ms" integer NOT NULL,
      CONSTRAINT "fk_notification_attempts_notification" FOREIGN KEY ("notification_id") REFERENCES "notifications" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(
      `CREATE INDEX "idx_notification_attempts_notification" ON "notification_attempts" ("notification_id")`,
    );
    await q.query(`CREATE TABLE "certificate_alerts" (
      "monitor_id" varchar(24) NOT NULL,
      "not_after" bigint NOT NULL,
      "threshold_days" integer NOT NULL,
      "sent_at" bigint NOT NULL,
      CONSTRAINT "fk_certificate_alerts_monitor" FOREIGN KEY ("monitor_id") REFERENCES "monitors" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      PRIMARY KEY ("monitor_id", "not_after", "threshold_days"))`);
    await q.query(`CREATE TABLE "server_settings" ("key" varchar(64) PRIMARY KEY NOT NULL, "value" text NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'server_settings',
      'certificate_alerts',
      'notification_attempts',
      'notifications',
      'incidents',
    ]) {
      await q.query(`DROP TABLE "${table}"`);
    }
  }
}
