import { describe, expect, it } from '@jest/globals';
import type { ProbeResult } from '#contracts';
import { ManualClock } from '#runtime';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import type { CoordinatorConfig } from '../config.js';
import type { ResultIngest } from '../evaluation/result-ingest.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import { ManualTimers } from '../scheduling/timers.js';
import { HEARTBEAT_SWEEP_MS, HeartbeatWatch } from './heartbeat-watch.js';

const CREATED = 1_800_000_000;
const HB = 'a'.repeat(24);
const PROBED = 'b'.repeat(24);

/** A watch over a real roster with fake leases and table; ingestion records what it is given (and the last check, as the real one does). */
function setup(...extra: MonitorEntity[]) {
  const heartbeat = monitorEntity(HB, {
    monitorType: 'heartbeat',
    settings: { period: 60, grace: 60 },
    regions: [],
    createdAt: CREATED,
    lastStatus: 'up',
  });
  const probed = monitorEntity(PROBED, { createdAt: CREATED });
  const fakes = rosterWith(heartbeat, probed, ...extra);
  const clock = new ManualClock(CREATED * 1000);
  const timers = new ManualTimers(clock);
  const accepted: ProbeResult[] = [];
  const ingest = {
    accept: (monitor: MonitorEntity, _due: unknown, result: ProbeResult) => {
      accepted.push(result);
      fakes.roster.recordChecked(monitor.id, Math.floor(clock.now() / 1000));
      return Promise.resolve();
    },
  } as unknown as ResultIngest;
  const config = { CHECKS_ENABLED: 'true' } as CoordinatorConfig;
  const watch = new HeartbeatWatch(fakes.roster, fakes.table.asRepository(), ingest, config, clock, timers);
  // Tracked again now that the watch listens (in the app it exists before the roster adopts anything).
  for (const monitor of [heartbeat, probed, ...extra]) fakes.roster.apply({ kind: 'saved', monitor: { ...monitor } });
  return { ...fakes, clock, timers, accepted, watch };
}

describe('HeartbeatWatch', () => {
  it('watches heartbeat monitors only', () => {
    expect(setup().watch.size).toBe(1);
  });

  it('records nothing before period + grace, then one DOWN result dated at the deadline', async () => {
    const { clock, accepted, watch } = setup();
    clock.set((CREATED + 119) * 1000);
    await watch.sweep();
    expect(accepted).toEqual([]);
    clock.set((CREATED + 125) * 1000);
    await watch.sweep();
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({
      monitor_id: HB,
      region: 'heartbeat',
      status: 'down',
      phase: 'timeout',
      error: 'no ping for 2 min 5 s',
      scheduled_at: (CREATED + 120) * 1000,
    });
    // The miss is the newest result: the next one comes period + grace later.
    await watch.sweep();
    clock.set((CREATED + 125 + 119) * 1000);
    await watch.sweep();
    expect(accepted).toHaveLength(1);
    clock.set((CREATED + 125 + 120) * 1000);
    await watch.sweep();
    expect(accepted).toHaveLength(2);
  });

  it('counts from the newest result, and believes the database when it knows a newer one (a ping taken elsewhere)', async () => {
    const { clock, accepted, watch, table, roster } = setup();
    roster.recordChecked(HB, CREATED + 100);
    clock.set((CREATED + 200) * 1000);
    await watch.sweep();
    expect(accepted).toEqual([]);
    // Another replica stored a ping at +210 that never reached this one.
    table.put({ ...table.rows.get(HB)!, lastCheckedAt: CREATED + 210 });
    clock.set((CREATED + 221) * 1000);
    await watch.sweep();
    expect(accepted).toEqual([]);
    expect(roster.get(HB)?.lastCheckedAt).toBe(CREATED + 210);
    clock.set((CREATED + 330) * 1000);
    await watch.sweep();
    expect(accepted.map((r) => r.scheduled_at)).toEqual([(CREATED + 330) * 1000]);
  });

  it('leaves a heartbeat whose partition this replica lost, or that was deleted meanwhile', async () => {
    const { clock, accepted, watch, partitions, table } = setup();
    partitions.lost.add(HB);
    clock.set((CREATED + 1000) * 1000);
    await watch.sweep();
    expect(accepted).toEqual([]);
    partitions.lost.delete(HB);
    table.rows.delete(HB);
    await watch.sweep();
    expect(accepted).toEqual([]);
  });

  it('sweeps on its own timer once started, and stops with the module', async () => {
    const { clock, timers, accepted, watch } = setup();
    watch.onApplicationBootstrap();
    clock.set((CREATED + 120) * 1000);
    timers.advance(HEARTBEAT_SWEEP_MS);
    await new Promise((resolve) => setImmediate(resolve));
    expect(accepted).toHaveLength(1);
    watch.onModuleDestroy();
    expect(timers.active).toBe(0);
  });
});
