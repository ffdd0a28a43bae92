import { Inject, Injectable } from '@nestjs/common';
import { isDecided, isProbedType, type ProbeResult } from '#contracts';
import { CLOCK, type Clock } from '#runtime';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { Confirmations } from '../scheduling/confirmations.js';
import { MonitorRoster } from '../scheduling/monitor-roster.js';
import { TransitionStage } from '../transitions/transition.stage.js';
import { Evaluator, type Submission } from './evaluator.js';

/**
 * The evaluate stage: one writer per monitor (Evaluator over the pure `evaluate`). It starts
 * from the roster's status, hands every applied state to the transition stage, and asks for a
 * confirmation check when a DOWN is below the threshold.
 */
@Injectable()
export class StatusEvaluation {
  private readonly evaluator: Evaluator;

  constructor(
    private readonly roster: MonitorRoster,
    transitions: TransitionStage,
    confirmations: Confirmations,
    private readonly metrics: CoordinatorMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.evaluator = new Evaluator({
      load: (id) => Promise.resolve(roster.stateOf(id)),
      save: (id, state, events) => transitions.record(id, state, events),
      confirm: (id, afterRegionIndex) => confirmations.request(id, afterRegionIndex),
    });
    roster.onChange((change) => {
      if (change.kind === 'untracked') this.evaluator.forget(change.monitorId);
    });
  }

  /** Evaluates `result` of the monitor (checked from rotation position `regionIndex`). */
  async submit(monitorId: string, regionIndex: number, result: ProbeResult): Promise<Submission> {
    const monitor = this.roster.get(monitorId);
    if (!monitor) return { applied: false, reason: 'missing' };
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
}
