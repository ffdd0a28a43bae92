import type { MonitorTypeDefinition, SettingsTypeDefinition } from './monitor-types/definition.js';
import { dnsType } from './monitor-types/dns.js';
import { heartbeatType } from './monitor-types/heartbeat.js';
import { httpsType } from './monitor-types/https.js';
import { pingType } from './monitor-types/ping.js';
import { tcpType } from './monitor-types/tcp.js';

export * from './monitor-types/definition.js';
export * from './monitor-types/dns.js';
export * from './monitor-types/heartbeat.js';
export * from './monitor-types/https.js';
export * from './monitor-types/ping.js';
export * from './monitor-types/tcp.js';

/**
 * The monitor types: one file each under monitor-types/ (settings, DTO, target syntax), one line
 * each here. A monitor's type is the single key of its `settings` object. Everything per type is
 * derived from these tables (MonitorType, SettingsByType, the `settings` DTOs of the API and the
 * probe wire, the egress check on save).
 *
 * PROBED types are checked by agents from regions: each has a target URL, and libs/probes'
 * ProberTable is a mapped type over ProbedType (a probed type without a prober does not compile).
 * PASSIVE types are never probed: the coordinator decides their status itself from what arrives
 * (heartbeat pings, docs/decisions/0027-heartbeat-monitors.md); the probe wire does not carry them.
 */
const PROBED = {
  https: httpsType,
  tcp: tcpType,
  ping: pingType,
  dns: dnsType,
};

const PASSIVE = {
  heartbeat: heartbeatType,
};

/** A type agents probe from regions. */
export type ProbedType = keyof typeof PROBED;
/** A type the coordinator watches without agents. */
export type PassiveType = keyof typeof PASSIVE;
export type MonitorType = ProbedType | PassiveType;

const DEFINITIONS = { ...PROBED, ...PASSIVE };

type Definition<K extends MonitorType> = (typeof DEFINITIONS)[K];

/** Stored settings per monitor type: the inner object of the API's `settings.<type>`. */
export type SettingsByType = { [K in MonitorType]: ReturnType<Definition<K>['toSettings']> };
/** The DTO of `settings.<type>` per monitor type. */
export type SettingsDtoByType = { [K in MonitorType]: InstanceType<Definition<K>['dto']> };
/** What each probed type's target parser reads a target URL into. */
type TargetByType = { [K in ProbedType]: Parameters<(typeof PROBED)[K]['literalAddress']>[0] };

export type MonitorSettings = SettingsByType[MonitorType];
/** Stored settings of a probed type (all have a target `url`). */
export type ProbedSettings = SettingsByType[ProbedType];

/** Every type's settings, typed per key so that `MONITOR_TYPE_TABLE[type]` keeps its type's settings and DTO. */
export const MONITOR_TYPE_TABLE: {
  readonly [K in MonitorType]: SettingsTypeDefinition<SettingsByType[K], SettingsDtoByType[K]>;
} = DEFINITIONS;

/** The probed types' full definitions (target parser and literal address too). */
export const PROBED_TYPE_TABLE: {
  readonly [K in ProbedType]: MonitorTypeDefinition<SettingsByType[K], SettingsDtoByType[K], TargetByType[K]>;
} = PROBED;

/** The types in table order (the order of every message and document that lists them). */
export const MONITOR_TYPES = Object.keys(MONITOR_TYPE_TABLE) as readonly MonitorType[];

/** The probed types in table order (the probe wire's `type`). */
export const PROBED_TYPES = Object.keys(PROBED_TYPE_TABLE) as readonly ProbedType[];

export function isMonitorType(value: unknown): value is MonitorType {
  return typeof value === 'string' && Object.hasOwn(MONITOR_TYPE_TABLE, value);
}

/** Whether agents probe monitors of `type` (false for passive types such as heartbeat). */
export function isProbedType(type: MonitorType): type is ProbedType {
  return Object.hasOwn(PROBED_TYPE_TABLE, type);
}

/**
 * The IP address a target URL names literally (`https://10.0.0.1/`, `tcp://[::1]:22`,
 * `ping://169.254.169.254`), or null for a host name or a URL no type reads. The egress policy
 * judges literals when a monitor or contact is saved; names only at connect time.
 */
export function literalAddressOf(url: string): string | null {
  for (const type of PROBED_TYPES) {
    const address = literalAddressAs(type, url);
    if (address !== undefined) return address;
  }
  return null;
}

/** The literal address of `url` read as a target of `type`; undefined when it is not one. */
function literalAddressAs<K extends ProbedType>(type: K, url: string): string | null | undefined {
  const definition = PROBED_TYPE_TABLE[type];
  const target = definition.parseTarget(url);
  return target.ok ? definition.literalAddress(target.value) : undefined;
}
