import { randomBytes } from 'node:crypto';
import { HEARTBEAT_REGION, type HeartbeatSettings, type ProbeResult } from '#contracts';

/**
 * The pure core of heartbeat monitors (docs/decisions/0027-heartbeat-monitors.md): tokens,
 * deadlines, and the check results a ping, a reported failure and a missed deadline become.
 */

/** 24 random bytes: 32 URL-safe characters, 192 bits nobody guesses. */
const TOKEN_BYTES = 24;

/** A new ping token: base64url of TOKEN_BYTES random bytes. */
export function newHeartbeatToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** What a token in a ping URL may look like (anything else is a 404 without a database read). */
export function isTokenShaped(value: string): boolean {
  return /^[A-Za-z0-9_-]{24,64}$/.test(value);
}

/** The ping URL of a token under `base` (PUBLIC_URL or the request's origin, no trailing slash). */
export function pingUrlOf(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/ping/${token}`;
}

/**
 * When a heartbeat monitor is late (Unix seconds): `period + grace` after the newest decided
 * result (a ping, a reported failure or a missed deadline already recorded), or after creation
 * when it has none. A missed deadline is itself a result, so while no ping arrives the monitor
 * gets one DOWN result every `period + grace`.
 */
export function deadlineOf(settings: HeartbeatSettings, lastCheckedAt: number | null, createdAt: number): number {
  return (lastCheckedAt ?? createdAt) + settings.period + settings.grace;
}

/** A duration for people: `45 s`, `5 min`, `1 h 5 min`, `2 d 3 h` (two units at most, rounded down). */
export function describeDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3_600), 'h'],
    [Math.floor((s % 3_600) / 60), 'min'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first < 0) return '0 s';
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n} ${unit}`)
    .join(' ');
}

/** What the target line of a message says for a heartbeat monitor: `heartbeat every 1 h (grace 5 min)`. */
export function describeHeartbeat(settings: HeartbeatSettings): string {
  return `heartbeat every ${describeDuration(settings.period)} (grace ${describeDuration(settings.grace)})`;
}

export type HeartbeatEvent =
  | { kind: 'ping' }
  | { kind: 'fail' }
  /** The deadline passed; `silentFor` seconds since the newest result (or creation). */
  | { kind: 'missed'; silentFor: number };

export const FAILURE_REPORTED = 'failure reported by ping (/fail)';

/**
 * The check result of a heartbeat event at `atMs` (ms since the epoch): recorded by the
 * coordinator (agent `coordinator`, region HEARTBEAT_REGION); its scheduled_at is when it
 * happened, so evaluation orders pings and deadlines by time like any other result.
 */
export function heartbeatResult(monitorId: string, event: HeartbeatEvent, atMs: number): ProbeResult {
  const failed = event.kind !== 'ping';
  return {
    check_id: `${monitorId}:${atMs}:${HEARTBEAT_REGION}`,
    monitor_id: monitorId,
    region: HEARTBEAT_REGION,
    scheduled_at: atMs,
    status: failed ? 'down' : 'up',
    phase: failed ? (event.kind === 'fail' ? 'assertion' : 'timeout') : null,
    error:
      event.kind === 'fail'
        ? FAILURE_REPORTED
        : event.kind === 'missed'
          ? `no ping for ${describeDuration(event.silentFor)}`
          : null,
    response_time_ms: null,
    timings: { total_ms: 0 },
    http_status: null,
    cert_not_after: null,
    agent_id: 'coordinator',
    checker_ip: null,
    started_at: atMs,
  };
}
