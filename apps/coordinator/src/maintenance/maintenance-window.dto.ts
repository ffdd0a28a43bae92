import {
  arrayOf,
  boolean,
  type Checker,
  described,
  displayName,
  Field,
  IgnoreFields,
  integer,
  objectIdString,
} from '#validation';
import { PageQuery } from '../common/pagination.js';
import { rruleProblem, timeZoneProblem } from './recurrence.js';

export const MAINTENANCE_LIMITS = {
  name: 100,
  /** Monitors a window may name; [] means every monitor of the account. */
  monitors: 1000,
  minDuration: 60,
  maxDuration: 604_800,
  /** 9999-12-31T23:59:59Z. */
  maxInstant: 253_402_300_799,
  defaultTimezone: 'UTC',
} as const;
export const DEFAULT_MAINTENANCE_WINDOWS_PER_PAGE = 20;

const instant = integer(0, MAINTENANCE_LIMITS.maxInstant);
const monitorList = arrayOf(objectIdString, { max: MAINTENANCE_LIMITS.monitors, unique: true });
const duration = integer(MAINTENANCE_LIMITS.minDuration, MAINTENANCE_LIMITS.maxDuration);
const rrule: Checker = described(rruleProblem, {
  type: 'string',
  maxLength: 500,
  description: 'An RFC 5545 RRULE value without the `RRULE:` prefix, e.g. `FREQ=WEEKLY;BYDAY=SU`.',
});
const timezone: Checker = described(timeZoneProblem, { type: 'string', maxLength: 64 });

/** Read-only fields a client may send back unchanged; they are ignored (docs/decisions/0002-wire-conventions.md). */
const READ_ONLY = ['id', 'created_at', 'updated_at', 'state', 'next_start_at'];

/**
 * A new window: one-off (`starts_at`, `ends_at`) or recurring (`rrule`, `starts_at` its first
 * occurrence, `duration`, `timezone`). Which fields go together is judged by the service.
 */
@IgnoreFields(...READ_ONLY)
export class CreateMaintenanceWindowDto {
  @Field(displayName(MAINTENANCE_LIMITS.name)) name!: string;
  @Field(monitorList) monitors!: string[];
  @Field(instant) starts_at!: number;
  @Field(instant, { optional: true, nullable: true }) ends_at?: number | null;
  @Field(rrule, { optional: true, nullable: true }) rrule?: string | null;
  @Field(duration, { optional: true, nullable: true }) duration?: number | null;
  @Field(timezone, { optional: true }) timezone?: string;
  @Field(boolean, { optional: true }) active?: boolean;
}

/** PUT: any subset; only supplied fields change, then the whole window is judged again. */
@IgnoreFields(...READ_ONLY)
export class UpdateMaintenanceWindowDto {
  @Field(displayName(MAINTENANCE_LIMITS.name), { optional: true }) name?: string;
  @Field(monitorList, { optional: true }) monitors?: string[];
  @Field(instant, { optional: true }) starts_at?: number;
  @Field(instant, { optional: true, nullable: true }) ends_at?: number | null;
  @Field(rrule, { optional: true, nullable: true }) rrule?: string | null;
  @Field(duration, { optional: true, nullable: true }) duration?: number | null;
  @Field(timezone, { optional: true }) timezone?: string;
  @Field(boolean, { optional: true }) active?: boolean;
}

export class ListMaintenanceWindowsQuery extends PageQuery {}
