import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server the benchmarks make their databases on (BENCH_POSTGRES_URL names one of its databases). */
export const BENCH_POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Runs `fn` with the URL of a new, empty PostgreSQL database named `<prefix>_<random>`, dropped
 * afterwards whatever happens. Throws when the server cannot be reached or the database not made.
 */
export async function withScratchPostgres<T>(prefix: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
    const url = new URL(BENCH_POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
