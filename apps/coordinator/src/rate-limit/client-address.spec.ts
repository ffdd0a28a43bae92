import { describe, expect, it } from '@jest/globals';
import { addressBucket, socketAddress } from './client-address.js';

describe('addressBucket (docs/decisions/0018-abuse-limits-and-quotas.md)', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::203.0.113.7', '64:ff9b:0:0::/64'],
    [undefined, 'unknown'],
    ['not an address', 'unknown'],
  ])('%s → %s', (address, bucket) => {
    expect(addressBucket(address)).toBe(bucket);
  });

  it('the address is the socket peer, whatever the headers say', () => {
    const request = { headers: { 'x-forwarded-for': '198.51.100.1' }, raw: { socket: { remoteAddress: '127.0.0.9' } } };
    expect(socketAddress(request)).toBe('127.0.0.9');
    expect(socketAddress({ raw: { socket: null } })).toBeUndefined();
  });
});
