import type { CheckStatus, ProbeResult, RegionId } from '#contracts';

let sequence = 0;

/**
 * A probe result as the probing pipeline hands it to the ResultsWriter. `scheduledAt`
 * (ms, part of the check id) defaults to a fresh value, so every call is a new check.
 */
export function probeResult(
  monitorId: string,
  region: RegionId,
  status: CheckStatus,
  responseTimeMs: number | null,
  scheduledAt = 1_700_000_000_000 + ++sequence,
): ProbeResult {
  return {
    check_id: `${monitorId}:${scheduledAt}:${region}`,
    monitor_id: monitorId,
    region,
    scheduled_at: scheduledAt,
    status,
    phase: status === 'up' ? null : status === 'down' ? 'response' : 'internal',
    error: status === 'up' ? null : status === 'down' ? 'HTTP 503' : 'no agent serves the region',
    response_time_ms: responseTimeMs,
    timings: { dns_ms: 1, connect_ms: 2, tls_ms: 3, first_byte_ms: 4, total_ms: responseTimeMs ?? 0 },
    http_status: status === 'down' ? 503 : status === 'up' ? 200 : null,
    cert_not_after: null,
    agent_id: 'agent-1',
    checker_ip: '192.0.2.10',
    started_at: scheduledAt,
  };
}

/**
 * A number within `relative` of `value`: roll-up p95s come from response-time histograms,
 * exact below 100 ms and within 1 % above (apps/coordinator/src/history/histogram.ts).
 */
export function approximately(value: number, relative = 0.01) {
  return {
    asymmetricMatch: (actual: unknown) => typeof actual === 'number' && Math.abs(actual - value) <= value * relative,
    toString: () => `approximately ${value} (±${relative * 100} %)`,
    toAsymmetricMatcher: () => `approximately(${value})`,
  };
}
