import type { MonitorTypeDefinition } from './monitor-types/definition.js';
import { dnsType } from './monitor-types/dns.js';
import { httpsType } from './monitor-types/https.js';
import { pingType } from './monitor-types/ping.js';
import { tcpType } from './monitor-types/tcp.js';

export * from './monitor-types/definition.js';
export * from './monitor-types/dns.js';
export * from './monitor-types/https.js';
export * from './monitor-types/ping.js';
export * from './monitor-types/tcp.js';

/**
 * The monitor types: one file each under monitor-types/ (settings, DTO, target syntax), one line
 * each here. A monitor's type is the single key of its `settings` object. Everything per type is
 * derived from this table (MonitorType, SettingsByType, the `settings` DTOs of the API and the
 * probe wire, the egress check on save), and libs/probes' ProberTable is a mapped type over
 * MonitorType: a type listed here without a prober does not compile.
 */
const DEFINITIONS = {
  https: httpsType,
  tcp: tcpType,
  ping: pingType,
  dns: dnsType,
};

export type MonitorType = keyof typeof DEFINITIONS;

type Definition<K extends MonitorType> = (typeof DEFINITIONS)[K];

/** Stored settings per monitor type: the inner object of the API's `settings.<type>`. */
export type SettingsByType = { [K in MonitorType]: ReturnType<Definition<K>['toSettings']> };
/** The DTO of `settings.<type>` per monitor type. */
export type SettingsDtoByType = { [K in MonitorType]: InstanceType<Definition<K>['dto']> };
/** What each type's target parser reads a target URL into. */
type TargetByType = { [K in MonitorType]: Parameters<Definition<K>['literalAddress']>[0] };

export type MonitorSettings = SettingsByType[MonitorType];

/** The table, typed per key so that `MONITOR_TYPE_TABLE[type]` keeps its type's settings, DTO and target. */
export const MONITOR_TYPE_TABLE: {
  readonly [K in MonitorType]: MonitorTypeDefinition<SettingsByType[K], SettingsDtoByType[K], TargetByType[K]>;
} = DEFINITIONS;

/** The types in table order (the order of every message and document that lists them). */
export const MONITOR_TYPES = Object.keys(MONITOR_TYPE_TABLE) as readonly MonitorType[];

export function isMonitorType(value: unknown): value is MonitorType {
  return typeof value === 'string' && Object.hasOwn(MONITOR_TYPE_TABLE, value);
}

/**
 * The IP address a target URL names literally (`https://10.0.0.1/`, `tcp://[::1]:22`,
 * `ping://169.254.169.254`), or null for a host name or a URL no type reads. The egress policy
 * judges literals when a monitor or contact is saved; names only at connect time.
 */
export function literalAddressOf(url: string): string | null {
  for (const type of MONITOR_TYPES) {
    const address = literalAddressAs(type, url);
    if (address !== undefined) return address;
  }
  return null;
}

/** The literal address of `url` read as a target of `type`; undefined when it is not one. */
function literalAddressAs<K extends MonitorType>(type: K, url: string): string | null | undefined {
  const definition = MONITOR_TYPE_TABLE[type];
  const target = definition.parseTarget(url);
  return target.ok ? definition.literalAddress(target.value) : undefined;
}
