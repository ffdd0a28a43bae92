import { describe, expect, it } from '@jest/globals';
import { createRegistry, ManualClock } from '#runtime';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import type { CheckDispatch } from '../probing/check-dispatch.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { createCheckScheduler } from './check-scheduler.js';
import { Confirmations } from './confirmations.js';
import type { DueCheck } from './scheduler.js';
import { ManualTimers } from './timers.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaa01';

function wired(send?: (due: DueCheck) => void) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const timers = new ManualTimers(clock);
  const { roster } = rosterWith();
  const confirmations = new Confirmations();
  const sent: DueCheck[] = [];
  const dispatch = { send: send ?? ((due: DueCheck) => sent.push(due)) } as unknown as CheckDispatch;
  const metrics = new CoordinatorMetrics(createRegistry());
  const scheduler = createCheckScheduler({ clock, timers, metrics, roster, confirmations, dispatch });
  scheduler.start();
  return { clock, timers, roster, confirmations, sent, scheduler, metrics };
}

describe('createCheckScheduler (the schedule stage, wired)', () => {
  it('plans what the roster tracks, one check per region per interval, handed to dispatch', () => {
    const { timers, roster, sent } = wired();
    roster.apply({
      kind: 'saved',
      monitor: monitorEntity(A, { checkInterval: 60, regions: ['eu-west-1', 'us-east-1'] }),
    });
    timers.advance(120_000);
    expect(sent.filter((d) => d.region === 'eu-west-1')).toHaveLength(2);
    expect(sent.filter((d) => d.region === 'us-east-1')).toHaveLength(2);
    expect(sent.every((d) => d.monitorId === A && !d.confirmation)).toBe(true);
  });

  it('stops planning a monitor the roster no longer tracks', () => {
    const { timers, roster, sent } = wired();
    roster.apply({ kind: 'saved', monitor: monitorEntity(A) });
    roster.apply({ kind: 'deleted', monitorId: A });
    timers.advance(600_000);
    expect(sent).toEqual([]);
  });

  it('serves a confirmation request with the next region, now', () => {
    const { clock, timers, roster, confirmations, sent } = wired();
    roster.apply({
      kind: 'saved',
      monitor: monitorEntity(A, { checkInterval: 3600, regions: ['eu-west-1', 'us-east-1'] }),
    });
    confirmations.request(A, 0);
    timers.advance(0);
    expect(sent).toEqual([
      expect.objectContaining({ monitorId: A, region: 'us-east-1', confirmation: true, scheduledAt: clock.now() }),
    ]);
  });

  it('counts a dispatch that throws and keeps scheduling', async () => {
    const { timers, roster, metrics } = wired(() => {
      throw new Error('boom');
    });
    roster.apply({ kind: 'saved', monitor: monitorEntity(A, { checkInterval: 60, regions: ['eu-west-1'] }) });
    timers.advance(120_000);
    expect(await metrics.registry.metrics()).toMatch(/^picket_dispatch_errors_total\{reason="internal"\} 2$/m);
  });
});
