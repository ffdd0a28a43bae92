import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '#runtime';
import { CheckResultsRepository } from '../history/check-results.repository.js';
import { MaintenanceCalendar } from '../maintenance/maintenance-calendar.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { StatusEvaluation } from './status-evaluation.js';

/**
 * Makes the end-of-window check survive a restart and a partition handover
 * (docs/decisions/0026-maintenance-windows.md): when this replica starts checking a monitor (at
 * boot, or when it takes over the monitor's partition), the monitor's newest decided result is
 * read from the database; if it was taken in maintenance, evaluation waits for the end of the
 * window covering the monitor now, or, when that window already ended, checks a DOWN at once.
 */
@Injectable()
export class WindowResume {
  private readonly logger = new Logger('Maintenance');

  constructor(
    private readonly roster: MonitorRoster,
    private readonly results: CheckResultsRepository,
    private readonly calendar: MaintenanceCalendar,
    private readonly evaluation: StatusEvaluation,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    roster.onChange((change) => {
      // Once per stretch of checking here: the roster says when it starts (no set of its own,
      // docs/decisions/0046-exact-arrays-and-fewer-sets-per-monitor.md).
      if (change.kind === 'untracked' || !change.added) return;
      // No query for a monitor no window names: a start with 100,000 monitors asks only for those.
      if (!this.calendar.concerns(change.monitor.accountId, change.monitor.id)) return;
      void this.resume(change.monitor.id);
    });
  }

  private async resume(monitorId: string): Promise<void> {
    try {
      const last = await this.results.latestDecided(monitorId);
      const monitor = this.roster.get(monitorId);
      if (!last?.inMaintenance || !monitor) return;
      const cover = this.calendar.coverOf(monitor.accountId, monitorId, Math.floor(this.clock.now() / 1000));
      const regionIndex = Math.max(0, monitor.regions.indexOf(last.region));
      this.evaluation.resumeWindow(monitorId, cover, last.status === 'down', regionIndex);
    } catch (error) {
      // The monitor's next regular check is evaluated afresh anyway: at most one interval late.
      this.logger.warn(`window end of ${monitorId} not resumed: ${String(error)}`);
    }
  }
}
