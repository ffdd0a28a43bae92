import { evaluate, type CheckOutcome, type IgnoredBecause, type MonitorEvent, type MonitorState } from './status.js';

/** A result handed to the evaluator: the outcome plus where its region sat in the rotation. */
export interface SubmittedResult extends CheckOutcome {
  /** DueCheck.regionIndex of the check: the rotation position a confirmation continues from. */
  readonly regionIndex: number;
}

export interface EvaluatorPorts {
  /** The monitor's state as the last save left it, or null when the monitor no longer exists. */
  load(monitorId: string): Promise<MonitorState | null>;
  /**
   * Commits a new state with the events it produced (status, last change, outbox rows: one
   * transaction), and keeps the state for the next load. Called once per applied result, in
   * order; `events` is often empty (the state moved only in its counters). Evaluation of this
   * monitor waits for it; a rejection fails that submission, and the state is loaded again for
   * the next one.
   */
  save(monitorId: string, state: MonitorState, events: readonly MonitorEvent[]): Promise<void>;
  /** The kept state's run of DOWNs starts again from zero; its status stays. */
  restartCount(monitorId: string): void;
  /** Ask for the region after `afterRegionIndex` to check now (Scheduler.confirmNow). */
  confirm(monitorId: string, afterRegionIndex: number): void;
}

export type Submission =
  | {
      readonly applied: true;
      readonly state: MonitorState;
      readonly events: readonly MonitorEvent[];
      readonly confirmed: boolean;
    }
  | { readonly applied: false; readonly reason: IgnoredBecause | 'missing' | 'forgotten' | 'maintenance' };

const SETTLED: Promise<void> = Promise.resolve();

/** Per-monitor queue while evaluations of the monitor are under way: their tail, and the state once loaded. */
interface Lane {
  tail: Promise<void>;
  state: MonitorState | undefined;
  /** Bumped by forget(): evaluations queued before it are dropped. */
  epoch: number;
  queued: number;
}

/**
 * One writer per monitor: results of one monitor are evaluated one at a time, in the order
 * they were submitted, each seeing the state the previous one saved; different monitors
 * proceed concurrently. A monitor's state is loaded when its first result of a run arrives and
 * kept while more are queued; once none is, the ports hold it, and the evaluator nothing
 * (docs/decisions/0046-exact-arrays-and-fewer-sets-per-monitor.md: a lane and a state object
 * per monitor were 15 MB of heap at 100,000 monitors).
 */
export class Evaluator {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly ports: EvaluatorPorts) {}

  /** Monitors with evaluations in flight. */
  get size(): number {
    return this.lanes.size;
  }

  /**
   * Queues a result of `monitorId` for evaluation against `failThreshold` (the monitor's
   * fail_threshold now). Resolves once it is applied and saved, or ignored.
   */
  submit(monitorId: string, result: SubmittedResult, failThreshold: number): Promise<Submission> {
    let lane = this.lanes.get(monitorId);
    if (!lane) {
      lane = { tail: SETTLED, state: undefined, epoch: 0, queued: 0 };
      this.lanes.set(monitorId, lane);
    }
    const current = lane;
    const epoch = current.epoch;
    current.queued++;
    const run = current.tail.then(() => this.apply(monitorId, current, epoch, result, failThreshold));
    current.tail = run.then(
      () => this.settled(monitorId, current),
      () => this.settled(monitorId, current),
    );
    return run;
  }

  /**
   * The run of DOWNs starts again from zero (a result taken in maintenance: after the window the
   * monitor is evaluated afresh, docs/decisions/0026-maintenance-windows.md). The status stays.
   */
  restartCount(monitorId: string): void {
    const lane = this.lanes.get(monitorId);
    if (lane?.state && lane.state.consecutiveDown > 0) lane.state = { ...lane.state, consecutiveDown: 0 };
    this.ports.restartCount(monitorId);
  }

  /**
   * Drops a deleted monitor: its state is forgotten and its queued evaluations are not
   * applied (they resolve as `forgotten`). A later submission starts from `load` again.
   */
  forget(monitorId: string): void {
    const lane = this.lanes.get(monitorId);
    if (!lane) return;
    lane.epoch++;
    lane.state = undefined;
    if (lane.queued === 0) this.lanes.delete(monitorId);
  }

  private async apply(
    monitorId: string,
    lane: Lane,
    epoch: number,
    result: SubmittedResult,
    failThreshold: number,
  ): Promise<Submission> {
    if (lane.epoch !== epoch) return { applied: false, reason: 'forgotten' };
    let state = lane.state;
    if (!state) {
      const loaded = await this.ports.load(monitorId);
      if (lane.epoch !== epoch) return { applied: false, reason: 'forgotten' };
      if (!loaded) return { applied: false, reason: 'missing' };
      state = lane.state = loaded;
    }
    const evaluation = evaluate(state, result, failThreshold);
    if (evaluation.ignored) return { applied: false, reason: evaluation.ignored };
    try {
      await this.ports.save(monitorId, evaluation.state, evaluation.events);
    } catch (error) {
      // The save may or may not have committed: reload before the next evaluation.
      if (lane.epoch === epoch) lane.state = undefined;
      throw error;
    }
    if (lane.epoch !== epoch) return { applied: false, reason: 'forgotten' };
    lane.state = evaluation.state;
    if (evaluation.confirm) this.ports.confirm(monitorId, result.regionIndex);
    return { applied: true, state: evaluation.state, events: evaluation.events, confirmed: evaluation.confirm };
  }

  private settled(monitorId: string, lane: Lane): void {
    lane.queued--;
    if (lane.queued > 0) return;
    // Idle: the ports hold its state until the next result.
    if (this.lanes.get(monitorId) === lane) this.lanes.delete(monitorId);
  }
}
