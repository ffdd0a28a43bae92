import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { Field, integer, isPlainObject, oneOf, text, type Checker } from '#validation';
import { typeKeyedSettingsDto, type TypeKeyedSettingsDto } from './monitor-settings.js';
import { PROBED_TYPES, type ProbedType, type SettingsByType } from './monitor-types.js';
import { type MonitorRegionId, type ResultRegion } from './regions.js';
import { anyRegion } from './subjects.js';

/**
 * The probe wire (coordinator ⇄ agent). Both sides validate every message with these DTOs
 * (checkInput from #validation), so a malformed message is refused, never half-used.
 */

/** Where a failing check failed. */
export const FAILURE_PHASES = [
  'dns',
  'connect',
  'tls',
  'request',
  'response',
  'assertion',
  'timeout',
  'internal',
] as const;
export type FailurePhase = (typeof FAILURE_PHASES)[number];

/**
 * UP and DOWN are verdicts on the target. UNKNOWN means Picket could not tell (no agent serves the
 * region, the agent died or lacks a capability, an internal error); BLOCKED means the egress
 * policy refused the target's address (docs/decisions/0010-egress-policy.md). Neither counts
 * towards failure or recovery (docs/decisions/0005-checks-and-status.md), nor towards uptime.
 */
export const CHECK_STATUSES = ['up', 'down', 'unknown', 'blocked'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** The statuses that decide nothing about the target. */
export const UNDECIDED_STATUSES = ['unknown', 'blocked'] as const satisfies readonly CheckStatus[];

export function isDecided(status: CheckStatus): status is 'up' | 'down' {
  return status === 'up' || status === 'down';
}

/** Longest error text a result carries (never an upstream body). */
export const MAX_ERROR_LENGTH = 300;

export interface ProbeTimings {
  dns_ms?: number;
  connect_ms?: number;
  tls_ms?: number;
  first_byte_ms?: number;
  total_ms: number;
}

export interface ProbeRequest<T extends ProbedType = ProbedType> {
  /** Deterministic `<monitor_id>:<scheduled_at>:<region>`: the result's unique key. */
  check_id: string;
  monitor_id: string;
  region: MonitorRegionId;
  /** The monitor's account; set only for a private region (its subject names the account). */
  account_id?: string;
  /** When the check was due, ms since the epoch. */
  scheduled_at: number;
  type: T;
  settings: SettingsByType[T];
  timeout_ms: number;
}

export interface ProbeResult {
  check_id: string;
  monitor_id: string;
  /** The region checked from; HEARTBEAT_REGION for a result the coordinator recorded itself. */
  region: ResultRegion;
  scheduled_at: number;
  status: CheckStatus;
  /** Set when status is not up. */
  phase: FailurePhase | null;
  error: string | null;
  /** Total time of the check when it reached a verdict, else null. */
  response_time_ms: number | null;
  timings: ProbeTimings;
  http_status: number | null;
  /** The leaf certificate's notAfter (Unix seconds), when check_certificate_expiration. */
  cert_not_after: number | null;
  /** The agent that ran it (or "coordinator" when none answered). */
  agent_id: string;
  /** The address the probe left from, when known. */
  checker_ip: string | null;
  /** When the probe started, ms since the epoch. */
  started_at: number;
}

export function checkIdOf(monitorId: string, scheduledAt: number, region: ResultRegion): string {
  return `${monitorId}:${scheduledAt}:${region}`;
}

/** A result that says "could not tell", for failures on Picket's side of the wire. */
export function unknownResult(
  request: Pick<ProbeRequest, 'check_id' | 'monitor_id' | 'region' | 'scheduled_at'>,
  error: string,
  agentId: string,
  startedAt: number,
  phase: FailurePhase = 'internal',
): ProbeResult {
  return {
    check_id: request.check_id,
    monitor_id: request.monitor_id,
    region: request.region,
    scheduled_at: request.scheduled_at,
    status: 'unknown',
    phase,
    error: error.slice(0, MAX_ERROR_LENGTH),
    response_time_ms: null,
    timings: { total_ms: 0 },
    http_status: null,
    cert_not_after: null,
    agent_id: agentId,
    checker_ip: null,
    started_at: startedAt,
  };
}

// ---- validation of messages ----------------------------------------------------------------

const MAX_MS = 8.64e15;
const epochMs = integer(0, MAX_MS);
const optionalMs: Checker = (value) => (value === undefined ? null : integer(0, 86_400_000)(value));
const objectId: Checker = (value) =>
  typeof value === 'string' && /^[0-9a-f]{24}$/.test(value) ? null : 'must be an object id';
const checkId: Checker = (value) =>
  typeof value === 'string' && /^[0-9a-f]{24}:\d{1,16}:[a-z0-9-]{1,32}$/.test(value) ? null : 'must be a check id';

export class ProbeTimingsDto implements ProbeTimings {
  @Field(optionalMs, { optional: true }) dns_ms?: number;
  @Field(optionalMs, { optional: true }) connect_ms?: number;
  @Field(optionalMs, { optional: true }) tls_ms?: number;
  @Field(optionalMs, { optional: true }) first_byte_ms?: number;
  @Field(integer(0, 86_400_000)) total_ms!: number;
}

/** `settings` of a probe request: the stored settings of `type`, validated by that type's DTO. */
export const ProbeSettingsDto = typeKeyedSettingsDto('ProbeSettingsDto', PROBED_TYPES);
export type ProbeSettingsDto = TypeKeyedSettingsDto<ProbedType>;

/**
 * The probe request as it travels: settings wrapped in their type key, so the receiving side
 * validates them with the right DTO (see toWireRequest / fromWireRequest).
 */
export class WireProbeRequestDto {
  @Field(checkId) check_id!: string;
  @Field(objectId) monitor_id!: string;
  @Field(anyRegion) region!: MonitorRegionId;
  @Field(objectId, { optional: true }) account_id?: string;
  @Field(epochMs) scheduled_at!: number;
  @Field(oneOf(PROBED_TYPES)) type!: ProbedType;
  @Field((v) => (isPlainObject(v) && Object.keys(v).length === 1 ? null : 'must have exactly one type key'))
  @ValidateNested()
  @Type(() => ProbeSettingsDto)
  settings!: ProbeSettingsDto;
  @Field(integer(1, 120_000)) timeout_ms!: number;
}

export class ProbeResultDto {
  @Field(checkId) check_id!: string;
  @Field(objectId) monitor_id!: string;
  @Field(anyRegion) region!: MonitorRegionId;
  @Field(epochMs) scheduled_at!: number;
  @Field(oneOf(CHECK_STATUSES)) status!: CheckStatus;
  @Field(oneOf(FAILURE_PHASES), { nullable: true }) phase!: FailurePhase | null;
  @Field(text({ max: MAX_ERROR_LENGTH, multiline: true }), { nullable: true }) error!: string | null;
  @Field(integer(0, 86_400_000), { nullable: true }) response_time_ms!: number | null;
  @Field(isPlainObjectChecker)
  @ValidateNested()
  @Type(() => ProbeTimingsDto)
  timings!: ProbeTimingsDto;
  @Field(integer(100, 999), { nullable: true }) http_status!: number | null;
  @Field(integer(0, 253_402_300_799), { nullable: true }) cert_not_after!: number | null;
  @Field(text({ max: 64, min: 1 })) agent_id!: string;
  @Field(text({ max: 64 }), { nullable: true }) checker_ip!: string | null;
  @Field(epochMs) started_at!: number;
}

function isPlainObjectChecker(value: unknown): string | null {
  return isPlainObject(value) ? null : 'must be an object';
}

/** The wire form of a request: `settings: { <type>: settings }`. */
export function toWireRequest(request: ProbeRequest): Record<string, unknown> {
  return { ...request, settings: { [request.type]: request.settings } };
}

/** Back from the validated wire form; null when the type key does not match `type`. */
export function fromWireRequest(dto: WireProbeRequestDto): ProbeRequest | null {
  const settings = dto.settings[dto.type];
  if (!settings) return null;
  return {
    check_id: dto.check_id,
    monitor_id: dto.monitor_id,
    region: dto.region,
    ...(dto.account_id === undefined ? {} : { account_id: dto.account_id }),
    scheduled_at: dto.scheduled_at,
    type: dto.type,
    settings: { ...settings },
    timeout_ms: dto.timeout_ms,
  };
}
