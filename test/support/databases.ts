import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  /** A DATABASE_URL for the coordinator and the CLI. */
  url: string;
  drop(): Promise<void>;
}

export interface DatabaseKind {
  name: 'sqlite' | 'postgres';
  create(): Promise<TestDatabase>;
}

const sqlite: DatabaseKind = {
  name: 'sqlite',
  create() {
    const dir = mkdtempSync(join(tmpdir(), 'picket-test-'));
    return Promise.resolve({
      url: `sqlite:${join(dir, 'picket.db')}`,
      drop: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    });
  },
};

function adminUrl(): string {
  const url = process.env.PICKET_TEST_POSTGRES_URL;
  if (!url) throw new Error('PICKET_TEST_POSTGRES_URL is set by the global test setup');
  return url;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database per suite on the test PostgreSQL server, dropped afterwards. */
const postgres: DatabaseKind = {
  name: 'postgres',
  async create() {
    const name = `picket_t_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE "${name}"`);
    const url = new URL(adminUrl());
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      drop: () => adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
    };
  },
};

/**
 * The databases every storage-dependent suite runs against: SQLite always, PostgreSQL
 * when global setup found it (it says loudly when it did not, and CI requires it).
 */
export function testDatabases(): DatabaseKind[] {
  return process.env.PICKET_TEST_POSTGRES === '1' ? [sqlite, postgres] : [sqlite];
}

/**
 * The SECRETS_KEY of the coordinators and CLIs the tests run on PostgreSQL, where it is required
 * (docs/decisions/0020-secrets-at-rest.md). On SQLite the tests keep the default: a key file
 * beside the database.
 */
export const TEST_SECRETS_KEY = 'IhC+0scfzmyh6DbC72Pguc3kfhG8bx45uEzsXCcf8qU=';

/** `env` with SECRETS_KEY added when its DATABASE_URL is PostgreSQL and it sets none. */
export function withTestSecretsKey<E extends Record<string, string | undefined>>(env: E): E {
  const url = env.DATABASE_URL ?? '';
  if (!/^postgres(ql)?:/.test(url) || env.SECRETS_KEY !== undefined) return env;
  return { ...env, SECRETS_KEY: TEST_SECRETS_KEY };
}
