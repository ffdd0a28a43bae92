/**
 * The account-wide monitor summary the dashboard's overview is drawn from
 * (docs/decisions/0031-monitor-summary.md): pure assembly of what three grouped queries read.
 */
import { isProbedType, type MonitorType, type ProbedSettings } from '#contracts';
import { combine, SECONDS_PER_DAY, uptimePercent, type Figures } from '../history/stats.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import { effectiveStatus, type EffectiveStatus } from '../monitors/monitor-status.js';

/** The sparkline: mean response times of this many slices of the last 24 hours, oldest first. */
export const SPARKLINE_BUCKETS = 24;
export const SPARKLINE_BUCKET_SECONDS = SECONDS_PER_DAY / SPARKLINE_BUCKETS;

/** What a monitor shows as: paused outranks maintenance, which outranks what the checks find (as on public pages). */
export type ShownStatus = EffectiveStatus | 'paused' | 'maintenance';
export const SHOWN_STATUSES = [
  'up',
  'down',
  'unknown',
  'pending',
  'paused',
  'maintenance',
] as const satisfies readonly ShownStatus[];

export interface MonitorSummaryJson {
  id: string;
  name: string;
  type: MonitorType;
  /** The probed target (`settings.<type>.url`); null for a heartbeat. */
  target: string | null;
  active: boolean;
  /** As in GET /api/monitors: the stored status, or `unknown` over it. */
  last_status: EffectiveStatus;
  /** A maintenance window covers the monitor now. */
  in_maintenance: boolean;
  /** `last_status` with paused and maintenance over it: what the counts count. */
  status: ShownStatus;
  last_status_change: number;
  last_checked_at: number | null;
  created_at: number;
  /** Equal to GET /api/monitors/{id}/stats?period=24h's overall uptime_percent. */
  uptime_24h: number | null;
  /** Equal to GET /api/monitors/{id}/stats?period=30d's overall uptime_percent. */
  uptime_30d: number | null;
  /** Mean response time (whole ms) of the up results of each hour of the last 24, oldest first; null for an hour without any. */
  response_ms: (number | null)[];
}

export type SummaryCounts = Record<ShownStatus | 'total', number>;

export interface MonitorSummaryPageJson {
  /** Now (Unix s): the end of both windows. */
  generated_at: number;
  /** Start of the sparkline's first hour (generated_at − 86400); hour i covers [from + 3600 i, from + 3600 (i + 1)). */
  sparkline_from: number;
  counts: SummaryCounts;
  monitors: MonitorSummaryJson[];
}

export interface SummaryInput {
  monitors: readonly MonitorEntity[];
  /** The raw results of the last 24 h per monitor and hour (history: accountBuckets). */
  hours: readonly (Figures & { monitorId: string; bucket: number })[];
  /** The roll-ups of the 30 UTC days ending today, summed per monitor (history: accountRollupTotals). */
  days: readonly (Figures & { monitorId: string })[];
  inMaintenance: (monitor: MonitorEntity) => boolean;
  now: number;
}

export function shownStatusOf(active: boolean, inMaintenance: boolean, status: EffectiveStatus): ShownStatus {
  if (!active) return 'paused';
  return inMaintenance ? 'maintenance' : status;
}

function meanOf(figures: Figures | undefined): number | null {
  return figures && figures.countResponse > 0 ? Math.round(figures.sumResponseMs / figures.countResponse) : null;
}

export function buildSummary({ monitors, hours, days, inMaintenance, now }: SummaryInput): MonitorSummaryPageJson {
  const hoursOf = new Map<string, (Figures | undefined)[]>();
  for (const { monitorId, bucket, ...figures } of hours) {
    const list = hoursOf.get(monitorId) ?? new Array<Figures | undefined>(SPARKLINE_BUCKETS).fill(undefined);
    list[bucket] = figures;
    hoursOf.set(monitorId, list);
  }
  const daysOf = new Map(days.map(({ monitorId, ...figures }) => [monitorId, figures]));
  const counts: SummaryCounts = { total: 0, up: 0, down: 0, unknown: 0, pending: 0, paused: 0, maintenance: 0 };
  const rows = monitors.map((monitor): MonitorSummaryJson => {
    const lastStatus = effectiveStatus(monitor, now);
    const covered = inMaintenance(monitor);
    const status = shownStatusOf(monitor.active, covered, lastStatus);
    counts.total += 1;
    counts[status] += 1;
    const perHour = hoursOf.get(monitor.id) ?? [];
    const month = daysOf.get(monitor.id);
    return {
      id: monitor.id,
      name: monitor.name,
      type: monitor.monitorType,
      target: isProbedType(monitor.monitorType) ? (monitor.settings as ProbedSettings).url : null,
      active: monitor.active,
      last_status: lastStatus,
      in_maintenance: covered,
      status,
      last_status_change: monitor.lastStatusChange,
      last_checked_at: monitor.lastCheckedAt,
      created_at: monitor.createdAt,
      uptime_24h: uptimePercent(combine(perHour.filter((f): f is Figures => f !== undefined))),
      uptime_30d: month ? uptimePercent(month) : null,
      response_ms: Array.from({ length: SPARKLINE_BUCKETS }, (_, i) => meanOf(perHour[i])),
    };
  });
  return { generated_at: now, sparkline_from: now - SECONDS_PER_DAY, counts, monitors: rows };
}
