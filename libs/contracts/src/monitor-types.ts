/** A monitor's type is the single key of its `settings` object. */
export const MONITOR_TYPES = ['https', 'tcp', 'ping'] as const;

export type MonitorType = (typeof MONITOR_TYPES)[number];

export function isMonitorType(value: unknown): value is MonitorType {
  return typeof value === 'string' && (MONITOR_TYPES as readonly string[]).includes(value);
}
