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

/**
 * One monitor as GET /api/monitor_summary answers it (docs/decisions/0031-monitor-summary.md):
 * what the overview shows and filters by, for every monitor of the account in one request.
 */
export interface MonitorSummary {
  id: string;
  name: string;
  type: MonitorType;
  target: string | null;
  active: boolean;
  last_status: MonitorStatus;
  in_maintenance: boolean;
  status: ShownStatus;
  last_status_change: number;
  last_checked_at: number | null;
  created_at: number;
  uptime_24h: number | null;
  uptime_30d: number | null;
  /** Mean response time of each hour of the last 24, oldest first. */
  response_ms: (number | null)[];
}

export interface SummaryCounts {
  total: number;
  up: number;
  down: number;
  unknown: number;
  pending: number;
  paused: number;
  maintenance: number;
}

export interface MonitorSummaryPage {
  generated_at: number;
  sparkline_from: number;
  counts: SummaryCounts;
  monitors: MonitorSummary[];
}

/** What the overview shows as a monitor's state: paused wins over maintenance, which wins over the last check's status. */
export type ShownStatus = MonitorStatus | 'paused' | 'maintenance';

export function shownStatus(
  monitor: Pick<Monitor, 'active' | 'last_status'> & { in_maintenance?: boolean },
): ShownStatus {
  if (!monitor.active) return 'paused';
  return monitor.in_maintenance ? 'maintenance' : monitor.last_status;
}

export const STATUS_LABELS: Record<ShownStatus, string> = {
  down: 'Down',
  up: 'Up',
  unknown: 'No data',
  pending: 'Pending',
  maintenance: 'Maintenance',
  paused: 'Paused',
};

/** Down first, then no data, pending, up, maintenance, paused: what needs a look comes first. */
const STATUS_RANK: Record<ShownStatus, number> = { down: 0, unknown: 1, pending: 2, up: 3, maintenance: 4, paused: 5 };

export type SortKey = 'status' | 'name' | 'last_change' | 'created' | 'uptime';

export interface ListFilter {
  search: string;
  type: MonitorType | '';
  status: ShownStatus | '';
}

/** The monitors matching the filter: the name or target contains every word of the search (any case). */
export function filterMonitors(monitors: readonly MonitorSummary[], filter: ListFilter): MonitorSummary[] {
  const words = filter.search.toLowerCase().split(/\s+/).filter(Boolean);
  return monitors.filter((monitor) => {
    if (filter.type !== '' && monitor.type !== filter.type) return false;
    if (filter.status !== '' && shownStatus(monitor) !== filter.status) return false;
    if (words.length === 0) return true;
    const haystack = `${monitor.name} ${monitor.target ?? ''}`.toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}

const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
const byName = (a: MonitorSummary, b: MonitorSummary) => collator.compare(a.name, b.name) || (a.id < b.id ? -1 : 1);

/**
 * A sorted copy; `status` puts down monitors first (newest change first within a status),
 * `uptime` the lowest 24 h uptime first (monitors without one last).
 */
export function sortMonitors(monitors: readonly MonitorSummary[], key: SortKey): MonitorSummary[] {
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
    case 'uptime':
      return copy.sort((a, b) => (a.uptime_24h ?? 101) - (b.uptime_24h ?? 101) || byName(a, b));
  }
}

/** The counts shown above the list, from the rows (so a live change counts at once). */
export function countByStatus(monitors: readonly MonitorSummary[]): SummaryCounts {
  const counts: SummaryCounts = { total: 0, up: 0, down: 0, unknown: 0, pending: 0, paused: 0, maintenance: 0 };
  for (const monitor of monitors) {
    counts.total += 1;
    counts[shownStatus(monitor)] += 1;
  }
  return counts;
}

/** An uptime percentage as the list shows it: two decimals below 100, "100%" at 100, "–" without one. */
export function uptimeText(percent: number | null): string {
  if (percent === null) return '–';
  if (percent >= 100) return '100%';
  return `${(Math.floor(percent * 100) / 100).toFixed(2)}%`;
}

/** The sparkline's polyline points in a `width` × `height` box (y down; gaps where an hour has no value; a lone hour a dot). */
export function sparklinePaths(values: readonly (number | null)[], width: number, height: number): string[] {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return [];
  const max = Math.max(...present);
  const min = Math.min(...present);
  const span = max - min || 1;
  // Inset by the stroke's width so that nothing at an edge is cut off.
  const pad = 2;
  const step = values.length > 1 ? (width - 2 * pad) / (values.length - 1) : 0;
  const paths: string[] = [];
  let current: string[] = [];
  // A lone point is repeated: a zero-length line, which round caps draw as a dot.
  const close = () => {
    if (current.length > 0) paths.push((current.length === 1 ? [current[0], current[0]] : current).join(' '));
    current = [];
  };
  values.forEach((value, i) => {
    if (value === null) return close();
    const y = height - pad - ((value - min) / span) * (height - 2 * pad);
    current.push(`${(pad + i * step).toFixed(1)},${y.toFixed(1)}`);
  });
  close();
  return paths;
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
