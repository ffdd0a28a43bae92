import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contact secrets sealed at rest (SQLite; docs/decisions/0020-secrets-at-rest.md): the secret
 * fields' values, sealed with AES-256-GCM, and the id of the key that sealed them. The rows
 * stored before are sealed at boot, not here: the key is the process's, not the schema's.
 */
export class SealedSecrets1765620000000 implements MigrationInterface {
  name = 'SealedSecrets1765620000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "contacts" ADD COLUMN "sealed_secrets" text`);
    await q.query(`ALTER TABLE "contacts" ADD COLUMN "secrets_key_id" varchar(16)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "contacts" DROP COLUMN "secrets_key_id"`);
    await q.query(`ALTER TABLE "contacts" DROP COLUMN "sealed_secrets"`);
  }
}
