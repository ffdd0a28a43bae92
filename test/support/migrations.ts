import type { DataSource } from 'typeorm';

/**
 * Reverts the applied migrations, newest first, up to and including `name`: the schema as it
 * was just before it, whatever migrations came later.
 */
export async function undoThrough(ds: DataSource, name: string): Promise<void> {
  for (;;) {
    const rows: { name: string }[] = await ds.query(
      `SELECT "name" FROM "picket_migrations" ORDER BY "timestamp" DESC, "id" DESC LIMIT 1`,
    );
    const last = rows[0]?.name;
    if (last === undefined) throw new Error(`${name} is not applied`);
    await ds.undoLastMigration();
    if (last === name) return;
  }
}
