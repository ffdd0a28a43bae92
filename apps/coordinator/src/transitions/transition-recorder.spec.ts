import { describe, expect, it } from '@jest/globals';
import { waitFor } from '../../../../test/support/wait.js';
import { LeaseLostError, type TransitionInput } from './transition.writer.js';
import { TransitionRecorder } from './transition-recorder.js';

/** What the database does with writes: answers, is unreachable, or fails otherwise. */
class FakeStore {
  readonly written: string[] = [];
  mode: 'up' | 'down' | 'broken' = 'up';
  attempts = 0;
  lostLeases = new Set<string>();

  write = (t: TransitionInput): Promise<void> => {
    this.attempts++;
    if (this.mode === 'down')
      return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    if (this.mode === 'broken') return Promise.reject(new Error('column "x" does not exist'));
    if (this.lostLeases.has(t.monitorId)) return Promise.reject(new LeaseLostError(t.monitorId));
    this.written.push(`${t.monitorId}:${t.status}@${t.changedAt}`);
    return Promise.resolve();
  };
}

const change = (monitorId: string, status: 'up' | 'down', changedAt: number): TransitionInput => ({
  monitorId,
  status,
  changedAt,
  reason: null,
  evidence: {},
});

function recorderOver(store: FakeStore, capacity = 100) {
  const recorder = new TransitionRecorder({
    write: store.write,
    capacity,
    retryMinMs: 1,
    retryMaxMs: 4,
    stopGraceMs: 50,
  });
  const drops: number[] = [];
  recorder.onDropped((n) => drops.push(n));
  return { recorder, drops };
}

describe('TransitionRecorder (status changes through a database outage)', () => {
  it('writes at once while the database answers, holding nothing', async () => {
    const store = new FakeStore();
    const { recorder } = recorderOver(store);
    await recorder.record(change('m1', 'down', 10));
    expect(store.written).toEqual(['m1:down@10']);
    expect(recorder.pending).toBe(0);
  });

  it('holds changes while the database is unreachable and writes them in order, once, when it returns', async () => {
    const store = new FakeStore();
    const { recorder, drops } = recorderOver(store);
    store.mode = 'down';
    await recorder.record(change('m1', 'down', 10)); // resolves: held, evaluation goes on
    await recorder.record(change('m2', 'down', 11));
    await recorder.record(change('m1', 'up', 12));
    expect(recorder.pending).toBe(3);
    expect(store.written).toEqual([]);
    // several retries fail meanwhile (waited for, not timed: a loaded machine retries slower)
    await waitFor('retries against the unreachable database', () =>
      Promise.resolve(store.attempts > 4 ? true : undefined),
    );
    expect(store.written).toEqual([]);
    expect(recorder.pending).toBe(3);
    store.mode = 'up';
    await recorder.idle();
    expect(store.written).toEqual(['m1:down@10', 'm2:down@11', 'm1:up@12']);
    expect(recorder.pending).toBe(0);
    expect(drops).toEqual([]);
  });

  it('a change arriving while older ones are held queues behind them even if the database is back', async () => {
    const store = new FakeStore();
    const { recorder } = recorderOver(store);
    store.mode = 'down';
    await recorder.record(change('m1', 'down', 10));
    store.mode = 'up';
    await recorder.record(change('m1', 'up', 12)); // must not overtake the held down
    await recorder.idle();
    expect(store.written).toEqual(['m1:down@10', 'm1:up@12']);
  });

  it('past its capacity drops the oldest held changes and reports how many', async () => {
    const store = new FakeStore();
    const { recorder, drops } = recorderOver(store, 2);
    store.mode = 'down';
    for (let i = 0; i < 5; i++) await recorder.record(change(`m${i}`, 'down', i));
    expect(recorder.pending).toBe(2);
    expect(drops.reduce((a, b) => a + b, 0)).toBe(3);
    store.mode = 'up';
    await recorder.idle();
    expect(store.written).toEqual(['m3:down@3', 'm4:down@4']);
  });

  it('a held change whose partition another replica took meanwhile is not written; the rest are', async () => {
    const store = new FakeStore();
    const { recorder, drops } = recorderOver(store);
    store.mode = 'down';
    await recorder.record(change('lost', 'down', 1));
    await recorder.record(change('kept', 'down', 2));
    store.lostLeases.add('lost');
    store.mode = 'up';
    await recorder.idle();
    expect(store.written).toEqual(['kept:down@2']);
    expect(drops).toEqual([]);
  });

  it('an error that is not an outage fails the caller at once (nothing held)', async () => {
    const store = new FakeStore();
    const { recorder } = recorderOver(store);
    store.mode = 'broken';
    await expect(recorder.record(change('m1', 'down', 1))).rejects.toThrow(/does not exist/);
    expect(recorder.pending).toBe(0);
  });

  it('a held change that keeps failing for another reason is dropped after a few tries, not retried for ever', async () => {
    const store = new FakeStore();
    const { recorder, drops } = recorderOver(store);
    store.mode = 'down';
    await recorder.record(change('m1', 'down', 1));
    await recorder.record(change('m2', 'down', 2));
    store.mode = 'broken';
    // Until a change was given up on (three failures that are not an outage), however slow the machine.
    await waitFor('a change given up on', () => Promise.resolve(drops.length > 0 ? true : undefined), 5000);
    store.mode = 'up';
    await recorder.idle();
    expect(drops.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(recorder.pending).toBe(0);
  });

  it('at shutdown waits a little for the database, then reports what is lost', async () => {
    const store = new FakeStore();
    const { recorder } = recorderOver(store);
    store.mode = 'down';
    await recorder.record(change('m1', 'down', 1));
    await recorder.beforeApplicationShutdown();
    expect(recorder.pending).toBe(1);
    store.mode = 'up';
    await recorder.idle();
    expect(store.written).toEqual(['m1:down@1']);
  });
});
