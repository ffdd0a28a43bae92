import { egressProblem, egressRefusal, type Egress } from '#runtime';
import { lookup as systemLookup } from 'node:dns';
import { connect, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseTcpUrl, type ProbeTimings } from '#contracts';
import { abortedOutcome, blockedOutcome, type ProbeContext, type ProbeOutcome, type Prober } from './prober.js';
import { resolveHost, type ResolvedAddress } from './resolve-host.js';
import { CONNECT_ERRORS } from './network-errors.js';

export interface TcpProberOptions {
  /**
   * Resolves host names (the shape of `dns.lookup`); the egress guard supplies one that
   * refuses forbidden addresses. It is also handed to `net.connect`, which only consults it
   * for names (the prober connects to the address it resolved). Default: `dns.lookup`.
   */
  lookup?: LookupFunction;
  /** EGRESS_POLICY for IP-literal targets (names are judged by `lookup`). Default: private-allowed. */
  egress?: Egress;
}

/**
 * The TCP prober (docs/decisions/0004-monitors.md, docs/decisions/0005-checks-and-status.md):
 * `tcp://<host>:<port>` is UP when a TCP connection is established; the connection is closed at
 * once, nothing is sent. Names are resolved first (`dns_ms`) and the first address is dialled
 * (`connect_ms`); `total_ms` is both. A refused, reset or unreachable connection is DOWN/connect,
 * a name that does not resolve DOWN/dns, the check's deadline DOWN/timeout, and any other abort
 * UNKNOWN. Never throws for a failing target.
 */
export function createTcpProber(options: TcpProberOptions = {}): Prober<'tcp'> {
  const lookup = options.lookup ?? systemLookup;
  const egress = options.egress ?? 'private-allowed';
  return (settings, context) => probeTcp(settings.url, context, lookup, egress);
}

async function probeTcp(
  url: string,
  { signal }: ProbeContext,
  lookup: LookupFunction,
  egress: Egress,
): Promise<ProbeOutcome> {
  const started = performance.now();
  const timings: ProbeTimings = { total_ms: 0 };
  const stamp = (): ProbeTimings => {
    timings.total_ms = performance.now() - started;
    return timings;
  };

  const target = parseTcpUrl(url);
  if (!target.ok || target.value.port === undefined) {
    // Settings are validated where they enter (API, wire): reaching here is our bug.
    const problem = target.ok ? 'has no port' : target.problem;
    return { status: 'unknown', phase: 'internal', error: `invalid tcp target: ${problem}`, timings };
  }
  const { host, kind, port } = target.value;
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
    // resolveHost answers at least one address.
    address = resolution.addresses[0] ?? { address: host, family: 4 };
  } else {
    if (egressProblem(host, egress) !== null) {
      return blockedOutcome(egressRefusal(host), stamp());
    }
    address = { address: host, family: kind === 'ipv4' ? 4 : 6 };
  }

  const connectStarted = performance.now();
  const attempt = await connectOnce(address, port, lookup, signal);
  switch (attempt.kind) {
    case 'connected':
      timings.connect_ms = attempt.at - connectStarted;
      return { status: 'up', phase: null, error: null, timings: stamp(), local_address: attempt.localAddress };
    case 'aborted':
      return abortedOutcome(signal, stamp());
    case 'failed':
      return connectFailure(attempt.error, address, port, stamp());
  }
}

type ConnectAttempt =
  | { kind: 'connected'; at: number; localAddress: string | null }
  | { kind: 'failed'; error: NodeJS.ErrnoException }
  | { kind: 'aborted' };

/** One TCP connection attempt, closed as soon as it is established (or abandoned on abort). */
function connectOnce(
  target: ResolvedAddress,
  port: number,
  lookup: LookupFunction,
  signal: AbortSignal,
): Promise<ConnectAttempt> {
  return new Promise<ConnectAttempt>((resolve) => {
    let settled = false;
    const socket = connect({ host: target.address, port, family: target.family, lookup, autoSelectFamily: false });
    const finish = (attempt: ConnectAttempt) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(attempt);
    };
    const onAbort = () => finish({ kind: 'aborted' });
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      const at = performance.now();
      finish({ kind: 'connected', at, localAddress: socket.localAddress ?? null });
    });
    // Kept for the socket's whole life: a late error must never become an uncaught one.
    socket.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'failed', error }));
  });
}

/** Failures of the agent itself (out of descriptors or memory): it cannot tell, so UNKNOWN. */
const LOCAL_ERRORS = new Set(['EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM']);

function connectFailure(
  error: NodeJS.ErrnoException,
  target: ResolvedAddress,
  port: number,
  timings: ProbeTimings,
): ProbeOutcome {
  const code = typeof error.code === 'string' ? error.code : null;
  const where = `${target.family === 6 ? `[${target.address}]` : target.address}:${port}`;
  if (code !== null && LOCAL_ERRORS.has(code)) {
    return { status: 'unknown', phase: 'internal', error: `agent could not open a connection (${code})`, timings };
  }
  const known = code === 'ECONNRESET' ? 'connection reset' : code !== null ? CONNECT_ERRORS[code] : undefined;
  const reason = known ?? `connect failed (${code ?? error.message})`;
  return { status: 'down', phase: 'connect', error: `${reason} (${where})`, timings };
}
