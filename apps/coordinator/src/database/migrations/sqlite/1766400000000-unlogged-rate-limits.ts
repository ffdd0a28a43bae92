import type { MigrationInterface } from 'typeorm';

/**
 * PostgreSQL's rate-limit buckets become UNLOGGED (docs/decisions/0043-rate-limit-buckets-unlogged.md).
 * SQLite has no such tables and nothing changes here; the migration exists so that both
 * dialects list the same migrations.
 */
export class UnloggedRateLimits1766400000000 implements MigrationInterface {
  name = 'UnloggedRateLimits1766400000000';

  async up(): Promise<void> {}

  async down(): Promise<void> {}
}
