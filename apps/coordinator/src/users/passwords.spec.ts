import { describe, expect, it } from '@jest/globals';
import { loadCoordinatorConfig } from '../config.js';
import { hashPassword, newPassword, PasswordHasher, verifyPassword } from './passwords.js';

/** A cheap cost for the tests; the stored parameters are what verification uses. */
const CHEAP = { logN: 10, r: 8, p: 1 };

describe('passwords', () => {
  it.each([
    ['a'.repeat(9), /at least 10/],
    ['a'.repeat(10), null],
    ['🔑'.repeat(10), null],
    ['🔑'.repeat(9), /at least 10/],
    ['a'.repeat(256), null],
    ['🔑'.repeat(257), /at most 256/],
    ['ten chars\u0000!', /NUL/],
    [1234567890, /string/],
  ])('%p: %p', (value, problem) => {
    const answer = newPassword(value);
    if (problem === null) expect(answer).toBeNull();
    else expect(answer).toMatch(problem);
  });

  it('are hashed with scrypt, a fresh salt each time, the parameters stored with the hash', async () => {
    const one = await hashPassword('correct horse battery', CHEAP);
    const two = await hashPassword('correct horse battery', CHEAP);
    expect(one).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(one).not.toBe(two);
    expect(one).not.toContain('correct');
    expect(await verifyPassword('correct horse battery', one)).toBe(true);
    expect(await verifyPassword('correct horse batterY', one)).toBe(false);
    expect(await verifyPassword('', two)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'scrypt$garbage')).toBe(false);
  });

  it('compare NFC-normalised text', async () => {
    const composed = 'caf\u00e9 au lait!';
    const decomposed = 'cafe\u0301 au lait!';
    expect(await verifyPassword(decomposed, await hashPassword(composed, CHEAP))).toBe(true);
  });

  it('never match without a stored hash, after the same scrypt work', async () => {
    expect(await verifyPassword('anything at all', null)).toBe(false);
  });

  it('are hashed at N = 2^17 by default, at 2^PASSWORD_SCRYPT_LOG_N when configured (14..20)', async () => {
    const config = (env: Record<string, string>) => loadCoordinatorConfig({ DATABASE_URL: 'sqlite::memory:', ...env });
    expect(config({}).PASSWORD_SCRYPT_LOG_N).toBe(17);
    expect(await hashPassword('correct horse battery')).toMatch(/^scrypt\$17\$8\$1\$/);
    const hasher = new PasswordHasher(config({ PASSWORD_SCRYPT_LOG_N: '14' }));
    const stored = await hasher.hash('correct horse battery');
    expect(stored).toMatch(/^scrypt\$14\$8\$1\$/);
    expect(await hasher.verify('correct horse battery', stored)).toBe(true);
    expect(await hasher.verify('correct horse battery', null)).toBe(false);
    // A hash made at another cost still verifies: the stored parameters are used.
    expect(await hasher.verify('correct horse battery', await hashPassword('correct horse battery', CHEAP))).toBe(true);
    for (const bad of ['13', '21', 'seventeen']) {
      expect(() => config({ PASSWORD_SCRYPT_LOG_N: bad })).toThrow(/PASSWORD_SCRYPT_LOG_N/);
    }
  });

  it('do not block the event loop while hashing', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await hashPassword('correct horse battery');
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });
});
