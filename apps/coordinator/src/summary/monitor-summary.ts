/**
 * The account-wide monitor summary the dashboard's overview is drawn from
 * (docs/decisions/0031-monitor-summary.md): pure assembly of what three grouped queries read.
 */
import type { MonitorType } from '#contracts';
import { NO_FIGURES, uptimePercent, type Figures } from '../history/stats.js';
import { effectiveStatus, type EffectiveStatus } from '../monitors/monitor-status.js';
import type { SummaryMonitor } from '../monitors/monitors.repository.js';
import { HOUR_SECONDS, SPARKLINE_HOURS, type SummaryWindow } from './summary-window.js';

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
  /** Mean response time (whole ms) of the up results of each UTC hour, the current one and the 23 before it, oldest first; null for an hour without any. */
  response_ms: (number | null)[];
}

export type SummaryCounts = Record<ShownStatus | 'total', number>;

export interface MonitorSummaryPageJson {
  /** Now (Unix s): the end of both windows. */
  generated_at: number;
  /** Start of the sparkline's first UTC hour (23 hours before the current one's); hour i covers [from + 3600 i, from + 3600 (i + 1)). */
  sparkline_from: number;
  counts: SummaryCounts;
  monitors: MonitorSummaryJson[];
}

export interface SummaryInput {
  monitors: readonly SummaryMonitor[];
  /** Per monitor, the slices of the window (AccountFigures: 0 the first, partial hour, 1–24 the sparkline's); absent without results. */
  slices: ReadonlyMap<string, readonly (Figures | undefined)[]>;
  /** Per monitor, the roll-ups of the 30 UTC days ending today summed (AccountFigures). */
  month: ReadonlyMap<string, Figures>;
  inMaintenance: (monitor: SummaryMonitor) => boolean;
  window: SummaryWindow;
}

export function shownStatusOf(active: boolean, inMaintenance: boolean, status: EffectiveStatus): ShownStatus {
  if (!active) return 'paused';
  return inMaintenance ? 'maintenance' : status;
}

function meanOf(figures: Figures | undefined): number | null {
  return figures && figures.countResponse > 0 ? Math.round(figures.sumResponseMs / figures.countResponse) : null;
}

/** The counts of several slices added up (uptime needs no more: no p95 here). */
function countsOf(slices: readonly (Figures | undefined)[]): Figures {
  const total = { ...NO_FIGURES };
  for (const slice of slices) {
    if (!slice) continue;
    total.checks += slice.checks;
    total.failures += slice.failures;
    total.unknowns += slice.unknowns;
  }
  return total;
}

export function buildSummary({ monitors, slices, month, inMaintenance, window }: SummaryInput): MonitorSummaryPageJson {
  const { now } = window;
  const counts: SummaryCounts = { total: 0, up: 0, down: 0, unknown: 0, pending: 0, paused: 0, maintenance: 0 };
  const rows = monitors.map((monitor): MonitorSummaryJson => {
    const lastStatus = effectiveStatus(monitor, now);
    const covered = inMaintenance(monitor);
    const status = shownStatusOf(monitor.active, covered, lastStatus);
    counts.total += 1;
    counts[status] += 1;
    const perSlice = slices.get(monitor.id) ?? [];
    const days = month.get(monitor.id);
    return {
      id: monitor.id,
      name: monitor.name,
      type: monitor.monitorType,
      target: monitor.target,
      active: monitor.active,
      last_status: lastStatus,
      in_maintenance: covered,
      status,
      last_status_change: monitor.lastStatusChange,
      last_checked_at: monitor.lastCheckedAt,
      created_at: monitor.createdAt,
      uptime_24h: uptimePercent(countsOf(perSlice)),
      uptime_30d: days ? uptimePercent(days) : null,
      response_ms: Array.from({ length: SPARKLINE_HOURS }, (_, i) => meanOf(perSlice[i + 1])),
    };
  });
  return { generated_at: now, sparkline_from: window.origin + HOUR_SECONDS, counts, monitors: rows };
}
