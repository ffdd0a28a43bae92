import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import {
  isPrivateRegionId,
  isRegionId,
  MONITOR_TYPES,
  PRIVATE_REGION_ID_PATTERN,
  REGION_IDS,
  type MonitorRegionId,
  type MonitorType,
} from '#contracts';
import {
  arrayOf,
  boolean,
  booleanString,
  type Checker,
  described,
  displayName,
  Field,
  IgnoreFields,
  integer,
  objectIdString,
  oneOf,
} from '#validation';
import { PageQuery } from '../common/pagination.js';
import { RegionsForType } from './monitor-regions.js';
import { exactlyOneType, MonitorSettingsDto } from './monitor-settings.js';
import { notificationRules, type NotificationRules } from './notification-rules.js';

/** Bounds and defaults of the spec's Monitor table. */
export const MONITOR_LIMITS = {
  name: 100,
  checkInterval: { min: 10, max: 600, default: 300 },
  timeout: { min: 5, max: 60, default: 30 },
  failThreshold: { min: 1, max: 10, default: 2 },
  contacts: 100,
} as const;

/**
 * A public region, or an id of the form of a private one: whether the account has that private
 * region is judged by the service (docs/decisions/0030-private-regions.md).
 */
const region: Checker = described(
  (value) =>
    isRegionId(value) || isPrivateRegionId(value)
      ? null
      : `is not a known region (${REGION_IDS.join(', ')}, or one of the account's private regions)`,
  { anyOf: [{ enum: [...REGION_IDS] }, { type: 'string', pattern: PRIVATE_REGION_ID_PATTERN.source }] },
);
/** Most regions a monitor may list: every public one and a few private ones. */
const MAX_MONITOR_REGIONS = 32;
// At least one for a probed type, none for a heartbeat: judged with the type (monitors.service.ts).
const regionList = arrayOf(region, { max: MAX_MONITOR_REGIONS, unique: true });
const contactList = arrayOf(objectIdString, { max: MONITOR_LIMITS.contacts, unique: true });
const checkInterval = integer(MONITOR_LIMITS.checkInterval.min, MONITOR_LIMITS.checkInterval.max);
const timeout = integer(MONITOR_LIMITS.timeout.min, MONITOR_LIMITS.timeout.max);
const failThreshold = integer(MONITOR_LIMITS.failThreshold.min, MONITOR_LIMITS.failThreshold.max);

/** Read-only fields a client may send back unchanged; they are ignored (docs/decisions/0002-wire-conventions.md). */
const READ_ONLY = ['id', 'created_at', 'updated_at', 'last_status', 'last_status_change', 'last_checked_at'];

@IgnoreFields(...READ_ONLY)
export class CreateMonitorDto {
  @Field(displayName(MONITOR_LIMITS.name)) name!: string;

  @Field(exactlyOneType)
  @ValidateNested()
  @Type(() => MonitorSettingsDto)
  settings!: MonitorSettingsDto;

  @Field(boolean, { optional: true }) active?: boolean;
  @Field(checkInterval, { optional: true }) check_interval?: number;
  @Field(timeout, { optional: true }) timeout?: number;
  @Field(failThreshold, { optional: true }) fail_threshold?: number;
  @Field(regionList, { optional: true }) @RegionsForType() regions?: MonitorRegionId[];
  @Field(contactList, { optional: true }) contacts?: string[];
  /** Replaces the monitor's rules as a whole; a key left out takes its default. */
  @Field(notificationRules, { optional: true }) notification_rules?: Partial<NotificationRules>;
}

/** PUT: the same fields, all optional; only supplied fields change. */
@IgnoreFields(...READ_ONLY)
export class UpdateMonitorDto {
  @Field(displayName(MONITOR_LIMITS.name), { optional: true }) name?: string;

  @Field(exactlyOneType, { optional: true })
  @ValidateNested()
  @Type(() => MonitorSettingsDto)
  settings?: MonitorSettingsDto;

  @Field(boolean, { optional: true }) active?: boolean;
  @Field(checkInterval, { optional: true }) check_interval?: number;
  @Field(timeout, { optional: true }) timeout?: number;
  @Field(failThreshold, { optional: true }) fail_threshold?: number;
  @Field(regionList, { optional: true }) regions?: MonitorRegionId[];
  @Field(contactList, { optional: true }) contacts?: string[];
  /** Replaces the monitor's rules as a whole; a key left out takes its default. */
  @Field(notificationRules, { optional: true }) notification_rules?: Partial<NotificationRules>;
}

export const MONITOR_SORTS = ['name', 'created_at', 'updated_at'] as const;
export type MonitorSort = (typeof MONITOR_SORTS)[number];

export class ListMonitorsQuery extends PageQuery {
  @Field(oneOf(MONITOR_SORTS), { optional: true }) sort?: MonitorSort;
  @Field(booleanString, { optional: true }) active?: 'true' | 'false';
  @Field(oneOf(MONITOR_TYPES), { optional: true }) monitor_type?: MonitorType;
}
