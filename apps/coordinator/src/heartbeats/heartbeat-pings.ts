import { Inject, Injectable, Logger } from '@nestjs/common';
import { subjectsFor, type ProbeResult } from '#contracts';
import { CLOCK, type Clock, type NatsLink } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { AppError } from '../errors.js';
import { ResultIngest } from '../evaluation/result-ingest.js';
import { ResultsWriter } from '../history/results-writer.js';
import { MaintenanceCalendar, type Cover } from '../maintenance/maintenance-calendar.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { NATS_LINK } from '../probing/nats-connection.js';
import { rateLimitHeaders } from '../rate-limit/rate-limiter.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { heartbeatResult, isTokenShaped } from './heartbeat.js';
import { PingLimiter } from './ping-limiter.js';

/**
 * What a replica that took a ping tells the others: the result, for the monitor's owner to
 * evaluate, and the maintenance window it found covering the monitor (null: none), so that the
 * owner evaluates the result as it was stored (docs/decisions/0026-maintenance-windows.md).
 * A notice without `cover` (an older replica) is judged by the owner's own calendar.
 */
export interface PingNotice {
  origin: string;
  result: ProbeResult;
  cover?: Cover | null;
}

const NOT_FOUND = () => new AppError('NOT_FOUND', 'No heartbeat monitor has this ping URL.');

/**
 * The ping route's work (docs/decisions/0027-heartbeat-monitors.md): find the heartbeat monitor
 * by its token (404 for any other token: unknown, malformed or deleted alike), charge the token's
 * budget (429), and record the ping or the reported failure as a check result. On the replica
 * that owns the monitor's partition the result goes through ingestion like a probe's (history,
 * evaluation, transitions, incidents, notifications); on any other replica it is stored and
 * sent over NATS to the owner, which evaluates it without storing it again.
 */
@Injectable()
export class HeartbeatPings {
  private readonly logger = new Logger('HeartbeatPings');
  private readonly limiter = new PingLimiter();
  private readonly subject: string;

  constructor(
    private readonly monitors: MonitorsRepository,
    private readonly roster: MonitorRoster,
    private readonly ingest: ResultIngest,
    private readonly results: ResultsWriter,
    private readonly config: CoordinatorConfig,
    @Inject(NATS_LINK) private readonly link: NatsLink | null,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly maintenance: MaintenanceCalendar,
  ) {
    this.subject = subjectsFor(config.NATS_SUBJECT_PREFIX).heartbeatPing;
  }

  /** A ping (`fail`: a reported failure) on `token`; resolves once it is recorded (and evaluated here). */
  async ping(token: string, fail: boolean): Promise<void> {
    if (!isTokenShaped(token)) throw NOT_FOUND();
    const monitor = await this.monitors.findByHeartbeatToken(token);
    if (!monitor) throw NOT_FOUND();
    const now = this.clock.now();
    const decision = this.limiter.charge(token, now);
    if (!decision.allowed) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        'Too many pings for this heartbeat monitor; retry later.',
        undefined,
        rateLimitHeaders(decision),
      );
    }
    const result = heartbeatResult(monitor.id, { kind: fail ? 'fail' : 'ping' }, now);
    const owned = this.roster.get(monitor.id);
    if (owned && this.roster.owns(monitor.id)) {
      // Stored (or held through a database outage) before evaluation: a failed evaluation is logged,
      // and the ping still answered OK (the next result or the deadline decides again).
      await this.ingest.accept(owned, { regionIndex: 0 }, result).catch((error: unknown) => {
        this.logger.warn(`ping of ${monitor.id} recorded, not evaluated: ${String(error)}`);
      });
      return;
    }
    // Flagged and judged as the owner would have: one look at the calendar, stored and sent with it.
    const at = Math.floor(now / 1000);
    const cover = this.maintenance.coverOf(monitor.accountId, monitor.id, at);
    this.results.add(result, at, cover !== null);
    this.forward(result, cover);
  }

  /** A ping another replica took (HeartbeatPingController): evaluated here when this replica owns the monitor. */
  async received(payload: unknown): Promise<void> {
    const notice = payload as Partial<PingNotice> | null;
    const result = notice?.result;
    if (!notice || notice.origin === this.config.COORDINATOR_ID || !result || typeof result !== 'object') return;
    if (typeof result.monitor_id !== 'string' || !Number.isSafeInteger(result.scheduled_at)) return;
    if ((result.scheduled_at ?? 0) <= 0) return;
    const monitor = this.roster.get(result.monitor_id);
    if (!monitor || monitor.monitorType !== 'heartbeat' || !this.roster.owns(monitor.id)) return;
    // Rebuilt from the fields that matter, so a malformed notice cannot carry anything else in.
    const event = result.status === 'up' ? { kind: 'ping' as const } : { kind: 'fail' as const };
    const rebuilt = heartbeatResult(monitor.id, event, result.scheduled_at ?? 0);
    await this.ingest
      .acceptEvaluated(monitor, { regionIndex: 0 }, rebuilt, coverOf(notice.cover))
      .catch((error: unknown) => {
        this.logger.warn(`ping of ${monitor.id} from another replica not evaluated: ${String(error)}`);
      });
  }

  private forward(result: ProbeResult, cover: Cover | null): void {
    const nats = this.link?.connection;
    if (!nats || nats.isClosed() || nats.isDraining()) {
      // One process without NATS owns every partition it checks; with CHECKS_ENABLED=false another
      // replica evaluates, and without a notice it sees the ping when the deadline comes (heartbeat-watch.ts).
      return;
    }
    const notice: PingNotice = { origin: this.config.COORDINATOR_ID, result, cover };
    nats.publish(this.subject, JSON.stringify(notice));
    this.logger.debug(`ping of ${result.monitor_id} sent to its owner`);
  }
}

/** The cover a notice carries: null when it says none, undefined (ask the owner's calendar) when absent or malformed. */
function coverOf(cover: unknown): Cover | null | undefined {
  if (cover === null) return null;
  const { endsAt, windowId } = (cover ?? {}) as Partial<Record<keyof Cover, unknown>>;
  return typeof endsAt === 'number' && Number.isSafeInteger(endsAt) && typeof windowId === 'string'
    ? { endsAt, windowId }
    : undefined;
}
