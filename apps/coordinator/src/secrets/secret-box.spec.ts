import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '#runtime';
import { parseSecretsKey } from '../config/secrets-key.js';
import { keyIdOf, SecretBox, SecretsKeyError, sealedKeyId } from './secret-box.js';
import { keyFilePath, secretBoxFor } from './secrets-keys.js';

const key = (source = 'SECRETS_KEY') => ({ key: randomBytes(32), source });

describe('SecretBox', () => {
  it('seals with AES-256-GCM under the current key id, and opens in the same context only', () => {
    const box = new SecretBox(key());
    const sealed = box.seal('whsec_the-secret', 'contacts/a');
    expect(sealed).toMatch(/^v1:[0-9a-f]{16}:[A-Za-z0-9+/]+={0,2}$/);
    expect(sealedKeyId(sealed)).toBe(box.currentKeyId);
    expect(sealed).not.toContain('the-secret');
    expect(Buffer.from(sealed.split(':')[2]!, 'base64').toString('latin1')).not.toContain('the-secret');
    expect(box.open(sealed, 'contacts/a')).toBe('whsec_the-secret');
    // Another row's context: the value does not open there.
    expect(() => box.open(sealed, 'contacts/b')).toThrow(SecretsKeyError);
    // A fresh IV each time.
    expect(box.seal('whsec_the-secret', 'contacts/a')).not.toBe(sealed);
  });

  it('refuses an altered value rather than return garbage', () => {
    const box = new SecretBox(key());
    const sealed = box.seal('R0UTING-KEY', 'contacts/a');
    const raw = Buffer.from(sealed.split(':')[2]!, 'base64');
    raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
    const altered = `v1:${box.currentKeyId}:${raw.toString('base64')}`;
    expect(() => box.open(altered, 'contacts/a')).toThrow(/does not open with SECRETS_KEY/);
    expect(() => box.open('R0UTING-KEY', 'contacts/a')).toThrow(/not in the v1 format/);
  });

  it('opens what the previous key sealed, and seals with the current one', () => {
    const old = key();
    const before = new SecretBox(old).seal('token', 'contacts/a');
    const rotated = new SecretBox(key(), { ...old, source: 'SECRETS_KEY_PREVIOUS' });
    expect(rotated.knows(keyIdOf(old.key))).toBe(true);
    expect(rotated.open(before, 'contacts/a')).toBe('token');
    expect(sealedKeyId(rotated.seal('token', 'contacts/a'))).toBe(rotated.currentKeyId);
    expect(rotated.currentKeyId).not.toBe(keyIdOf(old.key));
  });

  it('names SECRETS_KEY when a value was sealed by a key it does not have', () => {
    const sealed = new SecretBox(key()).seal('token', 'contacts/a');
    const wrong = new SecretBox(key());
    expect(() => wrong.open(sealed, 'contacts/a')).toThrow(SecretsKeyError);
    expect(() => wrong.open(sealed, 'contacts/a')).toThrow(/not the configured SECRETS_KEY/);
  });
});

describe('SECRETS_KEY values', () => {
  const bytes = randomBytes(32);
  it.each([
    ['64 hex', bytes.toString('hex'), true],
    ['base64', bytes.toString('base64'), true],
    ['base64 without padding', bytes.toString('base64').replace(/=$/, ''), true],
    ['base64url', bytes.toString('base64url'), true],
    ['with a newline (a key file)', `${bytes.toString('base64')}\n`, true],
    ['16 bytes', randomBytes(16).toString('hex'), false],
    ['48 bytes', randomBytes(48).toString('base64'), false],
    ['a placeholder of zeros', '0'.repeat(64), false],
    ['a passphrase', 'correct horse battery staple', false],
  ])('%s → %s', (_name, value, ok) => {
    const parsed = parseSecretsKey(value);
    if (ok) expect(Buffer.isBuffer(parsed) && parsed.equals(bytes)).toBe(true);
    else expect(parsed).toEqual(expect.stringContaining('openssl rand -base64 32'));
  });
});

describe('the key of this process', () => {
  const tmp = () => mkdtempSync(join(tmpdir(), 'picket-keys-'));

  it('PostgreSQL without SECRETS_KEY: refuses to start, naming SECRETS_KEY and how to make one', () => {
    const refuse = () => secretBoxFor({ database: { dialect: 'postgres', url: 'postgres://x@127.0.0.1/db' } });
    expect(refuse).toThrow(ConfigError);
    expect(refuse).toThrow(/SECRETS_KEY \(unset\): required with a PostgreSQL DATABASE_URL.*openssl rand -base64 32/);
  });

  it('SECRETS_KEY is used when set (no key file is made), with SECRETS_KEY_PREVIOUS beside it', () => {
    const dir = tmp();
    try {
      const [current, previous] = [randomBytes(32), randomBytes(32)];
      const database = { dialect: 'sqlite' as const, path: join(dir, 'picket.db') };
      const box = secretBoxFor({
        SECRETS_KEY: current.toString('base64'),
        SECRETS_KEY_PREVIOUS: previous.toString('hex'),
        database,
      });
      expect(box.currentKeyId).toBe(keyIdOf(current));
      expect(box.knows(keyIdOf(previous))).toBe(true);
      expect(existsSync(keyFilePath(database.path))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SQLite without SECRETS_KEY: a key file beside the database, made 0600 once and used afterwards', () => {
    const dir = tmp();
    try {
      const database = { dialect: 'sqlite' as const, path: join(dir, 'data', 'picket.db') };
      const notices: string[] = [];
      const first = secretBoxFor({ database }, (m) => notices.push(m));
      const file = keyFilePath(database.path);
      expect(file).toBe(join(dir, 'data', 'picket.db.key'));
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
      expect(notices).toEqual([expect.stringContaining(`created the secrets key file ${file}`)]);
      const sealed = first.seal('token', 'contacts/a');
      // The next start reads the same key, and says nothing.
      const again = secretBoxFor({ database }, (m) => notices.push(m));
      expect(again.currentKeyId).toBe(first.currentKeyId);
      expect(again.open(sealed, 'contacts/a')).toBe('token');
      expect(notices).toHaveLength(1);
      // A key file someone loosened is tightened.
      chmodSync(file, 0o644);
      secretBoxFor({ database });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a damaged key file stops the start, naming the file and SECRETS_KEY', () => {
    const dir = tmp();
    try {
      const path = join(dir, 'picket.db');
      writeFileSync(keyFilePath(path), 'not a key\n', { mode: 0o600 });
      expect(() => secretBoxFor({ database: { dialect: 'sqlite', path } })).toThrow(
        new RegExp(
          `key file ${keyFilePath(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} must be 32 random bytes.*SECRETS_KEY`,
          's',
        ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an in-memory database gets a key of this process only', () => {
    const a = secretBoxFor({ database: { dialect: 'sqlite', path: ':memory:' } });
    const b = secretBoxFor({ database: { dialect: 'sqlite', path: ':memory:' } });
    expect(a.currentKeyId).not.toBe(b.currentKeyId);
  });
});
