import { Inject, Injectable, Logger } from '@nestjs/common';
import { checkIdOf, isProbedType, isRegionId, type ProbeRequest } from '#contracts';
import { within } from '#runtime';
import { ResultIngest } from '../evaluation/result-ingest.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import type { DueCheck } from '../scheduling/scheduler.js';
import { LeaseLostError } from '../transitions/transition.writer.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { PROBE_TRANSPORT, type ProbeTransport } from './probe-transport.js';
import { isDependencyOutage } from '../http/error.filter.js';
import { outageLine } from '../http/outage-line.js';

/**
 * The dispatch stage: a due check becomes a ProbeRequest with its deterministic check_id, goes
 * to its region over the transport, and its result (never a rejection: UNKNOWN when nobody
 * answered) goes on to ingestion. Keeps the checks in flight so a stop can wait for them.
 */
@Injectable()
export class CheckDispatch {
  private readonly logger = new Logger('Dispatch');
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @Inject(PROBE_TRANSPORT) private readonly transport: ProbeTransport | null,
    private readonly roster: MonitorRoster,
    private readonly ingest: ResultIngest,
    private readonly metrics: CoordinatorMetrics,
  ) {}

  /** Checks sent whose results are not processed yet. */
  get pending(): number {
    return this.inFlight.size;
  }

  send(due: DueCheck): void {
    const monitor = this.roster.get(due.monitorId);
    // Passive types never reach an agent (the scheduler does not plan them either).
    if (!monitor || !this.transport || !isProbedType(monitor.monitorType)) return;
    const request = {
      check_id: checkIdOf(monitor.id, due.scheduledAt, due.region),
      monitor_id: monitor.id,
      region: due.region,
      // A private region's subject names the account (docs/decisions/0030-private-regions.md).
      ...(isRegionId(due.region) ? {} : { account_id: monitor.accountId }),
      scheduled_at: due.scheduledAt,
      type: monitor.monitorType,
      settings: monitor.settings,
      timeout_ms: monitor.timeout * 1000,
    } as ProbeRequest;
    const work = this.transport
      .request(request)
      .then((result) => this.ingest.accept(monitor, due, result))
      .catch((error: unknown) => {
        if (error instanceof LeaseLostError) {
          this.logger.warn(`result of ${request.check_id} not evaluated: ${error.message}`);
          return;
        }
        this.metrics.recordDispatchError('ingest');
        if (isDependencyOutage(error)) {
          this.logger.warn(`result of ${request.check_id} not processed (database unavailable): ${outageLine(error)}`);
          return;
        }
        this.logger.error(
          `result of ${request.check_id} not processed: ${error instanceof Error ? error.stack : String(error)}`,
        );
      })
      .finally(() => this.inFlight.delete(work));
    this.inFlight.add(work);
  }

  /** Waits up to `graceMs` for the checks in flight (a stopping coordinator). */
  async settle(graceMs: number): Promise<void> {
    await within(Promise.allSettled([...this.inFlight]), graceMs, undefined);
  }
}
