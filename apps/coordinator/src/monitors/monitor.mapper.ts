import type { HeartbeatSettings, MonitorType, MonitorRegionId } from '#contracts';
import type { SettingsByType } from '#contracts';
import { pingUrlOf } from '../heartbeats/heartbeat.js';
import type { MonitorEntity } from './monitor.entity.js';
import { rulesWithDefaults, type NotificationRules } from './notification-rules.js';
import { effectiveStatus, type EffectiveStatus } from './monitor-status.js';
import type { ListedMonitorRow, MonitorRecord } from './monitors.repository.js';

/** The Monitor of the API spec, field for field. */
export interface MonitorJson {
  id: string;
  name: string;
  active: boolean;
  check_interval: number;
  timeout: number;
  fail_threshold: number;
  regions: MonitorRegionId[];
  settings: Partial<Omit<SettingsByType, 'heartbeat'>> & { heartbeat?: HeartbeatSettings & { ping_url: string } };
  contacts: string[];
  /** Always present, with the defaults filled in. */
  notification_rules: NotificationRules;
  /** The stored status, or `unknown` over it when Picket has not seen the monitor for 3 intervals. */
  last_status: EffectiveStatus;
  last_status_change: number;
  /** Unix seconds of the newest UP or DOWN result; null before the first. */
  last_checked_at: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * A monitor as the API answers it, at `nowSeconds`: `last_status` is the effective status
 * (monitor-status.ts), computed here on every read because staleness depends on the time of
 * the answer, not on anything stored (docs/decisions/0001-truth-when-blind.md). A heartbeat's
 * settings gain the read-only `ping_url` under `pingBase` (docs/decisions/0027-heartbeat-monitors.md).
 */
export function toMonitorJson(
  { monitor, contactIds }: MonitorRecord,
  nowSeconds: number,
  pingBase: string,
): MonitorJson {
  return {
    id: monitor.id,
    name: monitor.name,
    active: monitor.active,
    check_interval: monitor.checkInterval,
    timeout: monitor.timeout,
    fail_threshold: monitor.failThreshold,
    regions: monitor.regions,
    settings: settingsJson(monitor, pingBase),
    contacts: contactIds,
    notification_rules: rulesWithDefaults(monitor.notificationRules),
    last_status: effectiveStatus(monitor, nowSeconds),
    last_status_change: monitor.lastStatusChange,
    last_checked_at: monitor.lastCheckedAt,
    created_at: monitor.createdAt,
    updated_at: monitor.updatedAt,
  };
}

/** What pause and resume return (the spec: id, name, active, updated_at). */
export function toMonitorActivityJson(monitor: { id: string; name: string; active: boolean; updatedAt: number }) {
  return { id: monitor.id, name: monitor.name, active: monitor.active, updated_at: monitor.updatedAt };
}

/** The API's `settings` of a monitor: its type's settings, a heartbeat's with its ping URL. */
export function settingsJson(
  monitor: Pick<MonitorEntity, 'monitorType' | 'settings' | 'heartbeatToken'>,
  pingBase: string,
): MonitorJson['settings'] {
  if (monitor.monitorType === 'heartbeat') {
    const { period, grace } = monitor.settings as HeartbeatSettings;
    return { heartbeat: { period, grace, ping_url: pingUrlOf(pingBase, monitor.heartbeatToken ?? '') } };
  }
  return { [monitor.monitorType satisfies MonitorType]: monitor.settings };
}

/** `notification_rules` of a monitor that has none stored: the defaults, serialised once. */
const DEFAULT_RULES_TEXT = JSON.stringify(rulesWithDefaults(null));

/**
 * toMonitorJson's answer as JSON text, straight from a listed row: the JSON columns (regions, a
 * probed type's settings) go into the text as stored, neither parsed nor serialised again, and
 * no entity is made. The list answers pages of up to 100 of these per request
 * (docs/decisions/0044-the-monitor-list-as-text.md). Ids and statuses need no escaping: ids are
 * 24 hex digits, statuses a closed set.
 */
export function monitorJsonText(row: ListedMonitorRow, nowSeconds: number, pingBase: string): string {
  const monitorType = row.monitor_type;
  const checkInterval = Number(row.check_interval);
  const lastCheckedAt = row.last_checked_at === null ? null : Number(row.last_checked_at);
  const createdAt = Number(row.created_at);
  const status = effectiveStatus(
    { lastStatus: row.last_status, lastCheckedAt, createdAt, checkInterval, monitorType },
    nowSeconds,
  );
  const settings =
    monitorType === 'heartbeat'
      ? JSON.stringify(
          settingsJson(
            {
              monitorType,
              settings: JSON.parse(row.settings) as HeartbeatSettings,
              heartbeatToken: row.heartbeat_token,
            },
            pingBase,
          ),
        )
      : `{"${monitorType}":${row.settings}}`;
  const contacts = row.contact_ids === null ? '[]' : `["${row.contact_ids.replaceAll(',', '","')}"]`;
  const rules =
    row.notification_rules === null
      ? DEFAULT_RULES_TEXT
      : JSON.stringify(rulesWithDefaults(JSON.parse(row.notification_rules) as Partial<NotificationRules>));
  return (
    `{"id":"${row.id}","name":${JSON.stringify(row.name)},"active":${Boolean(row.active)},` +
    `"check_interval":${checkInterval},"timeout":${Number(row.timeout)},"fail_threshold":${Number(row.fail_threshold)},` +
    `"regions":${row.regions},"settings":${settings},"contacts":${contacts},"notification_rules":${rules},` +
    `"last_status":"${status}","last_status_change":${Number(row.last_status_change)},` +
    `"last_checked_at":${lastCheckedAt},"created_at":${createdAt},"updated_at":${Number(row.updated_at)}}`
  );
}
