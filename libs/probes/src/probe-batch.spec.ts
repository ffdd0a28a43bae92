import { describe, expect, it } from '@jest/globals';
import { unknownResult, type ProbeRequest, type ProbeResult } from '#contracts';
import { runProbeBatch, type BatchTimers } from './probe-batch.js';

/** Timers that fire only when the test says so. */
class HeldTimers implements BatchTimers {
  pending = new Map<number, () => void>();
  private next = 1;
  set(fn: () => void): unknown {
    const id = this.next++;
    this.pending.set(id, fn);
    return id;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  fireAll(): void {
    for (const [id, fn] of [...this.pending]) {
      this.pending.delete(id);
      fn();
    }
  }
}

const request = (n: number) =>
  ({ check_id: `c${n}`, monitor_id: 'm', region: 'eu-west-1', scheduled_at: n }) as unknown as ProbeRequest;
const flushMicrotasks = () => new Promise((resolve) => setImmediate(resolve));

describe('runProbeBatch', () => {
  it('starts every check at once and sends results as they finish, coalesced per window, the last at once', async () => {
    const finish = new Map<string, (r: ProbeResult) => void>();
    const started: string[] = [];
    const execute = (r: ProbeRequest) =>
      new Promise<ProbeResult>((resolve) => {
        started.push(r.check_id);
        finish.set(r.check_id, resolve);
      });
    const sent: string[][] = [];
    const timers = new HeldTimers();
    let done = false;
    const requests = [1, 2, 3, 4].map(request);
    void runProbeBatch(execute, requests, (results) => sent.push(results.map((r) => r.check_id)), 5, timers).then(
      () => (done = true),
    );
    expect(started).toEqual(['c1', 'c2', 'c3', 'c4']);
    const end = (id: string) => finish.get(id)!(unknownResult(requests[Number(id[1]) - 1]!, 'x', 'a', 0));
    end('c2');
    end('c1');
    await flushMicrotasks();
    expect(sent).toEqual([]); // collecting for the window
    expect(timers.pending.size).toBe(1);
    timers.fireAll();
    expect(sent).toEqual([['c2', 'c1']]);
    end('c4');
    await flushMicrotasks();
    expect(timers.pending.size).toBe(1);
    end('c3'); // the last one: sent at once with what waits, the window timer cleared
    await flushMicrotasks();
    expect(sent).toEqual([
      ['c2', 'c1'],
      ['c4', 'c3'],
    ]);
    expect(timers.pending.size).toBe(0);
    expect(done).toBe(true);
  });

  it('a send that throws loses those results but still ends the batch', async () => {
    const execute = (r: ProbeRequest) => Promise.resolve(unknownResult(r, 'x', 'a', 0));
    await expect(
      runProbeBatch(execute, [request(1)], () => {
        throw new Error('connection closed');
      }),
    ).resolves.toBeUndefined();
  });
});
