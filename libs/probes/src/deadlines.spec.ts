import { describe, expect, it } from '@jest/globals';
import { operationsInFlight, systemClock } from '#runtime';
import { probeRequest } from '../../../test/support/probe-request.js';
import { SharedDeadlines } from './deadlines.js';
import { ProbeExecutor } from './executor.js';
import { abortedOutcome, ProbeDeadline, type ProbeOutcome, type ProberTable } from './prober.js';

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('SharedDeadlines', () => {
  it('gives the checks taken in one tick with the same timeout one signal, and later ones another', async () => {
    const deadlines = new SharedDeadlines();
    const a = deadlines.take(1000);
    const b = deadlines.take(1000);
    const other = deadlines.take(2000);
    await nextTick();
    const later = deadlines.take(1000);
    expect(b.signal).toBe(a.signal);
    expect(other.signal).not.toBe(a.signal);
    expect(later.signal).not.toBe(a.signal);
    for (const deadline of [a, b, other, later]) deadline.release();
  });

  it('aborts every check of the group with a ProbeDeadline when the timeout passes', async () => {
    const deadlines = new SharedDeadlines();
    const a = deadlines.take(20);
    const b = deadlines.take(20);
    await aborted(a.signal);
    expect(b.signal.aborted).toBe(true);
    expect(a.signal.reason).toBeInstanceOf(ProbeDeadline);
    expect((a.signal.reason as ProbeDeadline).timeoutMs).toBe(20);
    a.release();
    b.release();
  });

  it('stays armed while any check of the group holds it, and is disarmed by the last release', async () => {
    const deadlines = new SharedDeadlines();
    const first = deadlines.take(30);
    const held = deadlines.take(30);
    first.release();
    first.release(); // a second release of the same check does not count twice
    await nextTick();
    const done = [deadlines.take(30), deadlines.take(30)];
    for (const deadline of done) deadline.release();
    await sleep(80);
    expect(held.signal.aborted).toBe(true);
    expect(done[0]!.signal.aborted).toBe(false);
    held.release();
  });

  it("follows the parent (the agent's shutdown) with its reason, and forgets it once released", async () => {
    const deadlines = new SharedDeadlines();
    const stop = new AbortController();
    const a = deadlines.take(60_000, stop.signal);
    const b = deadlines.take(60_000, stop.signal);
    const unparented = deadlines.take(60_000);
    expect(unparented.signal).not.toBe(a.signal);
    expect(operationsInFlight(stop.signal)).toBe(1);
    stop.abort('agent stopping');
    expect([a.signal.aborted, b.signal.reason]).toEqual([true, 'agent stopping']);
    expect(unparented.signal.aborted).toBe(false);
    for (const deadline of [a, b, unparented]) deadline.release();

    const parent = new AbortController();
    await nextTick();
    const c = deadlines.take(60_000, parent.signal);
    const d = deadlines.take(60_000, parent.signal);
    c.release();
    expect(operationsInFlight(parent.signal)).toBe(1);
    d.release();
    expect(operationsInFlight(parent.signal)).toBe(0);
  });

  it("has no listener limit, so a large batch's listeners raise no leak warning (Node warns past 10)", () => {
    // jest's sandbox has a process object of its own, which Node's warnings do not reach: the
    // limit that triggers them is read instead, from Node's own symbol (events.getMaxListeners
    // throws for an EventTarget whose limit is 0, i.e. none).
    const deadlines = new SharedDeadlines();
    const group = Array.from({ length: 50 }, () => deadlines.take(1000));
    const signal = group[0]!.signal as unknown as Record<symbol, unknown>;
    const limit = Object.getOwnPropertySymbols(signal).find(
      (key) => key.description === 'events.maxEventTargetListeners',
    );
    expect(limit === undefined ? 'no limit set' : signal[limit]).toBe(0);
    for (const deadline of group) deadline.release();
  });
});

describe('ProbeExecutor: deadlines of a batch', () => {
  /** A tcp prober that answers UP at once for port 1 and otherwise waits for its signal. */
  const seen: AbortSignal[] = [];
  const table = {
    tcp: (settings: { url: string }, { signal }: { signal: AbortSignal }): Promise<ProbeOutcome> => {
      seen.push(signal);
      if (settings.url.endsWith(':1'))
        return Promise.resolve({ status: 'up', phase: null, error: null, timings: { total_ms: 0 } });
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve(abortedOutcome(signal, { total_ms: 0 })), { once: true }),
      );
    },
  } as unknown as ProberTable;

  it('shares one deadline among checks started together; one answered early leaves the rest to time out', async () => {
    seen.length = 0;
    const executor = new ProbeExecutor({ agentId: 'test', clock: systemClock, table, maxInFlight: 10 });
    const request = (port: number) => probeRequest('tcp', { url: `tcp://127.0.0.1:${port}` }, { timeoutMs: 50 });
    const results = await Promise.all([
      executor.execute(request(1)),
      executor.execute(request(2)),
      executor.execute(request(3)),
    ]);
    expect(new Set(seen).size).toBe(1);
    expect(results.map((result) => [result.status, result.phase])).toEqual([
      ['up', null],
      ['down', 'timeout'],
      ['down', 'timeout'],
    ]);
    expect(results[1].error).toBe('timed out after 50 ms');

    // A check started in a later tick has a deadline of its own, counted from its own start.
    await executor.execute(request(4));
    expect(seen[3]).not.toBe(seen[0]);
  });
});
