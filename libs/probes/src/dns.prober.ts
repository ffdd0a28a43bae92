import { promises as dns } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { parseDnsUrl, parseResolver, type DnsRecordType, type DnsSettings, type ProbeTimings } from '#contracts';
import { egressProblem, egressRefusal, type Egress } from '#runtime';
import { abortedOutcome, blockedOutcome, type ProbeContext, type ProbeOutcome, type Prober } from './prober.js';

export interface DnsProberOptions {
  /** EGRESS_POLICY, applied to a monitor's own resolver (the system resolver is the agent's). */
  egress?: Egress;
  /** The resolver class; tests hand in one whose servers they choose. Default: node:dns's. */
  Resolver?: typeof dns.Resolver;
}

/**
 * The DNS prober (docs/decisions/0024-dns-monitors.md): one query for the monitor's record type,
 * through a Resolver made for the check (its own timeout, one try, cancelled at the deadline),
 * asking the monitor's resolver or the agent's system ones. UP when records come back and every
 * `expected` value is among them; DOWN/dns on NXDOMAIN, SERVFAIL, a refusal or no records of
 * the type; DOWN/timeout when the resolver does not answer in time; DOWN/assertion when an
 * expected value is missing. A resolver the egress policy refuses is BLOCKED.
 */
export function createDnsProber(options: DnsProberOptions = {}): Prober<'dns'> {
  const egress = options.egress ?? 'private-allowed';
  const Resolver = options.Resolver ?? dns.Resolver;
  return (settings, context) => probeDns(settings, context, egress, Resolver);
}

async function probeDns(
  settings: DnsSettings,
  { signal, timeoutMs }: ProbeContext,
  egress: Egress,
  Resolver: typeof dns.Resolver,
): Promise<ProbeOutcome> {
  const started = performance.now();
  const timings: ProbeTimings = { total_ms: 0 };
  const stamp = (): ProbeTimings => {
    timings.total_ms = performance.now() - started;
    return timings;
  };
  const target = parseDnsUrl(settings.url);
  const server = settings.resolver === undefined ? undefined : parseResolver(settings.resolver);
  if (!target.ok || server === null) {
    // Settings are validated where they enter (API, wire): reaching here is our bug.
    return { status: 'unknown', phase: 'internal', error: `invalid dns settings: ${settings.url}`, timings };
  }
  if (server && egressProblem(server.address, egress) !== null) {
    return blockedOutcome(egressRefusal(server.address), stamp());
  }
  if (signal.aborted) return abortedOutcome(signal, stamp());

  const resolver = new Resolver({ timeout: Math.max(1, timeoutMs), tries: 1 });
  if (server) {
    resolver.setServers([
      server.family === 6 ? `[${server.address}]:${server.port}` : `${server.address}:${server.port}`,
    ]);
  }
  const onAbort = () => resolver.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  const name = target.value.host.replace(/\.$/, '');
  let answers: DnsAnswer[];
  try {
    answers = await query(resolver, name, settings.record_type);
  } catch (error) {
    timings.dns_ms = performance.now() - started;
    if (signal.aborted) return abortedOutcome(signal, stamp());
    return queryFailure(error as NodeJS.ErrnoException, name, settings.record_type, stamp());
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  timings.dns_ms = performance.now() - started;
  if (answers.length === 0) {
    return { status: 'down', phase: 'dns', error: `no ${settings.record_type} records for ${name}`, timings: stamp() };
  }
  const missing = (settings.expected ?? []).filter((value) => !answers.some((answer) => matches(answer, value)));
  if (missing.length > 0) {
    const seen = answers.map((a) => a.text).join(', ');
    const error = `expected ${missing.map((m) => JSON.stringify(m)).join(', ')} among the ${settings.record_type} answers, got ${seen}`;
    return { status: 'down', phase: 'assertion', error: truncate(error, 300), timings: stamp() };
  }
  return { status: 'up', phase: null, error: null, timings: stamp() };
}

/**
 * One answer as text (its canonical form: MX `10 mail.example.com`, CAA `0 issue "ca.example"`,
 * SOA its seven fields) and, for records of several fields, the field a user usually means
 * (the MX exchange, the CAA value, the SOA primary name server). An expected value matches either.
 */
export interface DnsAnswer {
  text: string;
  main?: string;
  /** Names compare without case and trailing dot; TXT values exactly. */
  caseless: boolean;
}

async function query(resolver: dns.Resolver, name: string, type: DnsRecordType): Promise<DnsAnswer[]> {
  const names = (values: string[]) => values.map((text) => ({ text, caseless: true }));
  switch (type) {
    case 'A':
      return names(await resolver.resolve4(name));
    case 'AAAA':
      return names(await resolver.resolve6(name));
    case 'CNAME':
      return names(await resolver.resolveCname(name));
    case 'NS':
      return names(await resolver.resolveNs(name));
    case 'MX':
      return (await resolver.resolveMx(name)).map((mx) => ({
        text: `${mx.priority} ${mx.exchange}`,
        main: mx.exchange,
        caseless: true,
      }));
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((chunks) => ({ text: chunks.join(''), caseless: false }));
    case 'CAA':
      return (await resolver.resolveCaa(name)).map((record) => {
        const [tag = '', value = ''] = Object.entries(record).find(([key]) => key !== 'critical') ?? [];
        return { text: `${record.critical} ${tag} "${String(value)}"`, main: String(value), caseless: true };
      });
    case 'SOA': {
      const soa = await resolver.resolveSoa(name);
      const text = [soa.nsname, soa.hostmaster, soa.serial, soa.refresh, soa.retry, soa.expire, soa.minttl].join(' ');
      return [{ text, main: soa.nsname, caseless: true }];
    }
  }
}

export function matches(answer: DnsAnswer, expected: string): boolean {
  const same = (a: string, b: string) =>
    answer.caseless ? a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '') : a === b;
  return same(answer.text, expected) || (answer.main !== undefined && same(answer.main, expected));
}

/** c-ares error codes (node:dns) and how a check reads them. */
const QUERY_ERRORS: Readonly<Record<string, string>> = {
  ENOTFOUND: 'NXDOMAIN: the name does not exist',
  ESERVFAIL: 'SERVFAIL: the DNS server failed',
  EREFUSED: 'the DNS server refused the query',
  ECONNREFUSED: 'the DNS server refused the connection',
  EBADRESP: 'the DNS server sent a malformed reply',
  EFORMERR: 'the DNS server could not read the query',
  ENOTIMP: 'the DNS server does not implement the query',
};

function queryFailure(
  error: NodeJS.ErrnoException,
  name: string,
  type: DnsRecordType,
  timings: ProbeTimings,
): ProbeOutcome {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code === 'ETIMEOUT') {
    return { status: 'down', phase: 'timeout', error: `no answer from the DNS server for ${name} ${type}`, timings };
  }
  if (code === 'ENODATA') return { status: 'down', phase: 'dns', error: `no ${type} records for ${name}`, timings };
  const known = QUERY_ERRORS[code];
  if (known) return { status: 'down', phase: 'dns', error: `${known} (${name} ${type})`, timings };
  if (code === 'ENOMEM' || code === 'ECANCELLED' || code === 'EDESTRUCTION') {
    return { status: 'unknown', phase: 'internal', error: `agent could not query (${code})`, timings };
  }
  return {
    status: 'down',
    phase: 'dns',
    error: `DNS query failed (${code || error.message}) for ${name} ${type}`,
    timings,
  };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
