import {
  assertEgressLiteral,
  EGRESS_BLOCKED,
  egressMessage,
  guardedLookup,
  PICKET_VERSION,
  type Egress,
} from '#runtime';
import got, { type Agents } from 'got';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { LookupFunction } from 'node:net';

/** Per-attempt time limit for every notification (connect + TLS + response). */
export const NOTIFY_TIMEOUT_MS = 15_000;

/**
 * Who is calling, on every notification request (HTTP channels as `User-Agent`, email as
 * `X-Mailer`): receivers and vendors see Picket and its version, never the HTTP library's own.
 */
export const NOTIFY_USER_AGENT = `Picket/${PICKET_VERSION}`;

/** How much of a provider's answer is read (error codes live in small bodies). */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface HttpRequest {
  method: 'POST' | 'PUT' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The first 64 KiB of the answer, for classification only: never shown to users. */
  body: string;
}

/** A request that got no HTTP answer: network error, TLS failure, timeout or abort. */
export class NetworkError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

export interface HttpSenderOptions {
  /** Extra trusted CA certificates (PEM): private PKI, tests. Added to Node's bundled roots. */
  ca?: string[];
  /** Name resolution for every connection (the egress guard wraps it). */
  lookup?: LookupFunction;
  /** EGRESS_POLICY: judges every connection's address (names at lookup, IP literals before the request). */
  egress?: Egress;
  timeoutMs?: number;
}

/**
 * The one HTTP client of the notifiers: no redirects followed (3xx is an answer), no retries
 * (only the dispatcher retries), 15 s per attempt, TLS always verified, fresh connections,
 * `User-Agent: Picket/<version>` on every request.
 */
export class HttpSender {
  private readonly ca: string[] | undefined;

  private readonly lookup: LookupFunction;
  private readonly egress: Egress;

  constructor(private readonly options: HttpSenderOptions = {}) {
    this.ca = options.ca?.length ? [...rootCertificates, ...options.ca] : undefined;
    this.egress = options.egress ?? 'private-allowed';
    this.lookup = guardedLookup(this.egress, options.lookup);
  }

  async send(request: HttpRequest, signal: AbortSignal): Promise<HttpResponse> {
    const http = new HttpAgent({ keepAlive: false, lookup: this.lookup });
    const https = new HttpsAgent({
      keepAlive: false,
      lookup: this.lookup,
      ca: this.ca,
      rejectUnauthorized: true,
    });
    const agents: Agents = { http, https };
    try {
      const response = await got(request.url, {
        method: request.method,
        // Last, so a notifier cannot send another (header names are case-insensitive: drop any spelling).
        headers: { ...withoutUserAgent(request.headers), 'user-agent': NOTIFY_USER_AGENT },
        body: request.body,
        agent: agents,
        followRedirect: false,
        throwHttpErrors: false,
        retry: { limit: 0 },
        timeout: { request: this.options.timeoutMs ?? NOTIFY_TIMEOUT_MS },
        signal,
        decompress: true,
        responseType: 'buffer',
        hooks: {
          beforeRequest: [
            (options) => {
              if (options.url instanceof URL) assertEgressLiteral(options.url.hostname, this.egress);
            },
          ],
        },
      });
      const body = response.rawBody.subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
      return { status: response.statusCode, headers: response.headers, body };
    } catch (error) {
      const e = error as { code?: unknown; name?: string; message?: string };
      const code = typeof e.code === 'string' ? e.code : e.name === 'AbortError' ? 'ABORTED' : 'ERROR';
      throw new NetworkError(code, code === EGRESS_BLOCKED ? egressMessage(error) : networkMessage(code));
    } finally {
      http.destroy();
      https.destroy();
    }
  }
}

function withoutUserAgent(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'user-agent'));
}

function networkMessage(code: string): string {
  switch (code) {
    case 'ETIMEDOUT':
      return 'no answer in time';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
      return 'host name not found';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ABORTED':
    case 'ERR_ABORTED':
      return 'attempt cancelled';
    default:
      return /^(CERT_|ERR_TLS|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code)
        ? `TLS verification failed (${code})`
        : `network error (${code})`;
  }
}
