import { egressProblem, egressRefusal, type Egress } from '#runtime';
import { lookup as systemLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parsePingUrl, type ProbeTimings } from '#contracts';
import type { IcmpPinger } from './icmp-pinger.js';
import {
  abortedOutcome,
  blockedOutcome,
  isDeadline,
  type ProbeContext,
  type ProbeOutcome,
  type Prober,
} from './prober.js';
import { resolveHost, type ResolvedAddress } from './resolve-host.js';

export interface PingProberOptions {
  /** Resolves host names (the shape of `dns.lookup`); the egress guard supplies its own. Default: `dns.lookup`. */
  lookup?: LookupFunction;
  /** EGRESS_POLICY for IP-literal targets (names are judged by `lookup`). Default: private-allowed. */
  egress?: Egress;
}

/**
 * The ping prober (docs/decisions/0004-monitors.md, docs/decisions/0005-checks-and-status.md):
 * `ping://<host-or-ip>` is UP when an ICMP echo reply arrives, with the round-trip time as
 * `total_ms` (and `dns_ms` when a name was resolved). No reply by the check's deadline is
 * DOWN/timeout, a destination-unreachable DOWN/connect, a name that does not resolve DOWN/dns.
 * When the agent cannot send ICMP (no raw sockets), the answer is UNKNOWN/internal with the
 * pinger's reason, never DOWN: the target was not tested. Never throws for a failing target.
 */
export function createPingProber(pinger: IcmpPinger, options: PingProberOptions = {}): Prober<'ping'> {
  const lookup = options.lookup ?? systemLookup;
  const egress = options.egress ?? 'private-allowed';
  return (settings, context) => probePing(settings.url, context, pinger, lookup, egress);
}

async function probePing(
  url: string,
  { signal, timeoutMs }: ProbeContext,
  pinger: IcmpPinger,
  lookup: LookupFunction,
  egress: Egress,
): Promise<ProbeOutcome> {
  const started = performance.now();
  const timings: ProbeTimings = { total_ms: 0 };
  const stamp = (): ProbeTimings => {
    timings.total_ms = performance.now() - started;
    return timings;
  };
  const unknown = (error: string): ProbeOutcome => ({ status: 'unknown', phase: 'internal', error, timings: stamp() });

  const target = parsePingUrl(url);
  // Settings are validated where they enter (API, wire): reaching here is our bug.
  if (!target.ok) return unknown(`invalid ping target: ${target.problem}`);
  if (!pinger.available && !pinger.ipv6Available) {
    return unknown(pinger.unavailableReason ?? pinger.ipv6UnavailableReason ?? 'ICMP is unavailable');
  }
  const { host, kind } = target.value;
  if (signal.aborted) return abortedOutcome(signal, stamp());

  let address: ResolvedAddress;
  if (kind === 'name') {
    const resolution = await resolveHost(lookup, host, signal);
    timings.dns_ms = performance.now() - started;
    if (!resolution.ok) {
      if (resolution.aborted) return abortedOutcome(signal, stamp());
      if (resolution.blocked) return blockedOutcome(resolution.error, stamp());
      return { status: 'down', phase: 'dns', error: resolution.error, timings: stamp() };
    }
    // The first address of a family this agent can ping (an IPv4-only agent skips AAAA answers).
    const first = resolution.addresses.find((candidate) => pinger.availableFor(candidate.family));
    address = first ?? resolution.addresses[0] ?? { address: host, family: 4 };
  } else {
    if (egressProblem(host, egress) !== null) {
      return blockedOutcome(egressRefusal(host), stamp());
    }
    address = { address: host, family: kind === 'ipv4' ? 4 : 6 };
  }
  const unavailable = pinger.unavailableReasonFor(address.family);
  if (unavailable !== null) return unknown(unavailable);

  const result = await pinger.ping(address.address, address.family, signal);
  if ('rttMs' in result) {
    return { status: 'up', phase: null, error: null, timings: { ...timings, total_ms: result.rttMs } };
  }
  if (isDeadline(signal)) {
    return { status: 'down', phase: 'timeout', error: `no echo reply within ${timeoutMs} ms`, timings: stamp() };
  }
  if (signal.aborted || result.error === 'aborted') return abortedOutcome(signal, stamp());
  if (result.error === 'unreachable') {
    return {
      status: 'down',
      phase: 'connect',
      error: `destination unreachable (${address.address})`,
      timings: stamp(),
    };
  }
  if (result.error === 'timeout') {
    return { status: 'down', phase: 'timeout', error: `no echo reply within ${timeoutMs} ms`, timings: stamp() };
  }
  // The agent could not send: nothing was learnt about the target.
  if (result.local === true) return unknown(result.error);
  return { status: 'down', phase: 'connect', error: result.error, timings: stamp() };
}
