import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { API_KEY_PATTERN, digestsEqual, displayPrefix, generateApiKey, hashApiKey } from './api-key.js';
import { parsePermissionList, PERMISSIONS } from './permissions.js';

describe('API keys', () => {
  it('are pkt_ + 64 lowercase hex and never repeat', () => {
    const keys = Array.from({ length: 100 }, generateApiKey);
    for (const key of keys) expect(key).toMatch(API_KEY_PATTERN);
    expect(new Set(keys).size).toBe(100);
  });

  it('are stored as their SHA-256 only', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).not.toContain(key.slice(4));
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });

  it('compare digests in constant time without throwing on bad input', () => {
    const digest = hashApiKey(generateApiKey());
    expect(digestsEqual(digest, digest)).toBe(true);
    expect(digestsEqual(digest, hashApiKey('other'))).toBe(false);
    expect(digestsEqual(digest, 'abc')).toBe(false);
    expect(digestsEqual('zz', digest)).toBe(false);
  });
});

describe('parsePermissionList', () => {
  it('keeps known names in canonical order and folds duplicates', () => {
    expect(parsePermissionList('contacts:read, monitors:read,contacts:read')).toEqual({
      permissions: ['monitors:read', 'contacts:read'],
    });
    expect(parsePermissionList(PERMISSIONS.join(','))).toEqual({ permissions: [...PERMISSIONS] });
  });

  it('reports unknown and empty lists', () => {
    expect(parsePermissionList('monitors:read,monitors:admin')).toEqual({ unknown: ['monitors:admin'] });
    expect(parsePermissionList(' , ')).toEqual({ unknown: [''] });
  });
});
