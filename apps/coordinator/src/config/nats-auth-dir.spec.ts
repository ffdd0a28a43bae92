import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsInit, NATS_INIT_FILES } from '../nats-auth/nats-init.js';
import { createNatsAuthMaterial } from '../nats-auth/nats-jwt.js';
import { natsAuthDirProblems } from './nats-auth-dir.js';

describe('NATS_AUTH_DIR (checked at boot)', () => {
  let root: string;
  let dir: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'picket-auth-dir-'));
    dir = join(root, 'nats');
    await natsInit(dir);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('takes what `nats init` wrote', () => {
    expect(natsAuthDirProblems(dir, 'nats://127.0.0.1:4222')).toEqual([]);
  });

  it('needs NATS_URL', () => {
    expect(natsAuthDirProblems(dir, undefined)).toEqual([
      'NATS_AUTH_DIR: set without NATS_URL (nothing to issue credentials for)',
    ]);
  });

  it('names each missing file, and an account signing key the account JWT does not list, never a key', async () => {
    const problems = natsAuthDirProblems(root, 'nats://127.0.0.1:4222');
    expect(problems).toHaveLength(4);
    for (const name of [NATS_INIT_FILES.accountJwt, NATS_INIT_FILES.systemCreds]) {
      expect(problems.some((p) => p.includes(`${name} cannot be read (ENOENT)`))).toBe(true);
    }
    const other = await createNatsAuthMaterial();
    const copy = join(root, 'copy');
    await natsInit(copy);
    writeFileSync(join(copy, NATS_INIT_FILES.accountSigningSeed), other.accountSigningSeed);
    const wrong = natsAuthDirProblems(copy, 'nats://127.0.0.1:4222');
    expect(wrong).toEqual([
      expect.stringContaining(
        `${NATS_INIT_FILES.accountSigningSeed} is not a signing key of ${NATS_INIT_FILES.accountJwt}`,
      ),
    ]);
    expect(wrong.join()).not.toContain(other.accountSigningSeed);
    writeFileSync(join(copy, NATS_INIT_FILES.operatorSigningSeed), other.accountSigningSeed);
    writeFileSync(join(copy, NATS_INIT_FILES.accountSigningSeed), other.accountSigningSeed);
    expect(natsAuthDirProblems(copy, 'nats://127.0.0.1:4222')).toContainEqual(
      expect.stringContaining(`${NATS_INIT_FILES.operatorSigningSeed} is not an operator key`),
    );
  });
});
