import type { CheckStatus, FailurePhase, ProbedType, ProbeTimings, SettingsByType } from '#contracts';

/** What a prober found: a verdict on the target, or UNKNOWN when it could not tell. */
export interface ProbeOutcome {
  status: CheckStatus;
  /** Set when status is not up. */
  phase: FailurePhase | null;
  /** Short, human-readable; never an upstream body. */
  error: string | null;
  timings: ProbeTimings;
  http_status?: number | null;
  /** Leaf certificate notAfter in Unix seconds (https with check_certificate_expiration). */
  cert_not_after?: number | null;
  /** The local address the probe left from, when known. */
  local_address?: string | null;
}

export interface ProbeContext {
  /**
   * Aborted when the check's deadline passes (reason: a `ProbeDeadline`) or when the agent
   * stops (any other reason). A prober stops at once and reports what it saw.
   */
  signal: AbortSignal;
  /** The monitor's timeout, for probers that hand a timeout to a library. */
  timeoutMs: number;
}

/**
 * One signature for every monitor type. A prober never throws for a failing target: a
 * failing target is an outcome. A throw is a bug in Picket and becomes UNKNOWN/internal.
 */
export type Prober<T extends ProbedType> = (
  settings: SettingsByType[T],
  context: ProbeContext,
) => Promise<ProbeOutcome>;

/**
 * The compiler-checked table: a new probed monitor type does not build until it has a prober
 * (passive types such as heartbeat are never probed: docs/decisions/0027-heartbeat-monitors.md).
 */
export type ProberTable = { readonly [K in ProbedType]: Prober<K> };

/** The abort reason when a check's own deadline passes (as opposed to shutdown). */
export class ProbeDeadline extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'ProbeDeadline';
  }
}

export function isDeadline(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof ProbeDeadline;
}

/** The outcome for an aborted probe: DOWN/timeout at the deadline, UNKNOWN when Picket stopped it. */
export function abortedOutcome(
  signal: AbortSignal,
  timings: ProbeTimings,
  phase: FailurePhase = 'timeout',
): ProbeOutcome {
  if (isDeadline(signal)) {
    return { status: 'down', phase: 'timeout', error: (signal.reason as ProbeDeadline).message, timings };
  }
  return {
    status: 'unknown',
    phase: phase === 'timeout' ? 'internal' : phase,
    error: 'probe cancelled by the agent',
    timings,
  };
}

/** The outcome for a target whose address the egress policy refused: BLOCKED, never DOWN. */
export function blockedOutcome(error: string, timings: ProbeTimings): ProbeOutcome {
  return { status: 'blocked', phase: 'connect', error, timings };
}
