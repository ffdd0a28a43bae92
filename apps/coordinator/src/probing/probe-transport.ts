import type { ProbeRequest, ProbeResult } from '#contracts';

/**
 * How a check reaches an agent of its region and its result comes back. Never rejects: when no
 * agent answers (none serves the region, it died, the transport is down) the result is UNKNOWN
 * with the reason, which never counts towards failure (docs/decisions/0005-checks-and-status.md).
 */
export interface ProbeTransport {
  readonly kind: 'embedded' | 'nats';
  request(request: ProbeRequest): Promise<ProbeResult>;
  close(): Promise<void>;
}

export const PROBE_TRANSPORT = Symbol('PROBE_TRANSPORT');

/** Extra time an agent gets beyond the check's own timeout before the request counts as lost. */
export const REPLY_GRACE_MS = 5000;

/** Why an UNKNOWN came from the coordinator's side of the wire (metric label). */
export type TransportFailure = 'no_responders' | 'timeout' | 'transport' | 'invalid_reply';
