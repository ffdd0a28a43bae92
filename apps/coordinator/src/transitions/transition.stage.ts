import { Injectable, Logger } from '@nestjs/common';
import { PartitionManager } from '../cluster/partition-manager.js';
import { Evidence } from '../evaluation/evidence.js';
import type { MonitorEvent, MonitorState } from '../evaluation/status.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { StatusFeed } from '../live/status-feed.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { TransitionRecorder } from './transition-recorder.js';

/** Characters of a monitor name shown in a log line; a longer one is cut and ends with `…`. */
const LOGGED_NAME_CHARS = 80;

/**
 * A monitor name for a log line: cut to LOGGED_NAME_CHARS and quoted as a JSON string, so quotes,
 * line breaks and control characters in a user-chosen name cannot forge or break a line.
 */
export function loggedName(name: string): string {
  const chars = Array.from(name);
  const shown = chars.length > LOGGED_NAME_CHARS ? `${chars.slice(0, LOGGED_NAME_CHARS - 1).join('')}…` : name;
  return JSON.stringify(shown);
}

/**
 * The record-transition stage: a status change decided by evaluation is written with its
 * incident and outbox rows in one transaction (TransitionWriter, through the recorder that holds
 * it through a database outage), fenced by the partition lease held when it was decided, and
 * then becomes the roster's status.
 */
@Injectable()
export class TransitionStage {
  private readonly logger = new Logger('Transitions');

  constructor(
    private readonly recorder: TransitionRecorder,
    private readonly partitions: PartitionManager,
    private readonly roster: MonitorRoster,
    private readonly evidence: Evidence,
    private readonly metrics: CoordinatorMetrics,
    private readonly feed: StatusFeed,
  ) {}

  /** The evaluator's save: `events` is often empty (only counters moved), then nothing is written. */
  async record(monitorId: string, state: MonitorState, events: readonly MonitorEvent[]): Promise<void> {
    const monitor = this.roster.get(monitorId);
    if (!monitor) return;
    // Written only while this replica still holds the partition it held when deciding.
    const generation = this.partitions.generationOf(monitorId);
    for (const event of events) {
      // Written now, or held through a database outage and written in order when it returns.
      await this.recorder.record({
        monitorId,
        fence: (m) => this.partitions.fence(m, monitorId, generation),
        status: event.to,
        changedAt: state.lastChange,
        reason: event.to === 'down' ? this.evidence.errorOf(monitorId, event.region) : null,
        evidence: this.evidence.of(monitorId),
      });
      this.roster.recordStatus(monitorId, event.to, state.lastChange);
      this.feed.publish({ accountId: monitor.accountId, monitorId, status: event.to, changedAt: state.lastChange });
      this.metrics.recordStatusChange(event.to);
      this.logger.log(
        `monitor ${monitorId} ${loggedName(monitor.name)} is ${event.to} (${event.region}, was ${event.from})`,
      );
    }
  }
}
