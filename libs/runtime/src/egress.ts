import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The egress guard (DECISIONS §9): which addresses probes and notifications may connect to.
 * `private-allowed` (default): everything but cloud metadata endpoints; `strict`
 * (multi-tenant): public unicast addresses only; `off`: anything.
 */
export const EGRESS_POLICIES = ['private-allowed', 'strict', 'off'] as const;
export type EgressPolicy = (typeof EGRESS_POLICIES)[number];

/** The error code (and message prefix) of a connection the guard refused. */
export const EGRESS_BLOCKED = 'EGRESS_BLOCKED';
export const EGRESS_MESSAGE = 'blocked by egress policy';

export class EgressBlockedError extends Error {
  readonly code = EGRESS_BLOCKED;
  constructor(readonly address: string) {
    super(`${EGRESS_MESSAGE}: ${address}`);
    this.name = 'EgressBlockedError';
  }
}

function list(v4: readonly string[], v6: readonly string[]): BlockList {
  const blocks = new BlockList();
  for (const cidr of v4) {
    const [net, bits] = cidr.split('/');
    blocks.addSubnet(net ?? '', Number(bits), 'ipv4');
  }
  for (const cidr of v6) {
    const [net, bits] = cidr.split('/');
    blocks.addSubnet(net ?? '', Number(bits), 'ipv6');
  }
  return blocks;
}

/** Cloud metadata services: blocked under every policy but `off`. */
const METADATA = list(
  ['169.254.169.254/32', '169.254.170.2/32', '100.100.100.200/32', '192.0.0.192/32'],
  ['fd00:ec2::254/128'],
);

/** Everything that is not public unicast (RFC 6890 and friends). */
const NOT_PUBLIC = list(
  [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.0.2.0/24',
    '192.88.99.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '198.51.100.0/24',
    '203.0.113.0/24',
    '224.0.0.0/4',
    '240.0.0.0/4',
  ],
  [
    '::/128',
    '::1/128',
    'fc00::/7',
    'fe80::/10',
    'fec0::/10',
    'ff00::/8',
    '100::/64',
    '2001:2::/48',
    '2001:10::/28',
    '2001:20::/28',
    '2001:db8::/32',
    '3fff::/20',
  ],
);

/** IPv6 global unicast: under `strict`, an IPv6 address outside it is refused unless it carries an IPv4 one. */
const GLOBAL_UNICAST_V6 = list([], ['2000::/3']);

function ipv6Words(address: string): number[] | null {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const octets = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((w) => parseInt(w, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const words = text.includes('::')
    ? [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
    : left;
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : null;
}

const v4From = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 address an IPv6 address carries, when it is one of the forms that reach an IPv4
 * host: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible
 * (::a.b.c.d), NAT64 (64:ff9b::/96 and
 * 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32, the client address inverted).
 */
export function embeddedIpv4(address: string): string | null {
  const w = ipv6Words(address);
  if (!w) return null;
  const [w0, w1, w2, w3, w4, w5, w6, w7] = w as [number, number, number, number, number, number, number, number];
  if (w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0) {
    // IPv4-mapped ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, IPv4-compatible ::a.b.c.d (not :: or ::1).
    if (w4 === 0 && w5 === 0xffff) return v4From(w6, w7);
    if (w4 === 0xffff && w5 === 0) return v4From(w6, w7);
    if (w4 === 0 && w5 === 0 && (w6 !== 0 || w7 > 1)) return v4From(w6, w7);
    return null;
  }
  if (w0 === 0x64 && w1 === 0xff9b && (w2 === 0 || w2 === 1)) return v4From(w6, w7);
  if (w0 === 0x2002) return v4From(w1, w2);
  if (w0 === 0x2001 && w1 === 0) return v4From(w6 ^ 0xffff, w7 ^ 0xffff);
  return null;
}

/** Why `address` may not be reached under `policy`, or null when it may. */
export function egressProblem(address: string, policy: EgressPolicy): string | null {
  if (policy === 'off') return null;
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const inner = family === 6 ? embeddedIpv4(address) : null;
  const candidates: [string, 'ipv4' | 'ipv6'][] = [[address, family === 4 ? 'ipv4' : 'ipv6']];
  if (inner) candidates.push([inner, 'ipv4']);
  for (const [ip, type] of candidates) {
    if (METADATA.check(ip, type)) return `${address} is a cloud metadata address`;
    if (policy === 'strict' && NOT_PUBLIC.check(ip, type)) return `${address} is not a public address`;
  }
  if (policy === 'strict' && family === 6 && !inner && !GLOBAL_UNICAST_V6.check(address, 'ipv6')) {
    return `${address} is not a public address`;
  }
  return null;
}

/**
 * A `dns.lookup` that resolves with `base` and refuses addresses the policy forbids, at
 * connect time, for every connection (so DNS rebinding cannot win). When only some addresses
 * of a name are forbidden, the others are used; when all are, the lookup fails with
 * EgressBlockedError.
 */
export function guardedLookup(policy: EgressPolicy, base: LookupFunction = systemLookup): LookupFunction {
  if (policy === 'off') return base;
  return (hostname: string, options: unknown, callback: unknown) => {
    const opts = (typeof options === 'object' && options !== null ? options : {}) as { all?: boolean };
    const done = (typeof options === 'function' ? options : callback) as (
      error: NodeJS.ErrnoException | null,
      address?: string | LookupAddress[],
      family?: number,
    ) => void;
    base(hostname, { ...opts, all: true }, (error, answer) => {
      if (error) {
        done(error);
        return;
      }
      const addresses = Array.isArray(answer) ? answer : [{ address: answer, family: 0 }];
      const allowed = addresses.filter((a) => egressProblem(a.address, policy) === null);
      const first = allowed[0];
      if (!first) {
        done(new EgressBlockedError(addresses[0]?.address ?? hostname));
        return;
      }
      if (opts.all) done(null, allowed);
      else done(null, first.address, first.family);
    });
  };
}

/** For hosts written as IP literals, which Node connects to without a lookup: throws when forbidden. */
export function assertEgressLiteral(host: string, policy: EgressPolicy): void {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0 && egressProblem(bare, policy) !== null) throw new EgressBlockedError(bare);
}

/** The user-facing text of a refused connection, from the error (possibly wrapped by an HTTP client). */
export function egressMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const at = message.indexOf(EGRESS_MESSAGE);
  return at >= 0 ? message.slice(at) : EGRESS_MESSAGE;
}
