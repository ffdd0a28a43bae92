import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { subjectsFor } from '#contracts';
import { isObjectId, type NatsLink } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { Readiness } from '../health/readiness.service.js';
import { NATS_LINK } from '../probing/nats-connection.js';

/** A recorded status change, as live streams tell it (docs/decisions/0028-live-status.md). */
export interface StatusChange {
  accountId: string;
  monitorId: string;
  status: 'up' | 'down';
  /** Unix seconds. */
  changedAt: number;
}

/** One open stream: told of its account's changes, ended at shutdown. */
export interface LiveListener {
  change(change: StatusChange): void;
  end(): void;
}

/** Streams one account may hold open on one replica (more are refused with 429). */
export const MAX_STREAMS_PER_ACCOUNT = 10;

/** What one replica sends the others on NATS. */
interface StatusNotice {
  origin: string;
  account_id: string;
  monitor_id: string;
  status: 'up' | 'down';
  changed_at: number;
}

/**
 * Status changes for live dashboards (docs/decisions/0028-live-status.md): the replica that
 * records a change tells its own open streams at once and, in NATS mode, the other replicas,
 * whose streams it reaches through StatusFeedController. A change is a hint to reload; the
 * database stays the truth, and a notice lost on the way costs only the dashboard's periodic
 * refresh.
 */
@Injectable()
export class StatusFeed implements BeforeApplicationShutdown {
  private readonly logger = new Logger('StatusFeed');
  private readonly listeners = new Map<string, Set<LiveListener>>();
  private readonly subject: string;
  /** Set when the streams were ended at shutdown: none is taken after. */
  private closed = false;

  constructor(
    @Inject(NATS_LINK) private readonly link: NatsLink | null,
    private readonly config: CoordinatorConfig,
    private readonly readiness: Readiness,
  ) {
    this.subject = subjectsFor(config.NATS_SUBJECT_PREFIX).statusChanged;
  }

  /**
   * Adds a stream of `accountId` and returns how to remove it; `'full'` when the account already
   * has MAX_STREAMS_PER_ACCOUNT here, `'closing'` once the process has begun to stop (a stream
   * taken then would be cut at once, or outlive the shutdown's end of streams).
   */
  subscribe(accountId: string, listener: LiveListener): (() => void) | 'full' | 'closing' {
    if (this.closed || this.readiness.isStopping) return 'closing';
    const own = this.listeners.get(accountId) ?? new Set<LiveListener>();
    if (own.size >= MAX_STREAMS_PER_ACCOUNT) return 'full';
    own.add(listener);
    this.listeners.set(accountId, own);
    return () => {
      own.delete(listener);
      if (own.size === 0 && this.listeners.get(accountId) === own) this.listeners.delete(accountId);
    };
  }

  /** A change this replica recorded: its streams now, the other replicas' through NATS. */
  publish(change: StatusChange): void {
    this.deliver(change);
    const nats = this.link?.connection;
    if (!nats || nats.isClosed() || nats.isDraining()) return;
    const notice: StatusNotice = {
      origin: this.config.COORDINATOR_ID,
      account_id: change.accountId,
      monitor_id: change.monitorId,
      status: change.status,
      changed_at: change.changedAt,
    };
    try {
      nats.publish(this.subject, JSON.stringify(notice));
    } catch (error) {
      this.logger.warn(`status change of ${change.monitorId} not announced: ${String(error)}`);
    }
  }

  /** A notice from another replica (StatusFeedController); anything malformed is ignored. */
  receive(payload: unknown): void {
    if (typeof payload !== 'object' || payload === null) return;
    const n = payload as Partial<StatusNotice>;
    if (n.origin === this.config.COORDINATOR_ID) return;
    if (!isObjectId(n.account_id) || !isObjectId(n.monitor_id)) return;
    if ((n.status !== 'up' && n.status !== 'down') || !Number.isSafeInteger(n.changed_at)) return;
    this.deliver({ accountId: n.account_id, monitorId: n.monitor_id, status: n.status, changedAt: n.changed_at! });
  }

  /** Open streams of `accountId` on this replica. */
  streams(accountId: string): number {
    return this.listeners.get(accountId)?.size ?? 0;
  }

  /** Streams end first at shutdown, so they hold neither the HTTP server nor its drain. */
  beforeApplicationShutdown(): void {
    this.closed = true;
    for (const own of this.listeners.values()) for (const listener of own) listener.end();
    this.listeners.clear();
  }

  private deliver(change: StatusChange): void {
    for (const listener of this.listeners.get(change.accountId) ?? []) listener.change(change);
  }
}
