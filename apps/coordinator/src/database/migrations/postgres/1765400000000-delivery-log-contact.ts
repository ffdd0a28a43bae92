import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each delivery attempt names its contact (PostgreSQL), so `GET /api/contacts/{id}/deliveries`
 * pages a contact's attempts newest first through one index, (contact_id, attempted_at, id),
 * instead of sorting every attempt of every notification the contact ever had. Filled from
 * the notifications. Attempts still go with their notification (and it with its contact): no
 * new foreign key.
 */
export class DeliveryLogContact1765400000000 implements MigrationInterface {
  name = 'DeliveryLogContact1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "notification_attempts" ADD COLUMN "contact_id" character varying(24)`);
    await q.query(
      `UPDATE "notification_attempts" a SET "contact_id" = n."contact_id" FROM "notifications" n WHERE n."id" = a."notification_id"`,
    );
    await q.query(`ALTER TABLE "notification_attempts" ALTER COLUMN "contact_id" SET NOT NULL`);
    await q.query(
      `CREATE INDEX "idx_notification_attempts_contact" ON "notification_attempts" ("contact_id", "attempted_at", "id")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "idx_notification_attempts_contact"`);
    await q.query(`ALTER TABLE "notification_attempts" DROP COLUMN "contact_id"`);
  }
}
