import { describe, expect, it } from '@jest/globals';
import { createRegistry, ManualClock } from '#runtime';
import { probeResult } from '../../../../test/support/check-results.js';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { Confirmations } from '../scheduling/confirmations.js';
import { ManualTimers } from '../scheduling/timers.js';
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
  const clock = new ManualClock(T);
  const timers = new ManualTimers(clock);
  const evaluation = new StatusEvaluation(roster, transitions, confirmations, metrics, clock, timers);
  return { evaluation, saved, asked, roster, metrics, clock, timers };
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

  describe('in a maintenance window (docs/decisions/0026-maintenance-windows.md)', () => {
    const cover = { endsAt: T / 1000 + 600, windowId: 'bbbbbbbbbbbbbbbbbbbbbb01' };

    it('evaluates nothing while covered: no change however many DOWNs, and no confirmation', async () => {
      const s = setup();
      for (let i = 0; i < 5; i++) {
        const r = await s.evaluation.submit(A, i % 2, probeResult(A, 'eu-west-1', 'down', null, T - 5000 + i), cover);
        expect(r).toEqual({ applied: false, reason: 'maintenance' });
      }
      expect(s.saved).toEqual([]);
      expect(s.asked).toEqual([]);
      expect(s.timers.active).toBe(1);
    });

    it('when the window ends still down, checks at once and counts afresh: a new outage at the threshold', async () => {
      const s = setup();
      // One DOWN before the window (1 of 2), then DOWNs in it: the count starts again after it.
      await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'down', null, T - 9000));
      await s.evaluation.submit(A, 1, probeResult(A, 'us-east-1', 'down', null, T - 8000), cover);
      s.asked.length = 0;
      s.timers.advance(599_000);
      expect(s.asked).toEqual([]);
      s.timers.advance(1_000);
      expect(s.asked).toEqual([[A, 1]]);
      expect(s.evaluation.waitingForWindows).toBe(0);
      const first = await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'down', null, T + 600_000));
      expect(first.applied && first.events).toEqual([]);
      const second = await s.evaluation.submit(A, 1, probeResult(A, 'us-east-1', 'down', null, T + 600_100));
      expect(second.applied && second.events).toEqual([expect.objectContaining({ from: 'up', to: 'down' })]);
    });

    it('when the window ends up, nothing is checked out of turn', async () => {
      const s = setup();
      await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'down', null, T - 9000), cover);
      await s.evaluation.submit(A, 1, probeResult(A, 'us-east-1', 'up', 20, T - 8000), cover);
      await s.evaluation.submit(A, 2, probeResult(A, 'us-east-1', 'unknown', null, T - 7000), cover);
      s.timers.advance(600_000);
      expect(s.asked).toEqual([]);
      expect(s.saved).toEqual([]);
    });

    it('stopping the process clears the window-end timers', async () => {
      const s = setup();
      await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'down', null, T - 9000), cover);
      expect(s.timers.active).toBe(1);
      s.evaluation.onModuleDestroy();
      expect(s.timers.active).toBe(0);
      expect(s.evaluation.waitingForWindows).toBe(0);
    });

    it('resumes a window after a restart: waits for its end under it, checks a DOWN at once past it', () => {
      const under = setup();
      under.evaluation.resumeWindow(A, cover, true, 1);
      expect(under.evaluation.waitingForWindows).toBe(1);
      under.timers.advance(599_000);
      expect(under.asked).toEqual([]);
      under.timers.advance(1_000);
      expect(under.asked).toEqual([[A, 1]]);

      const past = setup();
      past.evaluation.resumeWindow(A, null, true, 2);
      expect(past.asked).toEqual([[A, 2]]);
      past.evaluation.resumeWindow(A, null, false, 0);
      expect(past.asked).toHaveLength(1);
    });

    it('a result taken here before the lookup answered wins over the resumed window', async () => {
      const s = setup();
      await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'up', 20, T - 1000), cover);
      s.evaluation.resumeWindow(A, { ...cover, endsAt: cover.endsAt - 300 }, true, 1);
      s.timers.advance(600_000);
      expect(s.asked).toEqual([]);
    });

    it('a monitor deleted in the window is not checked at its end', async () => {
      const s = setup();
      await s.evaluation.submit(A, 0, probeResult(A, 'eu-west-1', 'down', null, T - 9000), cover);
      s.roster.apply({ kind: 'deleted', monitorId: A });
      expect(s.timers.active).toBe(0);
      s.timers.advance(600_000);
      expect(s.asked).toEqual([]);
    });
  });
});
