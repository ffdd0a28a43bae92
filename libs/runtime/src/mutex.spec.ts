import { describe, expect, it } from '@jest/globals';
import { Mutex, Semaphore } from './mutex.js';

describe('Mutex', () => {
  it('runs critical sections one at a time, in arrival order, even when one fails', async () => {
    const mutex = new Mutex();
    const log: string[] = [];
    const section = (name: string, fail = false) =>
      mutex.run(async () => {
        log.push(`${name}:in`);
        await new Promise((r) => setImmediate(r));
        log.push(`${name}:out`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([section('a'), section('b', true), section('c')]);
    expect(log).toEqual(['a:in', 'a:out', 'b:in', 'b:out', 'c:in', 'c:out']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});

describe('Semaphore', () => {
  /** Runs `names` through a semaphore of `limit`; each section yields `hops` turns; returns the log and the peak. */
  async function trace(limit: number, sections: { name: string; hops: number; fail?: boolean }[]) {
    const semaphore = new Semaphore(limit);
    const log: string[] = [];
    let inside = 0;
    let peak = 0;
    const results = await Promise.allSettled(
      sections.map(({ name, hops, fail }) =>
        semaphore.run(async () => {
          inside++;
          peak = Math.max(peak, inside);
          log.push(`${name}:in`);
          for (let i = 0; i < hops; i++) await new Promise((r) => setImmediate(r));
          log.push(`${name}:out`);
          inside--;
          if (fail) throw new Error(name);
          return name;
        }),
      ),
    );
    return { log, peak, results: results.map((r) => r.status), queuedAfter: semaphore.queued };
  }

  it.each([
    {
      limit: 1,
      sections: [
        { name: 'a', hops: 2 },
        { name: 'b', hops: 1, fail: true },
        { name: 'c', hops: 1 },
      ],
      log: ['a:in', 'a:out', 'b:in', 'b:out', 'c:in', 'c:out'],
      peak: 1,
    },
    {
      limit: 2,
      sections: [
        { name: 'a', hops: 3 },
        { name: 'b', hops: 1 },
        { name: 'c', hops: 1 },
        { name: 'd', hops: 1 },
      ],
      // c takes b's place as b leaves, d takes c's: never more than two inside, in arrival order.
      log: ['a:in', 'b:in', 'b:out', 'c:in', 'c:out', 'd:in', 'a:out', 'd:out'],
      peak: 2,
    },
    {
      limit: 2,
      sections: [
        { name: 'a', hops: 1, fail: true },
        { name: 'b', hops: 1, fail: true },
        { name: 'c', hops: 1 },
      ],
      // a failing frees its place at once: c is in before b is out.
      log: ['a:in', 'b:in', 'a:out', 'c:in', 'b:out', 'c:out'],
      peak: 2,
    },
    {
      limit: 5,
      sections: [
        { name: 'a', hops: 1 },
        { name: 'b', hops: 1 },
      ],
      log: ['a:in', 'b:in', 'a:out', 'b:out'],
      peak: 2,
    },
  ])('limit $limit: $log', async ({ limit, sections, log, peak }) => {
    const traced = await trace(limit, sections);
    expect(traced.log).toEqual(log);
    expect(traced.peak).toBe(peak);
    expect(traced.results).toEqual(sections.map((s) => (s.fail ? 'rejected' : 'fulfilled')));
    expect(traced.queuedAfter).toBe(0);
  });

  it('after a burst it admits up to its limit again at once', async () => {
    const semaphore = new Semaphore(3);
    await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => semaphore.run(() => new Promise((r) => setImmediate(r)))));
    let inside = 0;
    const entered: number[] = [];
    const release: (() => void)[] = [];
    const held = [1, 2, 3, 4].map(() =>
      semaphore.run(async () => {
        entered.push(++inside);
        await new Promise<void>((r) => release.push(r));
        inside--;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(entered).toEqual([1, 2, 3]);
    expect(semaphore.queued).toBe(1);
    for (const r of release.splice(0)) r();
    await new Promise((r) => setImmediate(r));
    for (const r of release.splice(0)) r();
    await Promise.all(held);
    expect(semaphore.queued).toBe(0);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a limit of %p', (limit) => {
    expect(() => new Semaphore(limit)).toThrow(RangeError);
  });
});
