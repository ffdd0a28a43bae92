/** Monitor shapes as the API answers them, and the overview's pure list logic. */

import type { NotificationRules } from './rules-draft.ts';

export type MonitorType = 'https' | 'tcp' | 'ping' | 'dns' | 'heartbeat';
export type MonitorStatus = 'up' | 'down' | 'pending' | 'unknown';

export interface HttpsSettings {
  url: string;
  check_certificate_expiration?: boolean;
  http_method?: string;
  http_statuses?: string;
  request_headers?: string;
  request_body?: string;
  response_body?: string;
  follow_redirect?: boolean;
  response_body_absent?: string;
  json_assertions?: { path: string; op: string; value?: unknown }[];
  ignore_tls_errors?: boolean;
}

export interface Monitor {
  id: string;
  name: string;
  active: boolean;
  check_interval: number;
  timeout: number;
  fail_threshold: number;
  regions: string[];
  settings: {
    https?: HttpsSettings;
    tcp?: { url: string };
    ping?: { url: string };
    dns?: { url: string; record_type?: string; resolver?: string; expected?: string[] };
    heartbeat?: { period: number; grace: number; ping_url?: string };
  };
  contacts: string[];
  notification_rules?: NotificationRules;
  last_status: MonitorStatus;
  last_status_change: number;
  last_checked_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Each type's name in the dashboard (the form's choices, the overview's filter and column). */
export const TYPE_LABELS: Record<MonitorType, string> = {
  https: 'HTTP(S)',
  tcp: 'TCP port',
  ping: 'Ping (ICMP)',
  dns: 'DNS record',
  heartbeat: 'Heartbeat (cron job)',
};

export const MONITOR_TYPES = Object.keys(TYPE_LABELS) as MonitorType[];

export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

export function monitorType(monitor: Pick<Monitor, 'settings'>): MonitorType {
  if (monitor.settings.tcp) return 'tcp';
  if (monitor.settings.ping) return 'ping';
  if (monitor.settings.dns) return 'dns';
  if (monitor.settings.heartbeat) return 'heartbeat';
  return 'https';
}

export function monitorUrl(monitor: Pick<Monitor, 'settings'>): string {
  const { https, tcp, ping, dns, heartbeat } = monitor.settings;
  return https?.url ?? tcp?.url ?? ping?.url ?? dns?.url ?? heartbeat?.ping_url ?? '';
}

/** What the overview shows as a monitor's state: paused wins over the last check's status. */
export type ShownStatus = MonitorStatus | 'paused';

export function shownStatus(monitor: Pick<Monitor, 'active' | 'last_status'>): ShownStatus {
  return monitor.active ? monitor.last_status : 'paused';
}

export const STATUS_LABELS: Record<ShownStatus, string> = {
  down: 'Down',
  up: 'Up',
  unknown: 'No data',
  pending: 'Pending',
  paused: 'Paused',
};

/** Down first, then no data, pending, up, paused: what needs a look comes first. */
const STATUS_RANK: Record<ShownStatus, number> = { down: 0, unknown: 1, pending: 2, up: 3, paused: 4 };

export type SortKey = 'status' | 'name' | 'last_change' | 'created';

export interface ListFilter {
  search: string;
  type: MonitorType | '';
  status: ShownStatus | '';
}

/** The monitors matching the filter: the name or target contains every word of the search (any case). */
export function filterMonitors<M extends Monitor>(monitors: readonly M[], filter: ListFilter): M[] {
  const words = filter.search.toLowerCase().split(/\s+/).filter(Boolean);
  return monitors.filter((monitor) => {
    if (filter.type !== '' && monitorType(monitor) !== filter.type) return false;
    if (filter.status !== '' && shownStatus(monitor) !== filter.status) return false;
    if (words.length === 0) return true;
    const haystack = `${monitor.name} ${monitorUrl(monitor)}`.toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}

const byName = (a: Monitor, b: Monitor) =>
  a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }) || a.id.localeCompare(b.id);

/** A sorted copy; `status` puts down monitors first (newest change first within a status). */
export function sortMonitors<M extends Monitor>(monitors: readonly M[], key: SortKey): M[] {
  const copy = [...monitors];
  switch (key) {
    case 'status':
      return copy.sort(
        (a, b) =>
          STATUS_RANK[shownStatus(a)] - STATUS_RANK[shownStatus(b)] ||
          b.last_status_change - a.last_status_change ||
          byName(a, b),
      );
    case 'name':
      return copy.sort(byName);
    case 'last_change':
      return copy.sort((a, b) => b.last_status_change - a.last_status_change || byName(a, b));
    case 'created':
      return copy.sort((a, b) => b.created_at - a.created_at || byName(a, b));
  }
}

/** The counts shown above the list, from the monitors loaded. */
export function countByStatus(monitors: readonly Monitor[]): Record<ShownStatus, number> {
  const counts: Record<ShownStatus, number> = { up: 0, down: 0, unknown: 0, pending: 0, paused: 0 };
  for (const monitor of monitors) counts[shownStatus(monitor)] += 1;
  return counts;
}

/** The rows of a virtualised list visible in a viewport (with `overscan` rows either side). */
export function visibleRange(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): { start: number; end: number } {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const last = Math.ceil((Math.max(0, scrollTop) + viewportHeight) / rowHeight);
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + overscan) };
}
