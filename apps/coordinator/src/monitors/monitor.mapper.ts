import type { MonitorType, RegionId } from '#contracts';
import type { LastStatus } from './monitor.entity.js';
import type { MonitorRecord } from './monitors.repository.js';
import type { SettingsByType } from '#contracts';

/** The Monitor of the API spec, field for field. */
export interface MonitorJson {
  id: string;
  name: string;
  active: boolean;
  check_interval: number;
  timeout: number;
  fail_threshold: number;
  regions: RegionId[];
  settings: Partial<SettingsByType>;
  contacts: string[];
  last_status: LastStatus;
  last_status_change: number;
  created_at: number;
  updated_at: number;
}

export function toMonitorJson({ monitor, contactIds }: MonitorRecord): MonitorJson {
  return {
    id: monitor.id,
    name: monitor.name,
    active: monitor.active,
    check_interval: monitor.checkInterval,
    timeout: monitor.timeout,
    fail_threshold: monitor.failThreshold,
    regions: monitor.regions,
    settings: { [monitor.monitorType satisfies MonitorType]: monitor.settings },
    contacts: contactIds,
    last_status: monitor.lastStatus,
    last_status_change: monitor.lastStatusChange,
    created_at: monitor.createdAt,
    updated_at: monitor.updatedAt,
  };
}

/** What pause and resume return (the spec: id, name, active, updated_at). */
export function toMonitorActivityJson(monitor: { id: string; name: string; active: boolean; updatedAt: number }) {
  return { id: monitor.id, name: monitor.name, active: monitor.active, updated_at: monitor.updatedAt };
}
