import { describe, expect, it } from '@jest/globals';
import type { LookupFunction } from 'node:net';
import {
  assertEgressLiteral,
  cidrList,
  EGRESS_REASON,
  EgressBlockedError,
  egressMessage,
  egressProblem,
  embeddedIpv4,
  guardedLookup,
  type EgressPolicy,
  type EgressRules,
} from './egress.js';

describe('embeddedIpv4', () => {
  it.each([
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['::FFFF:A9FE:A9FE', '169.254.169.254'],
    ['::10.0.0.1', '10.0.0.1'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254'],
    ['64:ff9b::8.8.8.8', '8.8.8.8'],
    ['64:ff9b:1::c0a8:1', '192.168.0.1'],
    ['2002:7f00:1::1', '127.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '192.0.2.45'],
    ['::ffff:0:7f00:1', '127.0.0.1'],
    ['::ffff:0.0.0.0', '0.0.0.0'],
    ['::127.0.0.1', '127.0.0.1'],
    ['64:ff9b:1::7f00:1', '127.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1'],
    ['2606:4700::1111', null],
    ['::', null],
    ['::1', null],
    ['not an address', null],
  ])('%s → %s', (address, expected) => {
    expect(embeddedIpv4(address)).toBe(expected);
  });
});

describe('egressProblem', () => {
  const table: [string, Record<EgressPolicy, boolean>][] = [
    // address, allowed under each policy
    ['8.8.8.8', { 'private-allowed': true, strict: true, off: true }],
    ['2606:4700:4700::1111', { 'private-allowed': true, strict: true, off: true }],
    ['127.0.0.1', { 'private-allowed': true, strict: false, off: true }],
    ['10.1.2.3', { 'private-allowed': true, strict: false, off: true }],
    ['172.16.0.1', { 'private-allowed': true, strict: false, off: true }],
    ['192.168.1.1', { 'private-allowed': true, strict: false, off: true }],
    ['100.64.0.1', { 'private-allowed': true, strict: false, off: true }],
    ['0.0.0.0', { 'private-allowed': false, strict: false, off: true }],
    ['224.0.0.1', { 'private-allowed': false, strict: false, off: true }],
    ['255.255.255.255', { 'private-allowed': false, strict: false, off: true }],
    ['198.18.0.1', { 'private-allowed': false, strict: false, off: true }],
    ['::1', { 'private-allowed': true, strict: false, off: true }],
    ['::', { 'private-allowed': false, strict: false, off: true }],
    ['fe80::1', { 'private-allowed': false, strict: false, off: true }],
    ['fd12:3456::1', { 'private-allowed': true, strict: false, off: true }],
    ['ff02::1', { 'private-allowed': false, strict: false, off: true }],
    ['::ffff:127.0.0.1', { 'private-allowed': true, strict: false, off: true }],
    ['::ffff:7f00:1', { 'private-allowed': true, strict: false, off: true }],
    ['64:ff9b::a00:1', { 'private-allowed': true, strict: false, off: true }],
    ['2002:c0a8:101::1', { 'private-allowed': true, strict: false, off: true }],
    ['64:ff9b::808:808', { 'private-allowed': true, strict: true, off: true }],
    // More of strict's non-public ranges, each side of their edges.
    ['172.15.255.255', { 'private-allowed': true, strict: true, off: true }],
    ['172.31.255.255', { 'private-allowed': true, strict: false, off: true }],
    ['172.32.0.0', { 'private-allowed': true, strict: true, off: true }],
    ['100.63.255.255', { 'private-allowed': true, strict: true, off: true }],
    ['100.127.255.255', { 'private-allowed': true, strict: false, off: true }],
    ['100.128.0.0', { 'private-allowed': true, strict: true, off: true }],
    ['169.254.1.1', { 'private-allowed': false, strict: false, off: true }],
    ['0.1.2.3', { 'private-allowed': false, strict: false, off: true }],
    ['192.0.0.8', { 'private-allowed': false, strict: false, off: true }],
    ['192.0.2.1', { 'private-allowed': true, strict: false, off: true }],
    ['198.19.255.255', { 'private-allowed': false, strict: false, off: true }],
    ['198.20.0.0', { 'private-allowed': true, strict: true, off: true }],
    ['198.51.100.7', { 'private-allowed': true, strict: false, off: true }],
    ['203.0.113.5', { 'private-allowed': true, strict: false, off: true }],
    ['239.255.255.250', { 'private-allowed': false, strict: false, off: true }],
    ['240.0.0.1', { 'private-allowed': false, strict: false, off: true }],
    ['223.255.255.255', { 'private-allowed': true, strict: true, off: true }],
    ['fe80::1%eth0', { 'private-allowed': false, strict: false, off: true }],
    ['febf::1', { 'private-allowed': false, strict: false, off: true }],
    ['fec0::1', { 'private-allowed': true, strict: false, off: true }],
    ['fc00::1', { 'private-allowed': true, strict: false, off: true }],
    ['100::1', { 'private-allowed': true, strict: false, off: true }],
    ['2001:db8::1', { 'private-allowed': true, strict: false, off: true }],
    ['2001:2::1', { 'private-allowed': true, strict: false, off: true }],
    ['3fff::1', { 'private-allowed': true, strict: false, off: true }],
    ['4000::1', { 'private-allowed': true, strict: false, off: true }],
    ['1::', { 'private-allowed': true, strict: false, off: true }],
    // IPv6 forms carrying IPv4 are judged by the IPv4 address they carry.
    ['::127.0.0.1', { 'private-allowed': true, strict: false, off: true }],
    ['::ffff:0:7f00:1', { 'private-allowed': true, strict: false, off: true }],
    ['64:ff9b:1::a00:1', { 'private-allowed': true, strict: false, off: true }],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', { 'private-allowed': true, strict: false, off: true }],
    ['::ffff:8.8.8.8', { 'private-allowed': true, strict: true, off: true }],
    ['::ffff:0:808:808', { 'private-allowed': true, strict: true, off: true }],
    // 6to4 and Teredo: judged by the IPv4 they carry, except under strict, which refuses them outright (below).
    ['2002:808:808::1', { 'private-allowed': true, strict: false, off: true }],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', { 'private-allowed': true, strict: false, off: true }],
    // Cloud metadata: blocked unless the guard is off, in every form.
    ['169.254.169.254', { 'private-allowed': false, strict: false, off: true }],
    ['169.254.170.2', { 'private-allowed': false, strict: false, off: true }],
    ['100.100.100.200', { 'private-allowed': false, strict: false, off: true }],
    ['192.0.0.192', { 'private-allowed': false, strict: false, off: true }],
    ['fd00:ec2::254', { 'private-allowed': false, strict: false, off: true }],
    ['::ffff:169.254.169.254', { 'private-allowed': false, strict: false, off: true }],
    ['::ffff:a9fe:a9fe', { 'private-allowed': false, strict: false, off: true }],
    ['64:ff9b::a9fe:a9fe', { 'private-allowed': false, strict: false, off: true }],
    ['2002:a9fe:a9fe::', { 'private-allowed': false, strict: false, off: true }],
    ['::169.254.169.254', { 'private-allowed': false, strict: false, off: true }],
    ['::ffff:0:a9fe:a9fe', { 'private-allowed': false, strict: false, off: true }],
    ['64:ff9b:1::a9fe:a9fe', { 'private-allowed': false, strict: false, off: true }],
    ['::ffff:169.254.170.2', { 'private-allowed': false, strict: false, off: true }],
    ['::ffff:100.100.100.200', { 'private-allowed': false, strict: false, off: true }],
    ['64:ff9b::c000:c0', { 'private-allowed': false, strict: false, off: true }],
    ['2001:0:4136:e378:8000:63bf:5601:5601', { 'private-allowed': false, strict: false, off: true }],
    ['169.254.169.253', { 'private-allowed': false, strict: false, off: true }],
    // The edges of the link-local range private-allowed refuses.
    ['169.253.255.255', { 'private-allowed': true, strict: true, off: true }],
    ['169.255.0.0', { 'private-allowed': true, strict: true, off: true }],
    ['fec0::1', { 'private-allowed': true, strict: false, off: true }],
    ['100.100.100.199', { 'private-allowed': true, strict: false, off: true }],
  ];
  it.each(table)('%s', (address, allowed) => {
    for (const policy of ['private-allowed', 'strict', 'off'] as const) {
      expect(`${policy}: ${egressProblem(address, policy) === null}`).toBe(`${policy}: ${allowed[policy]}`);
    }
  });

  it('remembers verdicts per policy and per set of rules, and stays right past the number it keeps', () => {
    const rules: EgressRules = { policy: 'private-allowed', deny: ['10.0.0.0/16'] };
    // More distinct addresses than are kept, asked twice, alternating between the policies.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5000; i++) {
        const address = `10.${i >> 8}.${i & 255}.1`;
        expect([egressProblem(address, 'strict'), egressProblem(address, 'private-allowed')]).toEqual([
          `${address} is not a public address`,
          null,
        ]);
        expect(egressProblem(address, rules)).toBe(i < 256 ? `${address} is denied by EGRESS_DENY_CIDRS` : null);
      }
    }
  });
});

describe('6to4 (2002::/16) and Teredo (2001::/32) under strict', () => {
  // address, the IPv4 it carries, allowed under [private-allowed, strict, off]
  const table: [string, string, [boolean, boolean, boolean]][] = [
    ['2002:808:808::1', '8.8.8.8', [true, false, true]],
    ['2002:0808:0808:0000:0000:0000:0000:0001', '8.8.8.8', [true, false, true]],
    ['2002:101:101::', '1.1.1.1', [true, false, true]],
    ['2002:d8b4:a0e::5', '216.180.10.14', [true, false, true]],
    ['2002:7f00:1::1', '127.0.0.1', [true, false, true]],
    ['2002:a9fe:a9fe::', '169.254.169.254', [false, false, true]],
    ['2002:e000:1::', '224.0.0.1', [false, false, true]],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', '8.8.8.8', [true, false, true]],
    ['2001::f7f7:f7f7', '8.8.8.8', [true, false, true]],
    ['2001:0:4136:e378:8000:63bf:fefe:fefe', '1.1.1.1', [true, false, true]],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1', [true, false, true]],
    ['2001:0:4136:e378:8000:63bf:5601:5601', '169.254.169.254', [false, false, true]],
  ];
  it.each(table)('%s (carrying %s)', (address, inner, [privateAllowed, strict, off]) => {
    expect(embeddedIpv4(address)).toBe(inner);
    expect([
      egressProblem(address, 'private-allowed') === null,
      egressProblem(address, 'strict') === null,
      egressProblem(address, 'off') === null,
    ]).toEqual([privateAllowed, strict, off]);
  });

  it('says why under strict, even when the carried address is public', () => {
    expect(egressProblem('2002:808:808::1', 'strict')).toBe('2002:808:808::1 is a 6to4 or Teredo address');
    expect(egressProblem('2001::f7f7:f7f7', 'strict')).toBe('2001::f7f7:f7f7 is a 6to4 or Teredo address');
  });

  it('stops at the edges of both ranges: neighbours are ordinary global unicast', () => {
    for (const address of ['2003::1', '2001:1::1', '2001:4860:4860::8888', '2001:1:0:0:0:0:f7f7:f7f7']) {
      expect(`${address}: ${egressProblem(address, 'strict')}`).toBe(`${address}: null`);
    }
  });

  it('an allowed IPv4 does not open its tunnel forms; allowing the IPv6 range itself does', () => {
    const viaIpv4: EgressRules = { policy: 'strict', allow: ['8.8.8.8/32'] };
    expect(egressProblem('8.8.8.8', viaIpv4)).toBeNull();
    expect(egressProblem('2002:808:808::1', viaIpv4)).toBe('2002:808:808::1 is a 6to4 or Teredo address');
    const viaRange: EgressRules = { policy: 'strict', allow: ['2002:808:808::/48'] };
    expect(egressProblem('2002:808:808::1', viaRange)).toBeNull();
    expect(egressProblem('2002:808:809::1', viaRange)).toBe('2002:808:809::1 is a 6to4 or Teredo address');
    // Deny still wins.
    expect(egressProblem('2002:808:808::1', { ...viaRange, deny: ['8.8.8.0/24'] })).toBe(
      '2002:808:808::1 is denied by EGRESS_DENY_CIDRS',
    );
  });

  it('is refused at connect time by the guarded lookup, with the machine-readable reason', async () => {
    const lookup = guardedLookup('strict', ((_host: string, _options: unknown, callback: (...a: unknown[]) => void) =>
      callback(null, [{ address: '2002:808:808::1', family: 6 }])) as unknown as LookupFunction);
    const error = await new Promise((resolve) => lookup('tunnel.test', { all: true }, resolve));
    expect(error).toMatchObject({
      code: 'EGRESS_BLOCKED',
      message: 'destination_not_allowed: blocked by egress policy: 2002:808:808::1',
    });
  });
});

describe('the machine-readable reason of a refusal', () => {
  it('is destination_not_allowed, the first word of every refusal text', () => {
    expect(EGRESS_REASON).toBe('destination_not_allowed');
    expect(new EgressBlockedError('10.0.0.1').message).toBe(
      'destination_not_allowed: blocked by egress policy: 10.0.0.1',
    );
    expect(() => assertEgressLiteral('[::1]', 'strict')).toThrow(
      /^destination_not_allowed: blocked by egress policy: ::1$/,
    );
  });

  it.each([
    [new EgressBlockedError('10.0.0.1'), 'destination_not_allowed: blocked by egress policy: 10.0.0.1'],
    // Wrapped by an HTTP client that prefixes its own words.
    [
      new Error('RequestError: destination_not_allowed: blocked by egress policy: ::1'),
      'destination_not_allowed: blocked by egress policy: ::1',
    ],
    // An older agent's text, without the reason.
    [new Error('x: blocked by egress policy: 10.0.0.2'), 'destination_not_allowed: blocked by egress policy: 10.0.0.2'],
    ['not an error', 'destination_not_allowed: blocked by egress policy'],
  ])('egressMessage(%s) is %j', (error, text) => {
    expect(egressMessage(error)).toBe(text);
  });
});

describe('egress rules: the operator exceptions', () => {
  const allowed = (address: string, rules: EgressRules) => egressProblem(address, rules) === null;

  it('EGRESS_ALLOW_CIDRS opens addresses the policy refuses, in every form that carries them', () => {
    const rules: EgressRules = { policy: 'strict', allow: ['127.0.0.2/32', '10.8.0.0/16', 'fd00:1::/64'] };
    for (const address of ['127.0.0.2', '::ffff:127.0.0.2', '64:ff9b::7f00:2', '10.8.3.4', 'fd00:1::5']) {
      expect(`${address}: ${allowed(address, rules)}`).toBe(`${address}: true`);
    }
    for (const address of ['127.0.0.1', '127.0.0.3', '10.9.0.1', 'fd00:2::5', '169.254.169.254']) {
      expect(`${address}: ${allowed(address, rules)}`).toBe(`${address}: false`);
    }
  });

  it('EGRESS_DENY_CIDRS refuses under every policy but off, before the allow list', () => {
    const deny = ['8.8.8.0/24', '::ffff:10.0.0.0/104'];
    for (const policy of ['private-allowed', 'strict'] as const) {
      const rules: EgressRules = { policy, allow: ['8.8.8.8'], deny };
      expect(egressProblem('8.8.8.8', rules)).toBe('8.8.8.8 is denied by EGRESS_DENY_CIDRS');
      expect(egressProblem('::ffff:8.8.8.8', rules)).toBe('::ffff:8.8.8.8 is denied by EGRESS_DENY_CIDRS');
      expect(allowed('8.8.4.4', rules)).toBe(true);
    }
    expect(allowed('8.8.8.8', { policy: 'off', deny })).toBe(true);
  });

  it('EGRESS_ALLOW_METADATA opens metadata and link-local addresses under private-allowed only', () => {
    for (const address of [
      '169.254.169.254',
      'fd00:ec2::254',
      '100.100.100.200',
      'fe80::1',
      '::ffff:169.254.169.254',
    ]) {
      expect(allowed(address, { policy: 'private-allowed' })).toBe(false);
      expect(allowed(address, { policy: 'private-allowed', allowMetadata: true })).toBe(true);
      expect(allowed(address, { policy: 'strict', allowMetadata: true })).toBe(false);
    }
    // Reserved ranges stay refused.
    expect(allowed('224.0.0.1', { policy: 'private-allowed', allowMetadata: true })).toBe(false);
  });

  it('reads addresses and CIDRs, and refuses anything else', () => {
    expect(cidrList(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']).check('192.0.2.7')).toBe(true);
    for (const bad of ['10.0.0.0/33', '::/129', 'example.com', '10.0.0.0/', '10.0.0.0/8/8', '10.0.0.0/-1']) {
      expect(() => cidrList([bad])).toThrow();
    }
  });
});

describe('guardedLookup (connect-time, so DNS rebinding cannot win)', () => {
  /** A resolver that answers whatever the test says the name points to now. */
  function resolver(answers: Record<string, string[]>): LookupFunction {
    return ((host: string, _options: unknown, callback: (e: Error | null, a?: unknown) => void) => {
      callback(
        null,
        (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    }) as unknown as LookupFunction;
  }
  const lookupAll = (lookup: LookupFunction, host: string) =>
    new Promise<unknown>((resolve, reject) => {
      lookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
    });

  it('refuses a name that resolves to a forbidden address, with the message users see', async () => {
    const lookup = guardedLookup('strict', resolver({ 'rebind.test': ['127.0.0.1'] }));
    await expect(lookupAll(lookup, 'rebind.test')).rejects.toThrow('blocked by egress policy: 127.0.0.1');
    await expect(lookupAll(lookup, 'rebind.test')).rejects.toMatchObject({ code: 'EGRESS_BLOCKED' });
  });

  it('keeps the allowed addresses of a name that has both', async () => {
    const lookup = guardedLookup('strict', resolver({ 'mixed.test': ['10.0.0.1', '8.8.8.8'] }));
    await expect(lookupAll(lookup, 'mixed.test')).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
  });

  it('answers single-address lookups in the (error, address, family) form', async () => {
    const lookup = guardedLookup('private-allowed', resolver({ 'ok.test': ['10.0.0.1'] }));
    const answer = await new Promise((resolve) => {
      lookup('ok.test', {}, (error, address, family) => resolve([error, address, family]));
    });
    expect(answer).toEqual([null, '10.0.0.1', 4]);
  });

  it('checks every lookup afresh: a name that changes to a forbidden address is refused then', async () => {
    const answers: Record<string, string[]> = { 'flip.test': ['8.8.8.8'] };
    const lookup = guardedLookup('strict', resolver(answers));
    await expect(lookupAll(lookup, 'flip.test')).resolves.toHaveLength(1);
    answers['flip.test'] = ['169.254.169.254'];
    await expect(lookupAll(lookup, 'flip.test')).rejects.toThrow('blocked by egress policy');
  });
});

describe('assertEgressLiteral', () => {
  it.each([
    ['127.0.0.1', 'strict', true],
    ['[::1]', 'strict', true],
    ['[::ffff:127.0.0.1]', 'strict', true],
    ['127.0.0.1', 'private-allowed', false],
    ['169.254.169.254', 'private-allowed', true],
    ['example.com', 'strict', false],
    ['8.8.8.8', 'strict', false],
  ] as const)('%s under %s throws: %s', (host, policy, throws) => {
    if (throws) expect(() => assertEgressLiteral(host, policy)).toThrow('blocked by egress policy');
    else expect(() => assertEgressLiteral(host, policy)).not.toThrow();
  });
});
