import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { subjectsFor } from '#contracts';
import type { NatsLink } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { MonitorEvents, type MonitorChange } from '../monitors/monitor-events.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { NATS_LINK } from './nats-connection.js';

/** The notice one replica sends the others: which monitor changed; they read it from the database. */
interface MonitorNotice {
  origin: string;
  monitor_id: string;
  deleted: boolean;
}

/**
 * Monitor changes across coordinator replicas. A change committed through this replica's API
 * is announced on NATS; a notice from another replica is turned back into a MonitorChange
 * from the database, so the replica leasing the monitor's partition applies it at once. Only
 * ids travel: the database stays the truth, and a lost notice is caught by the periodic
 * resync (MonitorRoster). Without NATS (one process) there is nobody to tell.
 */
@Injectable()
export class MonitorBus implements OnApplicationShutdown {
  private readonly logger = new Logger('MonitorBus');
  private readonly subject: string;
  private readonly listeners: ((change: MonitorChange) => void)[] = [];

  constructor(
    @Inject(NATS_LINK) private readonly link: NatsLink | null,
    private readonly config: CoordinatorConfig,
    private readonly repository: MonitorsRepository,
    events: MonitorEvents,
  ) {
    this.subject = subjectsFor(config.NATS_SUBJECT_PREFIX).monitorChanged;
    events.subscribe((change) => {
      this.announce(change);
    });
  }

  /**
   * Calls `apply` with every change another replica announces from now on (what was announced
   * before is caught by the resync).
   */
  listen(apply: (change: MonitorChange) => void): void {
    this.listeners.push(apply);
  }

  /** A notice from NATS (MonitorBusController): another replica's change, reloaded from the database. */
  receive(payload: unknown): void {
    if (typeof payload !== 'object' || payload === null) return;
    const notice = payload as Partial<MonitorNotice>;
    if (notice.origin === this.config.COORDINATOR_ID || typeof notice.monitor_id !== 'string') return;
    const checked: MonitorNotice = {
      origin: String(notice.origin),
      monitor_id: notice.monitor_id,
      deleted: notice.deleted === true,
    };
    void this.resolve(checked)
      .then((change) => {
        for (const apply of this.listeners) apply(change);
      })
      .catch((e: unknown) => {
        this.logger.warn(`monitor ${checked.monitor_id} changed elsewhere, not reloaded (resync will): ${String(e)}`);
      });
  }

  /** Last of the shutdown: the link is drained (or, never connected, stops trying). */
  async onApplicationShutdown(): Promise<void> {
    await this.link?.drain();
  }

  private announce(change: MonitorChange): void {
    // Before the first connection there is no client to hold the notice: skipped, the resync covers it.
    const nats = this.link?.connection;
    if (!nats || nats.isClosed() || nats.isDraining()) return;
    const notice: MonitorNotice = {
      origin: this.config.COORDINATOR_ID,
      monitor_id: change.kind === 'deleted' ? change.monitorId : change.monitor.id,
      deleted: change.kind === 'deleted',
    };
    // Buffered by the client while NATS is away; a notice lost anyway is caught by the resync.
    nats.publish(this.subject, JSON.stringify(notice));
  }

  private async resolve(notice: MonitorNotice): Promise<MonitorChange> {
    const monitor = notice.deleted ? null : await this.repository.findById(notice.monitor_id);
    return monitor ? { kind: 'saved', monitor } : { kind: 'deleted', monitorId: notice.monitor_id };
  }
}
