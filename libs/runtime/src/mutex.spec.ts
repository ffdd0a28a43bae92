import { describe, expect, it } from '@jest/globals';
import { Mutex } from './mutex.js';

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
