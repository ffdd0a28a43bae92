import { Injectable } from '@nestjs/common';
import type { ProbeResult, ResultRegion } from '#contracts';
import type { RegionEvidence } from '../incidents/incident.entity.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';

/**
 * The latest result per region of every monitor checked here: what a status change shows as
 * its evidence (the incident's check_results, the notification's region list). Forgotten when
 * the monitor leaves the roster.
 */
@Injectable()
export class Evidence {
  private readonly latest = new Map<string, Map<ResultRegion, ProbeResult>>();

  constructor(roster: MonitorRoster) {
    roster.onChange((change) => {
      if (change.kind === 'untracked') this.latest.delete(change.monitorId);
    });
  }

  record(result: ProbeResult): void {
    const byRegion = this.latest.get(result.monitor_id) ?? new Map<ResultRegion, ProbeResult>();
    byRegion.set(result.region, result);
    this.latest.set(result.monitor_id, byRegion);
  }

  /** The error of the monitor's latest result from `region` (a down incident's reason). */
  errorOf(monitorId: string, region: ResultRegion): string | null {
    return this.latest.get(monitorId)?.get(region)?.error ?? null;
  }

  /** The monitor's latest result per region, as an incident stores it. */
  of(monitorId: string): Partial<Record<ResultRegion, RegionEvidence>> {
    const byRegion = this.latest.get(monitorId);
    if (!byRegion) return {};
    return Object.fromEntries(
      [...byRegion.values()].map((r) => [
        r.region,
        {
          status: r.status,
          response_time_ms: r.response_time_ms,
          error: r.error,
          checked_at: Math.floor(r.started_at / 1000),
          checker_ip: r.checker_ip,
        },
      ]),
    );
  }
}
