import { describe, expect, it } from '@jest/globals';
import type { CheckStatus, RegionId } from '#contracts';
import { Evaluator, type EvaluatorPorts, type SubmittedResult } from './evaluator.js';
import { initialState, type MonitorEvent, type MonitorState } from './status.js';

const A: RegionId = 'us-east-1';
const B: RegionId = 'eu-west-1';
const M1 = '69a1b2c3deadbeef42000001';
const M2 = '69a1b2c3deadbeef42000002';
const T0 = Date.UTC(2026, 0, 1);

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

interface SaveCall {
  monitorId: string;
  state: MonitorState;
  events: readonly MonitorEvent[];
  done: Deferred<void>;
}

/** An in-memory store whose loads and saves finish only when the test says so (when gated). */
class FakeStore implements EvaluatorPorts {
  readonly rows = new Map<string, MonitorState>();
  readonly loads: string[] = [];
  readonly saves: SaveCall[] = [];
  readonly confirms: [string, number][] = [];
  gateLoads = false;
  gateSaves = false;
  readonly loadGates: Deferred<void>[] = [];

  async load(monitorId: string): Promise<MonitorState | null> {
    this.loads.push(monitorId);
    if (this.gateLoads) {
      const gate = deferred<void>();
      this.loadGates.push(gate);
      await gate.promise;
    }
    return this.rows.get(monitorId) ?? null;
  }

  async save(monitorId: string, state: MonitorState, events: readonly MonitorEvent[]): Promise<void> {
    const done = deferred<void>();
    this.saves.push({ monitorId, state, events, done });
    if (this.gateSaves) await done.promise;
    this.rows.set(monitorId, state);
  }

  restartCount(monitorId: string): void {
    const row = this.rows.get(monitorId);
    if (row) this.rows.set(monitorId, { ...row, consecutiveDown: 0 });
  }

  confirm(monitorId: string, afterRegionIndex: number): void {
    this.confirms.push([monitorId, afterRegionIndex]);
  }
}

function result(status: CheckStatus, i: number, region: RegionId = i % 2 ? B : A): SubmittedResult {
  const scheduledAt = T0 + i * 20_000;
  return { status, region, regionIndex: region === A ? 0 : 1, scheduledAt, checkedAt: scheduledAt + 10 };
}

function storeWith(...monitorIds: string[]): FakeStore {
  const store = new FakeStore();
  for (const id of monitorIds) store.rows.set(id, initialState('up', T0 / 1000));
  return store;
}

describe('Evaluator', () => {
  it('applies racing results of one monitor one at a time: the second sees the first saved', async () => {
    const store = storeWith(M1);
    store.gateSaves = true;
    const evaluator = new Evaluator(store);

    const first = evaluator.submit(M1, result('down', 0), 2);
    const second = evaluator.submit(M1, result('down', 1), 2);
    await settle();
    expect(store.saves).toHaveLength(1); // the second waits for the first save
    expect(store.saves[0]?.state).toMatchObject({ status: 'up', consecutiveDown: 1 });
    expect(store.confirms).toEqual([]); // confirmation follows the commit

    store.saves[0]?.done.resolve();
    await expect(first).resolves.toMatchObject({ applied: true, confirmed: true, events: [] });
    expect(store.confirms).toEqual([[M1, 0]]);
    await settle();
    expect(store.saves).toHaveLength(2);
    expect(store.saves[1]?.state).toMatchObject({ status: 'down', consecutiveDown: 2 });
    expect(store.saves[1]?.events).toEqual([
      { type: 'status_changed', from: 'up', to: 'down', at: T0 / 1000 + 20, region: B, scheduledAt: T0 + 20_000 },
    ]);
    store.saves[1]?.done.resolve();
    await expect(second).resolves.toMatchObject({ applied: true, confirmed: false });
    expect(store.confirms).toEqual([[M1, 0]]);
    expect(store.loads).toEqual([M1]); // loaded once, then kept in memory
  });

  it('loads a monitor once even when results race its first load', async () => {
    const store = storeWith(M1);
    store.gateLoads = true;
    const evaluator = new Evaluator(store);
    const submissions = [evaluator.submit(M1, result('up', 0), 2), evaluator.submit(M1, result('down', 1), 2)];
    await settle();
    expect(store.loads).toEqual([M1]);
    expect(store.saves).toEqual([]);
    store.loadGates[0]?.resolve();
    await Promise.all(submissions);
    expect(store.loads).toEqual([M1]);
    expect(store.saves.map((s) => s.state.consecutiveDown)).toEqual([0, 1]);
  });

  it('lets different monitors proceed concurrently', async () => {
    const store = storeWith(M1, M2);
    store.gateSaves = true;
    const evaluator = new Evaluator(store);
    const one = evaluator.submit(M1, result('down', 0), 1);
    const two = evaluator.submit(M2, result('down', 0), 1);
    await settle();
    expect(store.saves.map((s) => s.monitorId)).toEqual([M1, M2]); // M2 did not wait for M1
    store.saves[1]?.done.resolve();
    await expect(two).resolves.toMatchObject({ applied: true });
    store.saves[0]?.done.resolve();
    await expect(one).resolves.toMatchObject({ applied: true });
  });

  it('keeps arrival order under any save timing', async () => {
    const store = storeWith(M1);
    store.gateSaves = true;
    const evaluator = new Evaluator(store);
    const statuses: CheckStatus[] = ['down', 'up', 'down', 'down', 'down', 'up', 'down', 'up'];
    const submissions = statuses.map((status, i) => evaluator.submit(M1, result(status, i), 3));
    for (let i = 0; i < statuses.length; i++) {
      await settle();
      expect(store.saves).toHaveLength(i + 1); // never two saves of one monitor at once
      store.saves[i]?.done.resolve();
    }
    await Promise.all(submissions);
    expect(store.saves.map((s) => s.state.lastScheduledAt)).toEqual(statuses.map((_, i) => T0 + i * 20_000));
    expect(store.saves.map((s) => s.state.consecutiveDown)).toEqual([1, 0, 1, 2, 3, 0, 1, 0]);
    expect(store.saves.flatMap((s) => s.events.map((e) => e.to))).toEqual(['down', 'up']);
  });

  it('saves nothing for UNKNOWN or out-of-order results, and asks no confirmation', async () => {
    const store = storeWith(M1);
    const evaluator = new Evaluator(store);
    await expect(evaluator.submit(M1, result('up', 5), 2)).resolves.toMatchObject({ applied: true });
    await expect(evaluator.submit(M1, result('unknown', 6), 2)).resolves.toEqual({ applied: false, reason: 'unknown' });
    await expect(evaluator.submit(M1, result('down', 4), 2)).resolves.toEqual({
      applied: false,
      reason: 'out_of_order',
    });
    expect(store.saves).toHaveLength(1);
    expect(store.confirms).toEqual([]);
  });

  it('passes the rotation position of the DOWN to confirm', async () => {
    const store = storeWith(M1);
    const evaluator = new Evaluator(store);
    await evaluator.submit(M1, { ...result('down', 0), regionIndex: 4 }, 3);
    await evaluator.submit(M1, { ...result('down', 1), regionIndex: 5 }, 3);
    await evaluator.submit(M1, { ...result('down', 2), regionIndex: 6 }, 3);
    expect(store.confirms).toEqual([
      [M1, 4],
      [M1, 5],
    ]);
  });

  it('reports a missing monitor and keeps nothing for it', async () => {
    const store = new FakeStore();
    const evaluator = new Evaluator(store);
    await expect(evaluator.submit(M1, result('down', 0), 1)).resolves.toEqual({ applied: false, reason: 'missing' });
    expect(store.saves).toEqual([]);
    expect(evaluator.size).toBe(0);
  });

  it('after a failed save, reloads the state and carries on in order', async () => {
    const store = storeWith(M1);
    store.gateSaves = true;
    const evaluator = new Evaluator(store);
    const failing = evaluator.submit(M1, result('down', 0), 2);
    const next = evaluator.submit(M1, result('down', 1), 2);
    await settle();
    store.saves[0]?.done.reject(new Error('database went away'));
    await expect(failing).rejects.toThrow('database went away');
    await settle();
    expect(store.loads).toEqual([M1, M1]);
    // The stored row still says up with no DOWN counted, so this is the first DOWN again.
    expect(store.saves[1]?.state).toMatchObject({ status: 'up', consecutiveDown: 1 });
    store.saves[1]?.done.resolve();
    await expect(next).resolves.toMatchObject({ applied: true, confirmed: true });
  });

  it('holds nothing for an idle monitor: its next result starts from what the last save kept', async () => {
    const store = storeWith(M1);
    const evaluator = new Evaluator(store);
    await expect(evaluator.submit(M1, result('down', 0), 2)).resolves.toMatchObject({ applied: true, events: [] });
    expect(evaluator.size).toBe(0);
    const second = await evaluator.submit(M1, result('down', 1), 2);
    expect(second).toMatchObject({ applied: true, state: { status: 'down', consecutiveDown: 2 } });
    expect(store.loads).toEqual([M1, M1]);
    expect(evaluator.size).toBe(0);
    // The newest applied result is kept with the state: an older one arriving now is out of order.
    await expect(evaluator.submit(M1, result('up', 0), 2)).resolves.toEqual({ applied: false, reason: 'out_of_order' });
  });

  it('restartCount(): the run of DOWNs starts from zero, kept and in flight alike', async () => {
    const store = storeWith(M1);
    const evaluator = new Evaluator(store);
    await evaluator.submit(M1, result('down', 0), 3);
    expect(store.rows.get(M1)?.consecutiveDown).toBe(1);
    evaluator.restartCount(M1); // idle: the kept state
    expect(store.rows.get(M1)).toMatchObject({ status: 'up', consecutiveDown: 0 });
    await expect(evaluator.submit(M1, result('down', 1), 3)).resolves.toMatchObject({
      state: { consecutiveDown: 1 },
    });

    store.gateSaves = true;
    const inFlight = evaluator.submit(M1, result('down', 2), 3);
    const queued = evaluator.submit(M1, result('down', 3), 3);
    await settle();
    store.saves.at(-1)?.done.resolve();
    await inFlight;
    expect(evaluator.size).toBe(1); // the queued result's lane holds the state now
    evaluator.restartCount(M1); // busy: the state the queued result will see
    await settle();
    store.saves.at(-1)?.done.resolve();
    await expect(queued).resolves.toMatchObject({ state: { status: 'up', consecutiveDown: 1 } });
  });

  it('forget(): queued results of a deleted monitor are dropped and its state released', async () => {
    const store = storeWith(M1);
    store.gateSaves = true;
    const evaluator = new Evaluator(store);
    const inFlight = evaluator.submit(M1, result('down', 0), 1);
    const queued = evaluator.submit(M1, result('up', 1), 1);
    await settle();
    expect(store.saves).toHaveLength(1);
    evaluator.forget(M1);
    store.saves[0]?.done.resolve();
    await expect(inFlight).resolves.toEqual({ applied: false, reason: 'forgotten' });
    await expect(queued).resolves.toEqual({ applied: false, reason: 'forgotten' });
    expect(store.saves).toHaveLength(1);
    expect(store.confirms).toEqual([]);
    expect(evaluator.size).toBe(0);

    // A result after forget() starts from the store again.
    store.gateSaves = false;
    store.rows.delete(M1);
    await expect(evaluator.submit(M1, result('up', 2), 1)).resolves.toEqual({ applied: false, reason: 'missing' });
    expect(store.loads).toEqual([M1, M1]);
    evaluator.forget(M2); // unknown: a no-op
  });
});
