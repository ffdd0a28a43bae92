import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { PriorityQueue } from './priority-queue.js';

interface Item {
  due: number;
  seq: number;
}

const byDueThenSeq = (a: Item, b: Item) => a.due - b.due || a.seq - b.seq;

describe('PriorityQueue', () => {
  it('pops by due time, ties in insertion order, through any mix of push, pop and retain', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('push' as const), due: fc.integer({ min: 0, max: 20 }) }),
            fc.record({ op: fc.constant('pop' as const) }),
            fc.record({ op: fc.constant('retain' as const), modulo: fc.integer({ min: 2, max: 4 }) }),
          ),
          { maxLength: 200 },
        ),
        (operations) => {
          const queue = new PriorityQueue<Item>();
          let model: Item[] = [];
          let seq = 0;
          for (const operation of operations) {
            if (operation.op === 'push') {
              const item = { due: operation.due, seq: seq++ };
              queue.push(item);
              model.push(item);
              model.sort(byDueThenSeq);
            } else if (operation.op === 'pop') {
              expect(queue.pop()).toEqual(model.shift());
            } else {
              const keep = (item: Item) => item.seq % operation.modulo !== 0;
              queue.retain(keep);
              model = model.filter(keep);
            }
            expect(queue.size).toBe(model.length);
            expect(queue.peek()).toEqual(model[0]);
          }
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('is empty when new', () => {
    const queue = new PriorityQueue<Item>();
    expect(queue.size).toBe(0);
    expect(queue.peek()).toBeUndefined();
    expect(queue.pop()).toBeUndefined();
  });
});
