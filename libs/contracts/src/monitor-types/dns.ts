import { isIPv4, isIPv6 } from 'node:net';
import { arrayOf, type Checker, described, Field, oneOf, text } from '#validation';
import { classifyHost, HOST_PART, schemeProblem, targetProblem, type HostPort, type TargetParse } from '../targets.js';
import { defineMonitorType, targetChecker, targetSchema } from './definition.js';

/**
 * The `dns` monitor type (docs/decisions/0024-dns-monitors.md): a query for `dns://<name>`'s
 * records of one type, from each region's agent, through the agent's system resolver or the
 * monitor's own. DOWN on NXDOMAIN, SERVFAIL, no answer, timeout, or an expected value missing.
 */

export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'CAA', 'SOA'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

export const DNS_LIMITS = { expected: 20, expectedLength: 255 } as const;

export interface DnsSettings {
  url: string;
  record_type: DnsRecordType;
  /** `<ip>[:port]` of the resolver to ask; absent: the agent's system resolver. */
  resolver?: string;
  /** Values that must all be among the answers (compared as DnsAnswer texts). */
  expected?: string[];
}

const DNS_PATTERN = new RegExp(String.raw`^dns://${HOST_PART}$`, 'i');

/** `dns://<name>`: a DNS name, nothing else (an address has no records to ask for). */
export function parseDnsUrl(value: string): TargetParse<HostPort> {
  const raw = schemeProblem(value, 'dns');
  if (raw) return targetProblem(raw);
  const match = DNS_PATTERN.exec(value);
  if (!match) return targetProblem('must have the form dns://<name>');
  const host = classifyHost(match[1] ?? '');
  if (host.ok && host.value.kind !== 'name') return targetProblem('must name a host, not an IP address');
  return host;
}

export interface ResolverAddress {
  address: string;
  family: 4 | 6;
  port: number;
}

/** `<ipv4>[:port]`, `[<ipv6>][:port]` or a bare IPv6 address; port 53 unless given. */
export function parseResolver(value: string): ResolverAddress | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  if (bracketed) {
    const [, address = '', port] = bracketed;
    return isIPv6(address) && !address.includes('%') ? withPort(address, 6, port) : null;
  }
  if (isIPv6(value) && !value.includes('%')) return { address: value, family: 6, port: 53 };
  const v4 = /^([0-9.]+)(?::(\d{1,5}))?$/.exec(value);
  if (v4 && isIPv4(v4[1] ?? '')) return withPort(v4[1] ?? '', 4, v4[2]);
  return null;
}

function withPort(address: string, family: 4 | 6, port: string | undefined): ResolverAddress | null {
  const number = port === undefined ? 53 : Number(port);
  return number >= 1 && number <= 65535 ? { address, family, port: number } : null;
}

const resolver: Checker = described(
  (value) => {
    if (typeof value !== 'string') return 'must be a string';
    return parseResolver(value) ? null : 'must be an IP address with an optional port, such as 9.9.9.9 or [::1]:5353';
  },
  {
    type: 'string',
    maxLength: 47,
    description: '`<ip>[:port]` of the resolver to ask (IPv6 in brackets when a port is given); port 53 by default.',
  },
);

const expectedValue = text({ max: DNS_LIMITS.expectedLength, min: 1, notBlank: true });

export class DnsSettingsDto {
  @Field(targetChecker(parseDnsUrl, targetSchema('dns', '`dns://<name>`: the DNS name whose records are asked for.')))
  url!: string;
  @Field(oneOf(DNS_RECORD_TYPES), { optional: true }) record_type?: DnsRecordType;
  @Field(resolver, { optional: true }) resolver?: string;
  @Field(arrayOf(expectedValue, { max: DNS_LIMITS.expected, unique: true }), { optional: true }) expected?: string[];
}

export const dnsType = defineMonitorType({
  dto: DnsSettingsDto,
  toSettings: (dto): DnsSettings => ({
    url: dto.url,
    record_type: dto.record_type ?? 'A',
    ...(dto.resolver === undefined ? {} : { resolver: dto.resolver }),
    ...(dto.expected === undefined ? {} : { expected: dto.expected }),
  }),
  parseTarget: parseDnsUrl,
  // The name is never connected to; a custom resolver is judged by the agent when it asks.
  literalAddress: () => null,
});
