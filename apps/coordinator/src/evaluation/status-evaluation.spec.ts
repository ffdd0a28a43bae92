import { describe, expect, it } from '@jest/globals';
import { createRegistry, ManualClock } from '#runtime';
import { probeResult } from '../../../../test/support/check-results.js';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { Confirmations } from '../scheduling/confirmations.js';
import type { TransitionStage } from '../transitions/transition.stage.js';
import type { MonitorEvent, MonitorState } from './status.js';
import { StatusEvaluation } from './status-evaluation.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaa01';
const T = Date.UTC(2026, 0, 1, 12);

function setup() {
  const saved: { id: string; state: MonitorState; events: readonly MonitorEvent[] }[] = [];
  const confirmations = new Confirmations();
  const asked: [string, number][] = [];
  confirmations.serve((id, after) => asked.push([id, after]));
  const { roster } = rosterWith(monitorEntity(A, { lastStatus: 'up', failThreshold: 2 }));
  const metrics = new CoordinatorMetrics(createRegistry());
  const transitions = {
    record: (id: string, state: MonitorState, events: readonly MonitorEvent[]) => {
      saved.push({ id, state, events });
      return Promise.resolve();
    },
  } as unknown as TransitionStage;
  const evaluation = new StatusEvaluation(roster, transitions, confirmations, metrics, new ManualClock(T));
  return { evaluation, saved, asked, roster, metrics };
}

describe('StatusEvaluation (the evaluate stage)', () => {
  it("starts from the roster's status, asks to confirm a DOWN below the threshold, and hands the change on at the threshold", async () => {
    const s = setup();
    await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'down', null, T - 2000));
    expect(s.asked).toEqual([[A, 0]]);
    expect(s.saved.at(-1)?.events).toEqual([]);
    await s.evaluation.submit(A, 1, probeResult(A, 'us-east-1', 'down', null, T - 1000));
    expect(s.saved.at(-1)?.events).toEqual([expect.objectContaining({ from: 'up', to: 'down', region: 'us-east-1' })]);
  });

  it('counts a late UP or DOWN (older than the newest applied) and does not apply it', async () => {
    const s = setup();
    await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'up', 20, T - 1000));
    const late = await s.evaluation.submit(A, 1, probeResult(A, 'us-east-1', 'down', null, T - 5000));
    expect(late).toEqual({ applied: false, reason: 'out_of_order' });
    expect(await s.metrics.registry.metrics()).toMatch(
      /^picket_results_late_total\{region="us-east-1",status="down"\} 1$/m,
    );
  });

  it('forgets a monitor the roster dropped', async () => {
    const s = setup();
    s.roster.apply({ kind: 'deleted', monitorId: A });
    expect(await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'down', null))).toEqual({
      applied: false,
      reason: 'missing',
    });
    expect(s.saved).toEqual([]);
  });
});
