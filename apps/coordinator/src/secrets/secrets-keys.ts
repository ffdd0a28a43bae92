import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '#runtime';
import type { DatabaseTarget } from '../config/database-url.js';
import { GENERATE_SECRETS_KEY, parseSecretsKey, SECRETS_KEY_BYTES } from '../config/secrets-key.js';
import { DATA_FILE_MODE, ensureDataDirectory, tightenFile } from '../database/data-source.js';
import { SecretBox, type SecretsKey } from './secret-box.js';

/** What the keys are chosen from: the validated configuration. */
export interface SecretsKeyConfig {
  SECRETS_KEY?: string;
  SECRETS_KEY_PREVIOUS?: string;
  database: DatabaseTarget;
}

/** The key file of an embedded database: beside it, named after it (`data/picket.db.key`). */
export function keyFilePath(databasePath: string): string {
  return `${resolve(databasePath)}.key`;
}

/**
 * The SecretBox of this process (docs/decisions/0020-secrets-at-rest.md):
 * - SECRETS_KEY when set (the key file, if any, is then not read);
 * - else, on SQLite, the key file beside the database, created 0600 with 32 random bytes on the
 *   first start (an existing looser file is tightened to 0600);
 * - else, on an in-memory SQLite database (tests), a random key for this process only: the data
 *   goes with the process;
 * - else (PostgreSQL) a refusal to start naming SECRETS_KEY: several replicas share the database,
 *   so a key made by one of them would lock the others out, and a key derived from anything
 *   they share would be guessable.
 * SECRETS_KEY_PREVIOUS, when set, still opens what it sealed.
 */
export function secretBoxFor(config: SecretsKeyConfig, notice: (message: string) => void = () => {}): SecretBox {
  const previous = config.SECRETS_KEY_PREVIOUS
    ? { key: parsed(config.SECRETS_KEY_PREVIOUS, 'SECRETS_KEY_PREVIOUS'), source: 'SECRETS_KEY_PREVIOUS' }
    : null;
  return new SecretBox(currentKey(config, notice), previous);
}

function currentKey(config: SecretsKeyConfig, notice: (message: string) => void): SecretsKey {
  if (config.SECRETS_KEY) return { key: parsed(config.SECRETS_KEY, 'SECRETS_KEY'), source: 'SECRETS_KEY' };
  const target = config.database;
  if (target.dialect === 'postgres') {
    throw new ConfigError([
      'SECRETS_KEY (unset): required with a PostgreSQL DATABASE_URL, to seal contact secrets at rest; ' +
        `generate one with \`${GENERATE_SECRETS_KEY}\`, give the same value to every coordinator and the CLI, ` +
        'and keep it with the database backups',
    ]);
  }
  if (target.path === ':memory:') return { key: randomBytes(SECRETS_KEY_BYTES), source: 'a key for this process only' };
  const file = keyFilePath(target.path);
  return { key: loadOrCreateKeyFile(file, notice), source: `the key file ${file}` };
}

function parsed(value: string, name: string): Buffer {
  const key = parseSecretsKey(value);
  if (typeof key === 'string') throw new ConfigError([`${name} (set, not shown): ${key}`]);
  return key;
}

/** Reads the key file, or creates it (0600, exclusively: a second process starting at once reads the winner's). */
export function loadOrCreateKeyFile(file: string, notice: (message: string) => void = () => {}): Buffer {
  try {
    ensureDataDirectory(file);
    writeFileSync(file, `${randomBytes(SECRETS_KEY_BYTES).toString('base64')}\n`, {
      mode: DATA_FILE_MODE,
      flag: 'wx',
    });
    notice(`created the secrets key file ${file} (mode 0600): back it up with the database`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  tightenFile(file);
  const key = parseSecretsKey(readFileSync(file, 'utf8'));
  if (typeof key === 'string') {
    throw new ConfigError([`the secrets key file ${file} ${key}; or set SECRETS_KEY instead`]);
  }
  return key;
}
