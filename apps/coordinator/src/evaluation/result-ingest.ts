import { Inject, Injectable, Logger } from '@nestjs/common';
import { isDecided, type ProbeResult } from '#contracts';
import { CLOCK, type Clock } from '#runtime';
import { ResultsWriter } from '../history/results-writer.js';
import { MaintenanceCalendar } from '../maintenance/maintenance-calendar.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { MonitorRoster, type RosterMonitor } from '../scheduling/monitor-roster.js';
import type { DueCheck } from '../scheduling/scheduler.js';
import { CertificateWatch } from './certificate-watch.js';
import { Evidence } from './evidence.js';
import { StatusEvaluation } from './status-evaluation.js';

/**
 * The ingest stage: every result is counted and stored (history); a result of a monitor this
 * replica still owns also becomes evidence, advances its last check, may warn of an expiring
 * certificate, and goes on to evaluation. A result that arrives while a maintenance window covers
 * its monitor is stored flagged `in_maintenance` and evaluation is told
 * (docs/decisions/0026-maintenance-windows.md).
 */
@Injectable()
export class ResultIngest {
  private readonly logger = new Logger('Ingest');

  constructor(
    private readonly results: ResultsWriter,
    private readonly roster: MonitorRoster,
    private readonly evidence: Evidence,
    private readonly certificates: CertificateWatch,
    private readonly evaluation: StatusEvaluation,
    private readonly metrics: CoordinatorMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly maintenance: MaintenanceCalendar,
  ) {}

  /**
   * `result` of the check `due` of `monitor` (as it was when the check was sent). A heartbeat's
   * pings and missed deadlines come here too, with rotation position 0 (heartbeats/).
   */
  async accept(monitor: RosterMonitor, due: Pick<DueCheck, 'regionIndex'>, result: ProbeResult): Promise<void> {
    this.metrics.recordResult(result, monitor.monitorType);
    const now = Math.floor(this.clock.now() / 1000);
    const cover = this.maintenance.coverOf(monitor.accountId, monitor.id, now);
    this.results.add(result, now, cover !== null);
    // Stored above either way; only the partition's owner evaluates.
    await this.acceptEvaluated(monitor, due, result, cover);
  }

  /**
   * The owner's part of `accept` for a result another replica already stored (a heartbeat ping
   * taken elsewhere, heartbeats/heartbeat-pings.ts): evidence, last check, evaluation.
   */
  async acceptEvaluated(
    monitor: RosterMonitor,
    due: Pick<DueCheck, 'regionIndex'>,
    result: ProbeResult,
    cover = this.maintenance.coverOf(monitor.accountId, monitor.id, Math.floor(this.clock.now() / 1000)),
  ): Promise<void> {
    if (!this.roster.owns(monitor.id)) return;
    this.evidence.record(result);
    this.metrics.recordMonitorResult(result);
    if (isDecided(result.status)) this.roster.recordChecked(monitor.id, Math.floor(this.clock.now() / 1000));
    if (result.cert_not_after !== null) {
      // A database outage must not keep the result from evaluation; the next check tries again.
      await this.certificates.observe(monitor.id, result.cert_not_after).catch((error: unknown) => {
        this.logger.warn(`certificate expiry of ${monitor.id} not recorded yet: ${String(error)}`);
      });
    }
    await this.evaluation.submit(monitor.id, due.regionIndex, result, cover);
  }
}
