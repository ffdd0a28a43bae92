import { afterEach, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { ProbeRequest, ProbeResult } from '#contracts';
import { createRegistry } from '#runtime';
import { probeResult } from '../../../../test/support/check-results.js';
import { monitorEntity, rosterWith } from '../../../../test/support/check-path-fakes.js';
import { CapturingLogger } from '../../../../test/support/coordinator.js';
import type { ResultIngest } from '../evaluation/result-ingest.js';
import type { MonitorEntity } from '../monitors/monitor.entity.js';
import type { DueCheck } from '../scheduling/scheduler.js';
import { LeaseLostError } from '../transitions/transition.writer.js';
import { CheckDispatch } from './check-dispatch.js';
import { CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import type { ProbeTransport } from './probe-transport.js';

const A = 'aaaaaaaaaaaaaaaaaaaaaa01';
const due: DueCheck = {
  monitorId: A,
  region: 'us-east-1',
  regionIndex: 1,
  scheduledAt: 1_767_225_600_000,
  confirmation: false,
};

function setup(ingestError?: Error) {
  const requests: ProbeRequest[] = [];
  let answer: (r: ProbeResult) => void = () => undefined;
  const transport: ProbeTransport = {
    kind: 'nats',
    request: (request) => {
      requests.push(request);
      return new Promise((resolve) => (answer = resolve));
    },
    close: () => Promise.resolve(),
  };
  const accepted: { monitor: MonitorEntity; due: DueCheck; result: ProbeResult }[] = [];
  const ingest = {
    accept: (monitor: MonitorEntity, d: DueCheck, result: ProbeResult) => {
      accepted.push({ monitor, due: d, result });
      return ingestError ? Promise.reject(ingestError) : Promise.resolve();
    },
  } as unknown as ResultIngest;
  const { roster } = rosterWith(monitorEntity(A, { timeout: 7, settings: { url: 'https://example.test/' } }));
  const metrics = new CoordinatorMetrics(createRegistry());
  const dispatch = new CheckDispatch(transport, roster, ingest, metrics);
  return { dispatch, requests, accepted, metrics, answer: (r: ProbeResult) => answer(r) };
}

describe('CheckDispatch (the dispatch stage)', () => {
  it('sends the due check as a request with its deterministic check id and hands the result to ingestion', async () => {
    const s = setup();
    s.dispatch.send(due);
    expect(s.requests).toEqual([
      {
        check_id: `${A}:${due.scheduledAt}:us-east-1`,
        monitor_id: A,
        region: 'us-east-1',
        scheduled_at: due.scheduledAt,
        type: 'https',
        settings: { url: 'https://example.test/' },
        timeout_ms: 7000,
      },
    ]);
    expect(s.dispatch.pending).toBe(1);
    const result = probeResult(A, 'us-east-1', 'up', 40, due.scheduledAt);
    s.answer(result);
    await s.dispatch.settle(1000);
    expect(s.accepted).toEqual([{ monitor: expect.objectContaining({ id: A }), due, result }]);
    expect(s.dispatch.pending).toBe(0);
  });

  it('sends nothing for a monitor it does not check, or without a transport', () => {
    const s = setup();
    s.dispatch.send({ ...due, monitorId: 'bbbbbbbbbbbbbbbbbbbbbbbb' });
    expect(s.requests).toEqual([]);
    const { roster } = rosterWith(monitorEntity(A));
    const off = new CheckDispatch(null, roster, {} as ResultIngest, s.metrics);
    off.send(due);
    expect(off.pending).toBe(0);
  });

  it('counts a result that could not be processed, but not one refused for a lost lease', async () => {
    for (const [error, counted] of [
      [new Error('disk full'), 1],
      [new LeaseLostError(A), 0],
    ] as const) {
      const s = setup(error);
      s.dispatch.send(due);
      s.answer(probeResult(A, 'us-east-1', 'down', null, due.scheduledAt));
      await s.dispatch.settle(1000);
      const text = await s.metrics.registry.metrics();
      if (counted) expect(text).toMatch(/^picket_dispatch_errors_total\{reason="ingest"\} 1$/m);
      else expect(text).not.toMatch(/picket_dispatch_errors_total\{/);
    }
  });

  describe('its log', () => {
    afterEach(() => {
      Logger.overrideLogger(false);
    });

    async function logFor(error: Error): Promise<string[]> {
      const logger = new CapturingLogger();
      Logger.overrideLogger(logger);
      const s = setup(error);
      s.dispatch.send(due);
      s.answer(probeResult(A, 'us-east-1', 'down', null, due.scheduledAt));
      await s.dispatch.settle(1000);
      return logger.lines;
    }

    it('a database outage is one line with its code, no stack', async () => {
      const lines = await logFor(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      );
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/not processed \(database unavailable\): connect ECONNREFUSED 127.0.0.1:5432 Dispatch$/);
      expect(lines[0]).not.toMatch(/\n/);
    });

    it('a bug keeps its stack', async () => {
      const lines = await logFor(new TypeError('x is undefined'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^error .*not processed: TypeError: x is undefined\n\s+at /);
    });
  });
});
