import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each delivery attempt names its contact (SQLite), so `GET /api/contacts/{id}/deliveries`
 * pages a contact's attempts newest first through one index, (contact_id, attempted_at, id),
 * instead of sorting every attempt of every notification the contact ever had. Filled from
 * the notifications; the table is rebuilt because SQLite cannot add a NOT NULL column without
 * a default. Attempts still go with their notification (and it with its contact): no new
 * foreign key.
 */
export class DeliveryLogContact1765400000000 implements MigrationInterface {
  name = 'DeliveryLogContact1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "temporary_notification_attempts" (
      "id" varchar(24) PRIMARY KEY NOT NULL,
      "notification_id" varchar(24) NOT NULL,
      "attempted_at" bigint NOT NULL,
      "outcome" varchar(16) NOT NULL,
      "status" integer,
      "detail" text NOT NULL,
      "duration_ms" integer NOT NULL,
      "contact_id" varchar(24) NOT NULL,
      CONSTRAINT "fk_notification_attempts_notification" FOREIGN KEY ("notification_id") REFERENCES "notifications" ("id") ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await q.query(
      `INSERT INTO "temporary_notification_attempts" ("id", "notification_id", "attempted_at", "outcome", "status", "detail", "duration_ms", "contact_id")
       SELECT a."id", a."notification_id", a."attempted_at", a."outcome", a."status", a."detail", a."duration_ms", n."contact_id"
       FROM "notification_attempts" a JOIN "notifications" n ON n."id" = a."notification_id"`,
    );
    await q.query(`DROP TABLE "notification_attempts"`);
    await q.query(`ALTER TABLE "temporary_notification_attempts" RENAME TO "notification_attempts"`);
    await q.query(
      `CREATE INDEX "idx_notification_attempts_notification" ON "notification_attempts" ("notification_id")`,
    );
    await q.query(
      `CREATE INDEX "idx_notification_attempts_contact" ON "notification_attempts" ("contact_id", "attempted_at", "id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_notification_attempts_contact"`);
    await q.query(`ALTER TABLE "notification_attempts" DROP COLUMN "contact_id"`);
  }
}
