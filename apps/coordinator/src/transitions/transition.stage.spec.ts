import { afterEach, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createRegistry } from '#runtime';
import { probeResult } from '../../../../test/support/check-results.js';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import { CapturingLogger } from '../../../../test/support/coordinator.js';
import { Evidence } from '../evaluation/evidence.js';
import type { MonitorState, StatusChangedEvent } from '../evaluation/status.js';
import { loadCoordinatorConfig } from '../config.js';
import { StatusFeed, type StatusChange } from '../live/status-feed.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { Readiness } from '../health/readiness.service.js';
import { TransitionRecorder } from './transition-recorder.js';
import { TransitionStage } from './transition.stage.js';
import type { TransitionInput } from './transition.writer.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaa01';
const down: MonitorState = { status: 'down', consecutiveDown: 2, lastChange: 1_767_268_800, lastScheduledAt: 2 };
const wentDown = (region: StatusChangedEvent['region']): StatusChangedEvent => ({
  type: 'status_changed',
  from: 'up',
  to: 'down',
  at: down.lastChange,
  region,
  scheduledAt: 2,
});

function setup(name = `monitor ${A}`) {
  const written: TransitionInput[] = [];
  const recorder = new TransitionRecorder({
    write: (t) => {
      written.push(t);
      return Promise.resolve();
    },
    capacity: 10,
  });
  const { roster, partitions } = rosterWith(monitorEntity(A, { lastStatus: 'up', name }));
  const evidence = new Evidence(roster);
  const metrics = new CoordinatorMetrics(createRegistry());
  // The live feed without NATS: what this replica's streams of the monitor's account hear.
  const feed = new StatusFeed(null, loadCoordinatorConfig({}), new Readiness());
  const heard: StatusChange[] = [];
  feed.subscribe(monitorEntity(A).accountId, { change: (c) => heard.push(c), end: () => undefined });
  const stage = new TransitionStage(recorder, partitions.asManager(), roster, evidence, metrics, feed);
  return { stage, written, roster, partitions, evidence, metrics, heard };
}

describe('TransitionStage (the record-transition stage)', () => {
  it("writes a change with the deciding region's error as reason and every region's latest result as evidence", async () => {
    const s = setup();
    s.evidence.record(probeResult(A, 'eu-west-1', 'up', 12));
    s.evidence.record({ ...probeResult(A, 'us-east-1', 'down', null), error: 'connect ECONNREFUSED' });
    await s.stage.record(A, down, [wentDown('us-east-1')]);
    expect(s.written).toHaveLength(1);
    expect(s.written[0]).toMatchObject({
      monitorId: A,
      status: 'down',
      changedAt: down.lastChange,
      reason: 'connect ECONNREFUSED',
    });
    expect(Object.keys(s.written[0]!.evidence).sort()).toEqual(['eu-west-1', 'us-east-1']);
    expect(s.roster.get(A)).toMatchObject({ lastStatus: 'down', lastStatusChange: down.lastChange });
    expect(await s.metrics.registry.metrics()).toMatch(/^picket_status_changes_total\{to="down"\} 1$/m);
    expect(s.heard).toEqual([
      { accountId: monitorEntity(A).accountId, monitorId: A, status: 'down', changedAt: down.lastChange },
    ]);
  });

  it('fences the write with the partition generation held when the change was decided', async () => {
    const s = setup();
    s.partitions.generation = 7;
    await s.stage.record(A, down, [wentDown('eu-west-1')]);
    s.partitions.generation = 8;
    await s.written[0]!.fence!({} as never);
    expect(s.partitions.fenced).toEqual([{ monitorId: A, generation: 7 }]);
  });

  it('writes nothing when only counters moved, or for a monitor not checked here', async () => {
    const s = setup();
    await s.stage.record(A, { ...down, status: 'up' }, []);
    await s.stage.record('bbbbbbbbbbbbbbbbbbbbbbbb', down, [wentDown('eu-west-1')]);
    expect(s.written).toEqual([]);
    expect(s.roster.get(A)?.lastStatus).toBe('up');
  });

  describe('the status-change log line', () => {
    afterEach(() => {
      Logger.overrideLogger(false);
    });

    async function lineFor(name: string): Promise<string> {
      const logger = new CapturingLogger();
      Logger.overrideLogger(logger);
      const s = setup(name);
      await s.stage.record(A, down, [wentDown('us-east-1')]);
      const lines = logger.lines.filter((line) => line.includes(A));
      expect(lines).toHaveLength(1);
      return lines[0]!;
    }

    it('names the monitor, quoted, beside its id', async () => {
      expect(await lineFor('Checkout API')).toContain(`monitor ${A} "Checkout API" is down (us-east-1, was up)`);
    });

    it('bounds a long name and escapes quotes and control characters, so the line stays one line', async () => {
      const line = await lineFor(`${'x'.repeat(300)}"\n\u001b[31mforged`);
      expect(line).not.toContain('\n');
      expect(line).not.toContain('\u001b');
      expect(line).toContain(`monitor ${A} "${'x'.repeat(79)}…" is down`);
      const quoted = await lineFor('say "hi"\r\nnext');
      expect(quoted).toContain(`monitor ${A} "say \\"hi\\"\\r\\nnext" is down`);
    });
  });
});
