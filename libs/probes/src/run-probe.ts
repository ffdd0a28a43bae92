import {
  isDecided,
  MAX_ERROR_LENGTH,
  type ProbedType,
  type ProbeRequest,
  type ProbeResult,
  type SettingsByType,
} from '#contracts';
import type { Clock } from '#runtime';
import { SharedDeadlines } from './deadlines.js';
import type { ProberTable, ProbeOutcome } from './prober.js';

export interface RunOptions {
  agentId: string;
  clock: Clock;
  /** Aborted when the agent stops; the result is then UNKNOWN. */
  signal?: AbortSignal;
  /** Called when a prober throws: that is a bug, worth a log line. */
  onBug?: (error: unknown, request: ProbeRequest) => void;
  /**
   * Where the check's deadline comes from: shared with the checks started in the same tick with
   * the same timeout (the executor passes its own). Default: a deadline of the check's own.
   */
  deadlines?: SharedDeadlines;
}

/**
 * Runs one check: owns its deadline, never throws, and always answers a ProbeResult for the
 * request (a prober's throw becomes UNKNOWN with phase internal).
 */
export async function runProbe(table: ProberTable, request: ProbeRequest, options: RunOptions): Promise<ProbeResult> {
  const startedAt = options.clock.now();
  const deadline = (options.deadlines ?? new SharedDeadlines()).take(request.timeout_ms, options.signal);
  const { signal } = deadline;
  let outcome: ProbeOutcome;
  try {
    const prober = table[request.type] as (
      s: SettingsByType[ProbedType],
      c: { signal: AbortSignal; timeoutMs: number },
    ) => Promise<ProbeOutcome>;
    outcome = await prober(request.settings, { signal, timeoutMs: request.timeout_ms });
  } catch (error) {
    options.onBug?.(error, request);
    outcome = {
      status: 'unknown',
      phase: 'internal',
      error: `internal error: ${error instanceof Error ? error.message : String(error)}`,
      timings: { total_ms: Math.max(0, options.clock.now() - startedAt) },
    };
  } finally {
    deadline.release();
  }
  return {
    check_id: request.check_id,
    monitor_id: request.monitor_id,
    region: request.region,
    scheduled_at: request.scheduled_at,
    status: outcome.status,
    phase: outcome.status === 'up' ? null : outcome.phase,
    error: outcome.error === null ? null : outcome.error.slice(0, MAX_ERROR_LENGTH),
    // Only a verdict on the target has a response time (not UNKNOWN, not BLOCKED).
    response_time_ms: isDecided(outcome.status) ? Math.round(outcome.timings.total_ms) : null,
    timings: roundTimings(outcome.timings),
    http_status: outcome.http_status ?? null,
    cert_not_after: outcome.cert_not_after ?? null,
    agent_id: options.agentId,
    checker_ip: outcome.local_address ?? null,
    started_at: startedAt,
  };
}

function roundTimings(timings: ProbeOutcome['timings']): ProbeOutcome['timings'] {
  const out: ProbeOutcome['timings'] = { total_ms: Math.max(0, Math.round(timings.total_ms)) };
  for (const key of ['dns_ms', 'connect_ms', 'tls_ms', 'first_byte_ms'] as const) {
    const value = timings[key];
    if (value !== undefined && Number.isFinite(value)) out[key] = Math.max(0, Math.round(value));
  }
  return out;
}
