import { Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { within } from '#runtime';
import type { CoordinatorConfig } from '../config.js';
import { isDependencyOutage } from '../http/error.filter.js';
import { LeaseLostError, type TransitionInput, type TransitionWriter } from './transition.writer.js';

/** First wait before writing held status changes again; doubled per failure up to the maximum. */
export const TRANSITION_RETRY_MIN_MS = 250;
export const TRANSITION_RETRY_MAX_MS = 5000;
/** A held change that fails this many times for a reason other than an outage is dropped (a bug: logged). */
const MAX_OTHER_FAILURES = 3;

export interface TransitionRecorderPorts {
  write(transition: TransitionInput): Promise<void>;
  /** How many changes may be held; past it the oldest are dropped. */
  capacity: number;
  retryMinMs?: number;
  retryMaxMs?: number;
  /** How long a stopping process waits for held changes to be written. */
  stopGraceMs?: number;
}

/** The recorder as the coordinator wires it: the writer and OUTAGE_BUFFER_TRANSITIONS. */
export function transitionRecorderFor(writer: TransitionWriter, config: CoordinatorConfig): TransitionRecorder {
  return new TransitionRecorder({
    write: (t) => writer.write(t),
    capacity: config.OUTAGE_BUFFER_TRANSITIONS,
  });
}

/**
 * Writes monitors' status changes (TransitionWriter: status, incident and
 * notifications in one transaction), and holds them in memory while the database is
 * unreachable instead of losing them (docs/decisions/0001-truth-when-blind.md). Held changes
 * are written in the order they were decided, with retries, as soon as the database answers;
 * while any is held, new ones queue behind it, so one monitor's changes never overtake each
 * other. Each keeps its own fence (written only if this replica still holds the monitor's
 * partition): a change decided by a replica that lost its partition meanwhile is dropped.
 *
 * `record` resolves once the change is written or held: the caller (evaluation) goes on with
 * the new state either way. A change held when the process stops is lost, and logged.
 */
export class TransitionRecorder implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Transitions');
  private readonly queue: TransitionInput[] = [];
  private draining: Promise<void> | null = null;
  private outageLogged = false;
  private readonly dropListeners: ((count: number) => void)[] = [];

  constructor(private readonly ports: TransitionRecorderPorts) {}

  /** Called with the number of changes dropped (buffer full, or a change that cannot be written). */
  onDropped(listener: (count: number) => void): void {
    this.dropListeners.push(listener);
  }

  /** Changes held, waiting for the database. */
  get pending(): number {
    return this.queue.length;
  }

  async record(transition: TransitionInput): Promise<void> {
    if (this.queue.length === 0) {
      try {
        await this.ports.write(transition);
        return;
      } catch (error) {
        if (!isDependencyOutage(error)) throw error;
      }
    }
    this.hold(transition);
  }

  /** Resolves when nothing is held (or at once); for shutdown and tests. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** At shutdown: waits a little for held changes (the database may be back); what is still held is lost, and logged. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.pending === 0) return;
    await within(this.idle(), this.ports.stopGraceMs ?? 5000, undefined);
    if (this.pending > 0) {
      this.logger.error(`${this.pending} held status changes are lost: the database did not answer before the stop`);
    }
  }

  private dropped(count: number): void {
    for (const listener of this.dropListeners) listener(count);
  }

  private hold(transition: TransitionInput): void {
    this.queue.push(transition);
    const excess = this.queue.length - this.ports.capacity;
    if (excess > 0) {
      const dropped = this.queue.splice(0, excess);
      this.dropped(dropped.length);
      this.logger.error(
        `dropped ${dropped.length} held status changes (more than ${this.ports.capacity} waiting; ` +
          `OUTAGE_BUFFER_TRANSITIONS): ${dropped.map((t) => `${t.monitorId} ${t.status}`).join(', ')}`,
      );
    }
    if (!this.outageLogged) {
      this.outageLogged = true;
      this.logger.warn('database unreachable: status changes are held in memory and written when it answers');
    }
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
  }

  private async drain(): Promise<void> {
    const min = this.ports.retryMinMs ?? TRANSITION_RETRY_MIN_MS;
    const max = this.ports.retryMaxMs ?? TRANSITION_RETRY_MAX_MS;
    let delay = min;
    let otherFailures = 0;
    let written = 0;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      try {
        await this.ports.write(head);
        this.queue.shift();
        written++;
        delay = min;
        otherFailures = 0;
        continue;
      } catch (error) {
        if (error instanceof LeaseLostError) {
          this.queue.shift();
          this.logger.warn(`held status change of ${head.monitorId} (${head.status}) not written: ${error.message}`);
          continue;
        }
        if (!isDependencyOutage(error) && ++otherFailures >= MAX_OTHER_FAILURES) {
          this.queue.shift();
          otherFailures = 0;
          this.dropped(1);
          this.logger.error(`held status change of ${head.monitorId} (${head.status}) dropped: ${String(error)}`);
          continue;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, delay).unref());
      delay = Math.min(max, delay * 2);
    }
    if (written > 0) this.logger.log(`wrote ${written} status changes held through a database outage`);
    this.outageLogged = false;
  }
}
