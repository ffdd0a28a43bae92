import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The monitor list indexes end with the id (SQLite): `GET /api/monitors` orders by
 * (created_at | updated_at, id), and with 100k monitors created in the same second the old
 * indexes left a sort of all of them for every page (see docs/benchmarks.md, scale).
 */
export class MonitorListIndexes1764700000000 implements MigrationInterface {
  name = 'MonitorListIndexes1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await this.replace(q, ['id']);
  }

  async down(q: QueryRunner): Promise<void> {
    await this.replace(q, []);
  }

  private async replace(q: QueryRunner, tail: string[]): Promise<void> {
    for (const [name, column] of [
      ['idx_monitors_account_created', 'created_at'],
      ['idx_monitors_account_updated', 'updated_at'],
    ]) {
      const columns = ['account_id', column, ...tail].map((c) => `"${c}"`).join(', ');
      await q.query(`DROP INDEX "${name}"`);
      await q.query(`CREATE INDEX "${name}" ON "monitors" (${columns})`);
    }
  }
}
