import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { isDecided, isProbedType, type ProbeResult } from '#contracts';
import { CLOCK, type Clock } from '#runtime';
import type { Cover } from '../maintenance/maintenance-calendar.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { Confirmations } from '../scheduling/confirmations.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { TIMERS, type TimerHandle, type Timers } from '../scheduling/timers.js';
import { TransitionStage } from '../transitions/transition.stage.js';
import { Evaluator, type Submission } from './evaluator.js';

/**
 * The evaluate stage: one writer per monitor (Evaluator over the pure `evaluate`). It starts
 * from the roster's status, hands every applied state to the transition stage, and asks for a
 * confirmation check when a DOWN is below the threshold.
 *
 * A result taken while a maintenance window covers the monitor is not evaluated: the status
 * stays, no incident opens, nobody is told, and the run of DOWNs starts again from zero. When
 * the window ends (a timer on the injected clock), a monitor whose last result in it was DOWN is
 * checked again at once, and that result is evaluated afresh: at `fail_threshold` it is a new
 * outage, with its incident and notifications (docs/decisions/0026-maintenance-windows.md).
 */
@Injectable()
export class StatusEvaluation implements OnModuleDestroy {
  private readonly evaluator: Evaluator;
  /** Monitors seen in maintenance: when their window ends, and their last result in it. */
  private readonly inWindow = new Map<
    string,
    { endsAt: number; down: boolean; regionIndex: number; timer: TimerHandle }
  >();

  constructor(
    private readonly roster: MonitorRoster,
    transitions: TransitionStage,
    private readonly confirmations: Confirmations,
    private readonly metrics: CoordinatorMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TIMERS) private readonly timers: Timers,
  ) {
    // The roster keeps each monitor's state between results (the evaluator only while it works).
    this.evaluator = new Evaluator({
      load: (id) => Promise.resolve(roster.stateOf(id)),
      save: async (id, state, events) => {
        await transitions.record(id, state, events);
        roster.recordEvaluated(id, state);
      },
      restartCount: (id) => roster.restartCount(id),
      confirm: (id, afterRegionIndex) => confirmations.request(id, afterRegionIndex),
    });
    roster.onChange((change) => {
      if (change.kind === 'untracked') {
        this.evaluator.forget(change.monitorId);
        this.leaveWindow(change.monitorId);
      }
    });
  }

  /** No window-end timer outlives the process's modules. */
  onModuleDestroy(): void {
    for (const monitorId of [...this.inWindow.keys()]) this.leaveWindow(monitorId);
  }

  /** Monitors waiting for the end of a maintenance window. */
  get waitingForWindows(): number {
    return this.inWindow.size;
  }

  /**
   * Evaluates `result` of the monitor (checked from rotation position `regionIndex`); `cover`:
   * the maintenance window covering the monitor when the result arrived, if any.
   */
  async submit(
    monitorId: string,
    regionIndex: number,
    result: ProbeResult,
    cover: Cover | null = null,
  ): Promise<Submission> {
    const monitor = this.roster.get(monitorId);
    if (!monitor) return { applied: false, reason: 'missing' };
    if (cover !== null) {
      this.evaluator.restartCount(monitorId);
      this.enterWindow(monitorId, cover.endsAt, regionIndex, result);
      return { applied: false, reason: 'maintenance' };
    }
    const submitted = await this.evaluator.submit(
      monitorId,
      {
        status: result.status,
        scheduledAt: result.scheduled_at,
        checkedAt: this.clock.now(),
        region: result.region,
        regionIndex,
      },
      // A heartbeat's DOWN (a reported failure, a missed deadline) is already confirmed: down at once
      // (docs/decisions/0027-heartbeat-monitors.md); fail_threshold is for probes.
      isProbedType(monitor.monitorType) ? monitor.failThreshold : 1,
    );
    if (!submitted.applied && submitted.reason === 'out_of_order' && isDecided(result.status)) {
      this.metrics.recordLate(result.region, result.status);
    }
    return submitted;
  }

  /**
   * After a restart or a handover (window-resume.ts): the monitor's newest decided result stored
   * was taken in maintenance, DOWN or not, from rotation position `regionIndex`. Under the window
   * still (`cover`), its end is awaited as if that result had just arrived here; past it, a DOWN is
   * checked again at once. Nothing happens when a result taken here got there first.
   */
  resumeWindow(monitorId: string, cover: Cover | null, down: boolean, regionIndex: number): void {
    if (this.inWindow.has(monitorId) || !this.roster.owns(monitorId)) return;
    if (cover !== null) this.wait(monitorId, cover.endsAt, down, regionIndex);
    else if (down) this.confirmations.request(monitorId, regionIndex);
  }

  private enterWindow(monitorId: string, endsAt: number, regionIndex: number, result: ProbeResult): void {
    const known = this.inWindow.get(monitorId);
    const decided = isDecided(result.status);
    const down = decided ? result.status === 'down' : (known?.down ?? false);
    if (known && known.endsAt === endsAt) {
      if (decided) Object.assign(known, { down, regionIndex });
      return;
    }
    if (known) this.timers.clear(known.timer);
    this.wait(monitorId, endsAt, down, regionIndex);
  }

  private wait(monitorId: string, endsAt: number, down: boolean, regionIndex: number): void {
    const timer = this.timers.set(() => this.windowEnded(monitorId), endsAt * 1000 - this.clock.now());
    this.inWindow.set(monitorId, { endsAt, down, regionIndex, timer });
  }

  private windowEnded(monitorId: string): void {
    const entry = this.inWindow.get(monitorId);
    this.inWindow.delete(monitorId);
    // Still down as far as the window saw: check now, and evaluate that result afresh.
    if (entry?.down && this.roster.get(monitorId)) this.confirmations.request(monitorId, entry.regionIndex);
  }

  private leaveWindow(monitorId: string): void {
    const entry = this.inWindow.get(monitorId);
    if (entry) this.timers.clear(entry.timer);
    this.inWindow.delete(monitorId);
  }
}
