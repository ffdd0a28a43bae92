import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, unixSeconds, type Clock } from '#runtime';
import { CheckResultsRepository } from '../history/check-results.repository.js';
import { periodWindow } from '../history/stats.js';
import { MaintenanceCalendar } from '../maintenance/maintenance-calendar.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { buildSummary, SPARKLINE_BUCKET_SECONDS, type MonitorSummaryPageJson } from './monitor-summary.js';

/**
 * GET /api/monitor_summary: every monitor of the account with its status, uptime and
 * sparkline, from three queries whatever the number of monitors (docs/decisions/0031-monitor-summary.md).
 */
@Injectable()
export class MonitorSummaryService {
  constructor(
    private readonly monitors: MonitorsRepository,
    private readonly results: CheckResultsRepository,
    private readonly maintenance: MaintenanceCalendar,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async summary(accountId: string): Promise<MonitorSummaryPageJson> {
    const now = unixSeconds(this.clock);
    // The same windows as /stats?period=24h (raw results) and ?period=30d (daily roll-ups).
    const day = periodWindow('24h', now);
    const month = periodWindow('30d', now);
    if (month.source !== 'rollups') throw new Error('30d is a roll-up period');
    const [monitors, hours, days] = await Promise.all([
      this.monitors.allOfAccount(accountId),
      this.results.accountBuckets(accountId, day.from, day.to, SPARKLINE_BUCKET_SECONDS),
      this.results.accountRollupTotals(accountId, month.fromDay, month.toDay),
    ]);
    return buildSummary({
      monitors,
      hours,
      days,
      inMaintenance: (monitor) => this.maintenance.coverOf(accountId, monitor.id, now) !== null,
      now,
    });
  }
}
