import { describe, expect, it } from '@jest/globals';
import { VerifiedCredentials } from './verified-credentials.js';

describe('verified status-page credentials', () => {
  it('are keyed by an HMAC of page and header, never the header itself', () => {
    const cache = new VerifiedCredentials();
    const header = `Basic ${Buffer.from('viewer:s3cret').toString('base64')}`;
    const key = cache.keyOf('page-a', header);
    expect(key).not.toContain(header);
    expect(key).not.toBe(cache.keyOf('page-b', header));
    expect(key).toBe(cache.keyOf('page-a', header));
    // Another process (another HMAC key) has other keys.
    expect(new VerifiedCredentials().keyOf('page-a', header)).not.toBe(key);
  });

  it('match only the stored hash they were verified against, within their time', () => {
    const cache = new VerifiedCredentials(10, 1000);
    const key = cache.keyOf('p', 'Basic x');
    expect(cache.verified(key, 'hash-1', 0)).toBe(false);
    cache.remember(key, 'p', 'hash-1', '203.0.113.7', 0);
    expect(cache.verified(key, 'hash-1', 999)).toBe(true);
    expect(cache.verified(key, 'hash-2', 999)).toBe(false); // the password changed (on any replica)
    expect(cache.verified(key, 'hash-1', 999)).toBe(false); // and the entry is gone
    cache.remember(key, 'p', 'hash-1', '203.0.113.7', 0);
    expect(cache.verified(key, 'hash-1', 1000)).toBe(false); // expired
  });

  it('remember which addresses were admitted with them', () => {
    const cache = new VerifiedCredentials();
    const key = cache.keyOf('p', 'Basic x');
    cache.remember(key, 'p', 'h', '203.0.113.7', 0);
    expect(cache.admitted(key, '203.0.113.7')).toBe(true);
    expect(cache.admitted(key, '198.51.100.1')).toBe(false);
    expect(cache.admitted(cache.keyOf('p', 'Basic y'), '203.0.113.7')).toBe(false);
    // A failure charged to the address: its budget must be read again.
    cache.forgetAddress('203.0.113.7');
    expect(cache.admitted(key, '203.0.113.7')).toBe(false);
    expect(cache.verified(key, 'h', 1)).toBe(true);
  });

  it('are bounded, the least recently used going first, and dropped with their page', () => {
    const cache = new VerifiedCredentials(2, 60_000);
    const [a, b, c] = ['a', 'b', 'c'].map((h) => cache.keyOf('p', h)) as [string, string, string];
    cache.remember(a, 'p', 'h', 'x', 0);
    cache.remember(b, 'q', 'h', 'x', 0);
    expect(cache.verified(a, 'h', 1)).toBe(true); // a is now the most recent
    cache.remember(c, 'p', 'h', 'x', 2);
    expect(cache.size).toBe(2);
    expect(cache.verified(b, 'h', 3)).toBe(false);
    cache.forgetPage('p');
    expect(cache.size).toBe(0);
  });
});
