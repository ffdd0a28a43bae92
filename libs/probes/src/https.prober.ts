import { lookup as systemLookup } from 'node:dns';
import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { types } from 'node:util';
import { createSecureContext, rootCertificates, type SecureContext, TLSSocket } from 'node:tls';
import got, {
  type Got,
  type Headers,
  MaxRedirectsError,
  type NormalizedOptions,
  type StreamOptions,
  RequestError,
  type Response,
  TimeoutError,
} from 'got';
import {
  type FailurePhase,
  isSendableHeaderName,
  HTTPS_LIMITS,
  type HttpsSettings,
  type JsonAssertion,
  isHostHeaderValue,
  MAX_ERROR_LENGTH,
  parseHeaderLines,
  parseStatusRanges,
  type ProbeTimings,
  statusAccepted,
} from '#contracts';
import { assertEgressLiteral, EGRESS_BLOCKED, egressMessage, PICKET_VERSION, type Egress } from '#runtime';
import { abortedOutcome, type ProbeContext, type ProbeOutcome, type Prober } from './prober.js';
import { failedJsonAssertion } from './json-assertions.js';
import { CONNECT_ERRORS, DNS_ERRORS } from './network-errors.js';
import { peerNotAfter, ProbeHttpsAgent } from './peer-identity.js';

/** How much of a response body is searched for `response_body` unless told otherwise: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface HttpsProberOptions {
  /**
   * Resolves host names for every connection of a check, on every hop (the shape of
   * `dns.lookup`; called with `all: true` under Happy Eyeballs). The egress guard supplies
   * one that refuses forbidden addresses. Default: `dns.lookup`.
   */
  lookup?: LookupFunction;
  /** The `response_body` text must appear within this many bytes of the decoded body. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Extra trusted CAs (PEM), for tests and private PKI: trusted in addition to Node's bundled
   * roots. When set, NODE_EXTRA_CA_CERTS no longer applies to the probes.
   */
  ca?: string | readonly string[];
  /**
   * The egress policy for IP-literal hosts, which Node connects to without a lookup (names are
   * judged by `lookup`, see guardedLookup). Checked on every hop. Default: private-allowed.
   */
  egress?: Egress;
}

/**
 * The HTTP(S) prober (docs/decisions/0004-monitors.md, docs/decisions/0005-checks-and-status.md).
 * One fresh connection per hop (shared agents that never keep a connection, see probeClient), TLS
 * verification always on, SNI and verification against the URL's host. Never throws for a failing
 * target; an error it cannot attribute to the target is rejected so that runProbe reports
 * UNKNOWN/internal.
 *
 * Timings are phase durations summed over every hop of the check: `dns_ms` resolving,
 * `connect_ms` TCP connecting, `tls_ms` the TLS handshake, `first_byte_ms` waiting from the
 * request sent to the first byte of the response; `total_ms` is the whole check (including
 * reading up to maxBodyBytes of the final body). A phase that never happened (an IP literal
 * needs no lookup, plain HTTP has no handshake) is left out.
 */
export function createHttpsProber(options: HttpsProberOptions = {}): Prober<'https'> {
  const egress = options.egress ?? 'private-allowed';
  // Built once and shared by every connection: without one, Node builds a context per
  // connection (0.15 ms of CPU each on the benchmark machine, even with the default roots);
  // with extra CAs, tens of milliseconds. No `ca`: Node's roots and NODE_EXTRA_CA_CERTS.
  const secureContext = createSecureContext(
    options.ca === undefined
      ? {}
      : { ca: [...rootCertificates, ...(typeof options.ca === 'string' ? [options.ca] : options.ca)] },
  );
  let lenient: Got | null = null;
  const config: ProbeConfig = {
    lookup: options.lookup ?? systemLookup,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    client: probeClient(egress, secureContext, true),
    // Only for monitors with ignore_tls_errors, made when the first one is checked.
    lenientClient: () => (lenient ??= probeClient(egress, secureContext, false)),
  };
  return (settings, context) => probeHttps(settings, context, config);
}

interface ProbeConfig {
  lookup: LookupFunction;
  maxBodyBytes: number;
  client: Got;
  /** The client of `ignore_tls_errors` monitors: certificates are read, not verified. */
  lenientClient: () => Got;
}

/** What a check hands its redirect hook (got's per-request `context`). */
interface HopContext extends Record<string, unknown> {
  /** The origin of the monitor's URL. */
  origin: string;
  /** The lower-cased names of the monitor's own request headers (User-Agent excepted). */
  own: readonly string[];
}

const USER_AGENT = `Picket/${PICKET_VERSION} (uptime monitor)`;

/**
 * One got instance per prober with everything that is the same for every check, so that a
 * check only merges what is its own (got normalises options per request: fewer options and
 * no per-check hooks is measurably less CPU, see docs/benchmarks.md).
 *
 * The agents are shared and never keep a connection: every hop opens a fresh one (no
 * keep-alive, no TLS session cache, so every HTTPS check does a full handshake). Agent
 * options take precedence over per-request options in Node, so verification cannot be undone
 * by anything got passes down. The resolver is per request (got's `dnsLookup`), because each
 * check times its own lookups.
 */
function probeClient(egress: Egress, secureContext: SecureContext, verify: boolean): Got {
  const checkLiteral = egressLiteralCheck(egress);
  return got.extend({
    agent: {
      http: new HttpAgent({ keepAlive: false }),
      https: new ProbeHttpsAgent({
        keepAlive: false,
        rejectUnauthorized: verify,
        maxCachedSessions: 0,
        secureContext,
      }),
    },
    https: { rejectUnauthorized: verify },
    maxRedirects: HTTPS_LIMITS.redirects,
    throwHttpErrors: false,
    retry: { limit: 0 },
    decompress: true,
    enableUnixSockets: false,
    hooks: {
      beforeRequest: [checkLiteral, pinServerName],
      beforeRedirect: [
        (options: NormalizedOptions) => {
          checkLiteral(options);
          dropHeadersAcrossOrigins(options);
        },
      ],
    },
  });
}

async function probeHttps(settings: HttpsSettings, context: ProbeContext, config: ProbeConfig): Promise<ProbeOutcome> {
  const trace = new Trace(settings.check_certificate_expiration);
  if (context.signal.aborted) return abortedOutcome(context.signal, trace.timings());
  return exchange(settings, context, config, trace);
}

function exchange(
  settings: HttpsSettings,
  context: ProbeContext,
  config: ProbeConfig,
  trace: Trace,
): Promise<ProbeOutcome> {
  const method = settings.http_method ?? 'GET';
  const ranges = parseStatusRanges(settings.http_statuses);
  const expected = settings.response_body === undefined ? null : Buffer.from(settings.response_body, 'utf8');
  const absent =
    settings.response_body_absent === undefined ? null : Buffer.from(settings.response_body_absent, 'utf8');
  const assertions = settings.json_assertions ?? [];
  const readsBody = expected !== null || absent !== null || assertions.length > 0;
  const client = settings.ignore_tls_errors === true ? config.lenientClient() : config.client;
  // HEAD cannot carry a body; GET may (got refuses it unless told).
  const body = method === 'HEAD' ? undefined : settings.request_body;
  const headers = requestHeaders(settings.request_headers);
  const hop: HopContext = { origin: new URL(settings.url).origin, own: ownHeaderNames(headers) };

  return new Promise<ProbeOutcome>((resolve, reject) => {
    let settled = false;
    // Only what differs from got's defaults: got runs every option given through a setter.
    const options: StreamOptions = {
      headers,
      // The caller's signal is the deadline (runProbe owns it).
      signal: context.signal,
      dnsLookup: trace.timedLookup(config.lookup),
      context: hop,
    };
    if (method !== 'GET') options.method = method;
    if (body !== undefined) {
      options.body = body;
      if (method === 'GET') options.allowGetBody = true;
    }
    if (settings.follow_redirect === false) options.followRedirect = false;
    const stream = client.stream(settings.url, options);

    const finish = (outcome: ProbeOutcome | Error): void => {
      if (settled) return;
      settled = true;
      stream.destroy();
      if (isError(outcome)) reject(outcome);
      else resolve(outcome);
    };

    stream.on('request', (request: ClientRequest) => trace.onRequest(request));
    // `on`, not `once`: a second error after the first must not become an uncaught one.
    stream.on('error', (error: Error) => finish(classify(error, context, trace)));
    stream.once('response', (response: Response) => {
      trace.responded = true;
      const status = response.statusCode;
      const seen = { http_status: status, cert_not_after: trace.certNotAfter };
      if (!statusAccepted(ranges, status)) {
        finish(trace.outcome('down', 'response', `HTTP ${status}`, seen));
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      const judge = (truncated: boolean): void => {
        const problem = readsBody
          ? bodyProblem(Buffer.concat(chunks), { expected, absent, assertions }, truncated ? config.maxBodyBytes : null)
          : null;
        finish(
          problem === null ? trace.outcome('up', null, null, seen) : trace.outcome('down', 'assertion', problem, seen),
        );
      };
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = config.maxBodyBytes - received;
        if (readsBody) chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        received += chunk.length;
        if (received >= config.maxBodyBytes) judge(true);
      });
      stream.once('end', () => judge(false));
    });

    // got ends the request itself for GET and HEAD; other methods wait for a body to be written.
    if (body === undefined && method !== 'GET' && method !== 'HEAD') stream.end();
  });
}

interface BodyAssertions {
  expected: Buffer | null;
  absent: Buffer | null;
  assertions: readonly JsonAssertion[];
}

/**
 * What is wrong with the body read (at most maxBodyBytes; `cut` is that limit when the body
 * was longer), or null: `response_body` must appear, `response_body_absent` must not, and the
 * `json_assertions` need the whole body as JSON (docs/decisions/0025-https-assertions.md).
 */
function bodyProblem(
  body: Buffer,
  { expected, absent, assertions }: BodyAssertions,
  cut: number | null,
): string | null {
  const where = cut === null ? '' : ` (searched the first ${cut} bytes)`;
  if (expected !== null && !body.includes(expected)) return `response body does not contain the expected text${where}`;
  if (absent !== null && body.includes(absent)) return 'response body contains the text it must not contain';
  if (assertions.length === 0) return null;
  if (cut !== null) return `response body is larger than ${cut} bytes: too large for JSON assertions`;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return 'response body is not JSON (json_assertions)';
  }
  return failedJsonAssertion(json, assertions);
}

/**
 * A monitor's own request headers often carry credentials (API keys, tokens). got strips
 * only Authorization, Cookie and Host on a redirect to another origin; every header the
 * monitor set goes the same way, so a redirect can never hand them to a third party.
 */
function dropHeadersAcrossOrigins(options: NormalizedOptions): void {
  const { origin, own } = options.context as HopContext;
  const next = options.url === undefined ? origin : new URL(String(options.url)).origin;
  if (next !== origin) for (const name of own) delete options.headers[name];
}

/** The names of the headers the monitor set and the check sends (User-Agent excepted). */
function ownHeaderNames(headers: Headers): string[] {
  return Object.keys(headers).filter((name) => name !== 'user-agent');
}

/**
 * Lower-cased request headers: our User-Agent unless the monitor sets one; repeated names are all
 * sent. Validation refuses framing, hop-by-hop and pseudo-headers and a second or malformed Host
 * (libs/contracts/src/monitor-types/https.ts); they are dropped here too, whatever arrives, so the
 * HTTP client alone frames the request (docs/decisions/0004-monitors.md).
 */
function requestHeaders(lines: string | undefined): Headers {
  const headers: Record<string, string | string[]> = { 'user-agent': USER_AGENT };
  const given = new Map<string, string[]>();
  for (const [name, value] of parseHeaderLines(lines)) {
    const key = name.toLowerCase();
    if (!isSendableHeaderName(key)) continue;
    given.set(key, [...(given.get(key) ?? []), value]);
  }
  const host = given.get('host');
  if (host !== undefined && (host.length !== 1 || !isHostHeaderValue(host[0] ?? ''))) given.delete('host');
  for (const [key, values] of given) headers[key] = values.length === 1 ? (values[0] ?? '') : values;
  return headers;
}

/**
 * SNI and certificate verification use the host of the URL of each hop, even when the
 * monitor sends its own Host header (Node would otherwise take the name from that header).
 * IP literals get no SNI and are verified against the certificate's IP addresses.
 */
/** IP-literal hosts skip the lookup: the egress policy judges them here, on every hop. */
function egressLiteralCheck(policy: Egress): (options: NormalizedOptions) => void {
  return (options) => {
    if (options.url instanceof URL) assertEgressLiteral(options.url.hostname, policy);
  };
}

function pinServerName(options: NormalizedOptions): void {
  const url = options.url;
  if (!(url instanceof URL) || url.protocol !== 'https:') return;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  options.https = { ...options.https, serverName: isIP(host) === 0 ? host : '' };
}

// ---- tracing a check ------------------------------------------------------------------------

type Progress = Extract<FailurePhase, 'dns' | 'connect' | 'tls' | 'request' | 'response'>;

interface Hop {
  startedAt: number;
  connectedAt?: number;
  securedAt?: number;
  sentAt?: number;
}

/**
 * What happened so far in one check, across its hops: phase durations, how far the current
 * hop got (to name the phase of an error), the local address and the final hop's certificate.
 */
class Trace {
  private readonly startedAt = performance.now();
  private readonly sums: Partial<Record<'dns_ms' | 'connect_ms' | 'tls_ms' | 'first_byte_ms', number>> = {};
  private hop: Hop | null = null;
  private lookupsInFlight = 0;
  private lookupFailed = false;
  private lastLookupEndedAt = Number.NEGATIVE_INFINITY;
  /** How far the current hop got. */
  progress: Progress = 'request';
  /** Whether the final response has started arriving (errors after it are the response's). */
  responded = false;
  /** Whether the current hop got a response (a failure to follow its redirect is the target's). */
  hopResponded = false;
  /** The host of the current hop. */
  host = '';
  localAddress: string | null = null;
  /** notAfter (Unix seconds) of the current hop's leaf certificate, when asked for. */
  certNotAfter: number | null = null;

  constructor(private readonly wantCertificate: boolean) {}

  /** Wraps the resolver so that its time is counted (it runs before got reports the request). */
  timedLookup(inner: LookupFunction): LookupFunction {
    return (hostname, options, callback) => {
      const began = performance.now();
      this.lookupsInFlight++;
      this.progress = 'dns';
      inner(hostname, options, (error, address, family) => {
        const now = performance.now();
        this.lookupsInFlight--;
        this.add('dns_ms', now - began);
        this.lastLookupEndedAt = now;
        if (error) this.lookupFailed = true;
        else this.progress = 'connect';
        callback(error, address, family);
      });
    };
  }

  onRequest(request: ClientRequest): void {
    const hop: Hop = { startedAt: performance.now() };
    this.hop = hop;
    this.host = request.host;
    this.certNotAfter = null;
    this.hopResponded = false;
    // A lookup may already have run (it starts before got reports the request).
    if (this.lookupsInFlight === 0 && !this.lookupFailed) this.progress = 'connect';
    request.once('socket', (socket: Socket) => {
      socket.once('connect', () => {
        hop.connectedAt = performance.now();
        this.add('connect_ms', hop.connectedAt - Math.max(hop.startedAt, this.lastLookupEndedAt));
        this.localAddress = socket.localAddress ?? this.localAddress;
        if (this.hop === hop) this.progress = socket instanceof TLSSocket ? 'tls' : 'request';
      });
      if (socket instanceof TLSSocket) {
        socket.once('secureConnect', () => {
          hop.securedAt = performance.now();
          this.add('tls_ms', hop.securedAt - (hop.connectedAt ?? hop.startedAt));
          if (this.wantCertificate && this.hop === hop) this.certNotAfter = peerNotAfter(socket);
          if (this.hop === hop) this.progress = 'request';
        });
      }
    });
    request.once('finish', () => {
      hop.sentAt = performance.now();
      if (this.hop === hop && this.progress === 'request') this.progress = 'response';
    });
    request.once('response', () => {
      const now = performance.now();
      this.add('first_byte_ms', now - Math.max(hop.sentAt ?? 0, hop.securedAt ?? 0, hop.connectedAt ?? hop.startedAt));
      if (this.hop === hop) {
        this.progress = 'response';
        this.hopResponded = true;
      }
    });
  }

  timings(): ProbeTimings {
    return { ...this.sums, total_ms: performance.now() - this.startedAt };
  }

  outcome(
    status: ProbeOutcome['status'],
    phase: FailurePhase | null,
    error: string | null,
    extra: Pick<ProbeOutcome, 'http_status' | 'cert_not_after'> = {},
  ): ProbeOutcome {
    return {
      status,
      phase,
      error: error === null ? null : error.slice(0, MAX_ERROR_LENGTH),
      timings: this.timings(),
      http_status: extra.http_status ?? null,
      cert_not_after: extra.cert_not_after ?? null,
      local_address: this.localAddress,
    };
  }

  private add(key: keyof Trace['sums'], ms: number): void {
    this.sums[key] = (this.sums[key] ?? 0) + Math.max(0, ms);
  }
}

// ---- errors → outcomes ----------------------------------------------------------------------

const CERTIFICATE_ERRORS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'unable to verify the certificate (incomplete chain?)',
  UNABLE_TO_GET_ISSUER_CERT: 'certificate issuer not found',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate issuer is not trusted',
  CERT_REVOKED: 'certificate has been revoked',
  CERT_SIGNATURE_FAILURE: 'certificate signature is invalid',
  CERT_UNTRUSTED: 'certificate is not trusted',
  CERT_REJECTED: 'certificate was rejected',
  INVALID_CA: 'invalid CA certificate in the chain',
  INVALID_PURPOSE: 'certificate is not for TLS servers',
  CERT_CHAIN_TOO_LONG: 'certificate chain too long',
  PATH_LENGTH_EXCEEDED: 'certificate chain too long',
};

const RESET_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

const RESET_MESSAGES: Readonly<Record<Exclude<Progress, 'dns'>, string>> = {
  connect: 'connection reset',
  tls: 'connection reset during the TLS handshake',
  request: 'connection closed while sending the request',
  response: 'connection closed before the response',
};

/**
 * Maps a failed request to an outcome. Known codes name their phase; any other coded error
 * is DOWN in the phase the check had reached. An uncoded error after a response (got refusing
 * a redirect, e.g. to a UNIX socket) is the target's; before any response it is ours or got's,
 * and is returned as an Error for runProbe to report as UNKNOWN/internal.
 */
function classify(error: Error, context: ProbeContext, trace: Trace): ProbeOutcome | Error {
  if (context.signal.aborted) {
    return { ...abortedOutcome(context.signal, trace.timings()), local_address: trace.localAddress };
  }
  if (error instanceof TimeoutError) {
    return trace.outcome('down', 'timeout', `timed out after ${context.timeoutMs} ms`);
  }
  if (error instanceof MaxRedirectsError) {
    return trace.outcome('down', 'response', `too many redirects (more than ${HTTPS_LIMITS.redirects})`, {
      http_status: error.response.statusCode,
    });
  }
  const code = errorCode(error);
  if (code === null) {
    return trace.hopResponded ? trace.outcome('down', 'response', `request failed: ${error.message}`) : error;
  }
  const phase = trace.progress;

  if (code === EGRESS_BLOCKED) return trace.outcome('blocked', 'connect', egressMessage(error));
  const dns = DNS_ERRORS[code];
  if (dns !== undefined) return trace.outcome('down', 'dns', dns);
  if (phase === 'dns' || code.startsWith('EAI_')) return trace.outcome('down', 'dns', `DNS lookup failed (${code})`);

  const connect = CONNECT_ERRORS[code];
  if (connect !== undefined) return trace.outcome('down', 'connect', connect);
  if (RESET_ERRORS.has(code)) {
    if (trace.responded) return trace.outcome('down', 'response', 'connection closed while reading the response');
    return trace.outcome('down', phase, RESET_MESSAGES[phase]);
  }

  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    return trace.outcome('down', 'tls', `certificate is not valid for ${trace.host}`);
  }
  const certificate = CERTIFICATE_ERRORS[code];
  if (certificate !== undefined) return trace.outcome('down', 'tls', certificate);
  if (/^(CERT_|CRL_|UNABLE_TO_|ERROR_IN_)/.test(code)) {
    return trace.outcome('down', 'tls', `certificate verification failed (${code})`);
  }
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return trace.outcome('down', 'tls', `TLS handshake failed (${code})`);
  }

  if (code.startsWith('HPE_')) return trace.outcome('down', 'response', `invalid HTTP response (${code})`);
  if (code.startsWith('Z_') || code.startsWith('ERR__') || code === 'ERR_BROTLI_DECOMPRESSION_FAILED') {
    return trace.outcome('down', 'response', 'could not decode the response body');
  }
  if (code === 'ERR_INVALID_URL' || code === 'ERR_UNSUPPORTED_PROTOCOL') {
    return trace.outcome('down', 'response', 'redirect to an invalid or unsupported URL');
  }
  if (code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN' || code === 'ERR_HTTP_INVALID_HEADER_VALUE') {
    return trace.outcome('down', 'request', 'invalid request header');
  }
  return trace.outcome('down', trace.responded ? 'response' : phase, `request failed (${code})`);
}

/**
 * Whether `value` is an Error, from whichever realm made it: Node's own errors (a socket's EPROTO)
 * fail `instanceof Error` where the prober runs in another context than Node's internals (jest's
 * VM modules, seen on Node 24).
 */
function isError(value: unknown): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

/** The most specific code of a (got-wrapped) error, or null when it has none. */
function errorCode(error: Error): string | null {
  const generic = error instanceof RequestError ? 'ERR_GOT_REQUEST_ERROR' : null;
  for (let current: unknown = error; isError(current); current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code !== generic && /^[A-Z0-9_]{2,64}$/.test(code)) return code;
  }
  return null;
}
