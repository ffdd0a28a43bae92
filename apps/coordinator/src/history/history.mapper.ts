import type { CheckStatus, FailurePhase, ResultRegion } from '#contracts';
import type { CheckResultEntity } from './check-result.entity.js';

/** Phase timings of a check; a phase the check did not go through (no TLS over TCP, …) is null. */
export interface CheckTimingsJson {
  dns_ms: number | null;
  connect_ms: number | null;
  tls_ms: number | null;
  first_byte_ms: number | null;
  total_ms: number;
}

/** One check result as the API returns it (never an upstream body). */
export interface CheckJson {
  id: string;
  region: ResultRegion;
  status: CheckStatus;
  response_time_ms: number | null;
  timings: CheckTimingsJson;
  http_status: number | null;
  error: string | null;
  phase: FailurePhase | null;
  checked_at: number;
  checker_ip: string | null;
  /** Taken while a maintenance window covered the monitor (docs/decisions/0026-maintenance-windows.md). */
  in_maintenance: boolean;
}

export function toCheckJson(row: CheckResultEntity): CheckJson {
  const timings = row.timings;
  return {
    id: row.id,
    region: row.region,
    status: row.status,
    response_time_ms: row.responseTimeMs,
    timings: {
      dns_ms: timings.dns_ms ?? null,
      connect_ms: timings.connect_ms ?? null,
      tls_ms: timings.tls_ms ?? null,
      first_byte_ms: timings.first_byte_ms ?? null,
      total_ms: timings.total_ms,
    },
    http_status: row.httpStatus,
    error: row.error,
    phase: row.phase,
    checked_at: row.checkedAt,
    checker_ip: row.checkerIp,
    in_maintenance: row.inMaintenance,
  };
}
