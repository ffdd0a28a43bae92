/**
 * Readiness, pure: what each part of the coordinator reports, folded into the answer of
 * `GET /readyz` (the coordinator's and the agent's; docs/decisions/0001-truth-when-blind.md). A part either is fine (`null`) or
 * names its problem. A `required` part with a problem makes the process not ready (503); any
 * other part with a problem only makes it `degraded` (still 200: it serves, but something is
 * held back, such as results buffered through a database outage).
 */

export interface PartReport {
  readonly name: string;
  /** Null when the part is fine; otherwise what is wrong, in a few words. */
  readonly problem: string | null;
  /** Whether a problem here means "do not send me traffic". */
  readonly required: boolean;
}

export type ReadinessStatus = 'ready' | 'degraded' | 'unavailable';

export interface ReadinessAnswer {
  readonly httpStatus: 200 | 503;
  readonly body: {
    readonly status: ReadinessStatus;
    /** The required parts with a problem, in the order reported. */
    readonly failing: string[];
    /** Every part: "ok" or its problem. */
    readonly checks: Record<string, string>;
  };
}

export function summarize(parts: readonly PartReport[]): ReadinessAnswer {
  const failing = parts.filter((p) => p.required && p.problem !== null).map((p) => p.name);
  const degraded = parts.some((p) => !p.required && p.problem !== null);
  const status: ReadinessStatus = failing.length > 0 ? 'unavailable' : degraded ? 'degraded' : 'ready';
  return {
    httpStatus: status === 'unavailable' ? 503 : 200,
    body: { status, failing, checks: Object.fromEntries(parts.map((p) => [p.name, p.problem ?? 'ok'])) },
  };
}
