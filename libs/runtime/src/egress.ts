import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The egress guard (docs/decisions/0010-egress-policy.md): which addresses probes and
 * notifications may connect to. `private-allowed` (default): private networks and loopback yes;
 * cloud metadata and link-local addresses, multicast, broadcast and reserved ranges no. `strict`
 * (multi-tenant): public unicast addresses only, and no 6to4 or Teredo tunnel. `off`: anything.
 * A refusal's text starts with EGRESS_REASON.
 */
export const EGRESS_POLICIES = ['private-allowed', 'strict', 'off'] as const;
export type EgressPolicy = (typeof EGRESS_POLICIES)[number];

/** A policy with the operator's exceptions (EGRESS_ALLOW_CIDRS, EGRESS_DENY_CIDRS, EGRESS_ALLOW_METADATA). */
export interface EgressRules {
  readonly policy: EgressPolicy;
  /** Always allowed, whatever the policy refuses (but `deny`): an internal relay a strict install must reach. */
  readonly allow?: readonly string[];
  /** Always refused (unless the policy is `off`). Wins over `allow`. */
  readonly deny?: readonly string[];
  /** Under `private-allowed`: the metadata and link-local addresses are allowed too. */
  readonly allowMetadata?: boolean;
}

/** What every guarded connection is judged by: a bare policy, or a policy with exceptions. */
export type Egress = EgressPolicy | EgressRules;

/** The error code of a connection the guard refused. */
export const EGRESS_BLOCKED = 'EGRESS_BLOCKED';
/** The words of a refusal, after its reason. */
export const EGRESS_MESSAGE = 'blocked by egress policy';
/**
 * The stable, machine-readable reason of a refusal: every refused check's `error` and every
 * refused notification's failure text starts with `destination_not_allowed: `
 * (docs/decisions/0010-egress-policy.md).
 */
export const EGRESS_REASON = 'destination_not_allowed';

/** The text of a refused connection to `address`: `destination_not_allowed: blocked by egress policy: <address>`. */
export function egressRefusal(address: string): string {
  return `${EGRESS_REASON}: ${EGRESS_MESSAGE}: ${address}`;
}

export class EgressBlockedError extends Error {
  readonly code = EGRESS_BLOCKED;
  constructor(readonly address: string) {
    super(egressRefusal(address));
    this.name = 'EgressBlockedError';
  }
}

function list(v4: readonly string[], v6: readonly string[]): BlockList {
  return cidrList([...v4, ...v6]);
}

/**
 * Cloud metadata services and the link-local ranges they live in: refused under every
 * policy but `off` (under `private-allowed` only without EGRESS_ALLOW_METADATA).
 */
const METADATA = list(['169.254.0.0/16', '100.100.100.200/32', '192.0.0.192/32'], ['fe80::/10', 'fd00:ec2::254/128']);

/** Never a sensible destination, even on a private network: "this network", IETF and benchmarking ranges, multicast, reserved, broadcast. */
const RESERVED = list(
  ['0.0.0.0/8', '192.0.0.0/24', '198.18.0.0/15', '224.0.0.0/4', '240.0.0.0/4'],
  ['::/128', 'ff00::/8'],
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

/**
 * 6to4 and Teredo: tunnels whose packets reach the IPv4 host they name through relays nobody
 * here vouches for. `strict` refuses them outright, whatever IPv4 address they carry; the other
 * policies judge that address.
 */
const TUNNELS_V6 = list([], ['2002::/16', '2001::/32']);

/**
 * The eight 16-bit words of an IPv6 address already known to be one (isIPv6; no zone), an
 * IPv4 tail converted; null when they do not add up to eight.
 */
export function ipv6Words(address: string): number[] | null {
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

/** The dotted IPv4 address of two 16-bit words. */
export const v4From = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

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

interface CompiledRules {
  policy: EgressPolicy;
  allow: BlockList | null;
  deny: BlockList | null;
  allowMetadata: boolean;
  /**
   * Verdicts already reached, by address: every check of a monitor asks about the same few
   * addresses again, and a BlockList lookup builds a native SocketAddress each time.
   */
  verdicts: Map<string, string | null>;
}

/** Verdicts kept per set of rules; the map starts over when full. */
const VERDICTS_KEPT = 4096;

/** CIDRs (or single addresses) as a BlockList; throws on a malformed entry. */
export function cidrList(entries: readonly string[]): BlockList {
  const blocks = new BlockList();
  for (const entry of entries) {
    const match = /^([^/]+)(?:\/(\d{1,3}))?$/.exec(entry.trim());
    const net = match?.[1] ?? '';
    const family = isIP(net);
    const max = family === 4 ? 32 : 128;
    const prefix = match?.[2] === undefined ? max : Number(match[2]);
    if (family === 0 || prefix > max) throw new Error(`${entry} is not an IP address or CIDR`);
    blocks.addSubnet(net, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return blocks;
}

const compiledRules = new WeakMap<EgressRules, CompiledRules>();
const barePolicies = new Map<EgressPolicy, CompiledRules>();

function compile(egress: Egress): CompiledRules {
  if (typeof egress === 'string') {
    let bare = barePolicies.get(egress);
    if (!bare) {
      bare = { policy: egress, allow: null, deny: null, allowMetadata: false, verdicts: new Map() };
      barePolicies.set(egress, bare);
    }
    return bare;
  }
  let compiled = compiledRules.get(egress);
  if (!compiled) {
    compiled = {
      policy: egress.policy,
      allow: egress.allow?.length ? cidrList(egress.allow) : null,
      deny: egress.deny?.length ? cidrList(egress.deny) : null,
      allowMetadata: egress.allowMetadata === true,
      verdicts: new Map(),
    };
    compiledRules.set(egress, compiled);
  }
  return compiled;
}

/** The policy name of a bare policy or of rules. */
export function egressPolicyOf(egress: Egress): EgressPolicy {
  return typeof egress === 'string' ? egress : egress.policy;
}

/**
 * Why `address` may not be reached, or null when it may. An IPv6 address that carries an IPv4
 * one (mapped, translated, compatible, NAT64, 6to4, Teredo) is judged by both, so no form of a
 * refused IPv4 address gets through; the operator's lists are compared the same way. Under
 * `strict`, 6to4 and Teredo addresses are refused whatever they carry, unless EGRESS_ALLOW_CIDRS
 * names the IPv6 address itself.
 */
export function egressProblem(address: string, egress: Egress): string | null {
  const rules = compile(egress);
  if (rules.policy === 'off') return null;
  const known = rules.verdicts.get(address);
  if (known !== undefined) return known;
  const verdict = judge(address, rules);
  if (rules.verdicts.size >= VERDICTS_KEPT) rules.verdicts.clear();
  rules.verdicts.set(address, verdict);
  return verdict;
}

function judge(address: string, rules: CompiledRules): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const inner = family === 6 ? embeddedIpv4(address) : null;
  const candidates: [string, 'ipv4' | 'ipv6'][] = [[address, family === 4 ? 'ipv4' : 'ipv6']];
  if (inner) candidates.push([inner, 'ipv4']);
  const anyIn = (blocks: BlockList | null) =>
    blocks !== null && candidates.some(([ip, type]) => blocks.check(ip, type));
  if (anyIn(rules.deny)) return `${address} is denied by EGRESS_DENY_CIDRS`;
  const strict = rules.policy === 'strict';
  // Only an allowed IPv6 range opens a tunnel address under strict, never its IPv4 address.
  if (strict && family === 6 && TUNNELS_V6.check(address, 'ipv6') && !rules.allow?.check(address, 'ipv6')) {
    return `${address} is a 6to4 or Teredo address`;
  }
  if (anyIn(rules.allow)) return null;
  for (const [ip, type] of candidates) {
    if (METADATA.check(ip, type) && (strict || !rules.allowMetadata)) {
      return `${address} is a cloud metadata or link-local address`;
    }
    if (RESERVED.check(ip, type)) return `${address} is a reserved address`;
    if (strict && NOT_PUBLIC.check(ip, type)) return `${address} is not a public address`;
  }
  if (strict && family === 6 && !inner && !GLOBAL_UNICAST_V6.check(address, 'ipv6')) {
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
export function guardedLookup(egress: Egress, base: LookupFunction = systemLookup): LookupFunction {
  if (egressPolicyOf(egress) === 'off') return base;
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
      const allowed = addresses.filter((a) => egressProblem(a.address, egress) === null);
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
export function assertEgressLiteral(host: string, egress: Egress): void {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0 && egressProblem(bare, egress) !== null) throw new EgressBlockedError(bare);
}

/**
 * The user-facing text of a refused connection, from the error (possibly wrapped by an HTTP
 * client), always starting with the reason: `destination_not_allowed: blocked by egress policy: …`.
 */
export function egressMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const at = message.indexOf(EGRESS_MESSAGE);
  return `${EGRESS_REASON}: ${at >= 0 ? message.slice(at) : EGRESS_MESSAGE}`;
}
