import { describe, expect, it } from '@jest/globals';
import { hashPassword, isPasswordHash, verifyPassword } from './password-hash.js';

describe('status-page passwords', () => {
  it('are stored as salted scrypt hashes, never the plain value', async () => {
    const [a, b] = await Promise.all([hashPassword('viewer:s3cret'), hashPassword('viewer:s3cret')]);
    expect(a).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(a).not.toContain('s3cret');
    expect(a).not.toContain(':');
    expect(a).not.toBe(b); // a salt per password
    expect(isPasswordHash(a)).toBe(true);
    expect(isPasswordHash('viewer:s3cret')).toBe(false);
  });

  it('verify the right password only', async () => {
    const stored = await hashPassword('viewer:s3cret');
    expect(await verifyPassword('viewer:s3cret', stored)).toBe(true);
    expect(await verifyPassword(Buffer.from('viewer:s3cret'), stored)).toBe(true);
    expect(await verifyPassword('viewer:s3cre', stored)).toBe(false);
    expect(await verifyPassword('Viewer:s3cret', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
    // Not a hash, or parameters out of bounds: never a match.
    expect(await verifyPassword('viewer:s3cret', 'viewer:s3cret')).toBe(false);
    expect(await verifyPassword('viewer:s3cret', stored.replace('scrypt$15$', 'scrypt$30$'))).toBe(false);
  });
});
