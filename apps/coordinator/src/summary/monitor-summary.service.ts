import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, unixSeconds, type Clock } from '#runtime';
import { MaintenanceCalendar } from '../maintenance/maintenance-calendar.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { AccountFigures } from './account-figures.js';
import { buildSummary, type MonitorSummaryPageJson } from './monitor-summary.js';
import { summaryWindow } from './summary-window.js';

/**
 * GET /api/monitor_summary: every monitor of the account with its status, uptime and
 * sparkline, in a number of statements that does not grow with the monitors
 * (docs/decisions/0031-monitor-summary.md).
 */
@Injectable()
export class MonitorSummaryService {
  constructor(
    private readonly monitors: MonitorsRepository,
    private readonly figures: AccountFigures,
    private readonly maintenance: MaintenanceCalendar,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async summary(accountId: string): Promise<MonitorSummaryPageJson> {
    const window = summaryWindow(unixSeconds(this.clock));
    const monitors = await this.monitors.summaryRowsOfAccount(accountId);
    const { slices, month } = await this.figures.read(
      accountId,
      monitors.map((monitor) => monitor.id),
      window,
    );
    return buildSummary({
      monitors,
      slices,
      month,
      inMaintenance: (monitor) => this.maintenance.coverOf(accountId, monitor.id, window.now) !== null,
      window,
    });
  }
}
