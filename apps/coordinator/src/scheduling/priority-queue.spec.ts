import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { PriorityQueue } from './priority-queue.js';

interface Item {
  due: number;
  seq: number;
  position: number;
}

const byDueThenSeq = (a: Item, b: Item) => a.due - b.due || a.seq - b.seq;

describe('PriorityQueue', () => {
  it('pops by due time, ties by seq, through any mix of push, pop, remove and re-keying', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('push' as const), due: fc.integer({ min: 0, max: 20 }) }),
            fc.record({ op: fc.constant('pop' as const) }),
            fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }),
            fc.record({ op: fc.constant('update' as const), pick: fc.nat(), due: fc.integer({ min: 0, max: 20 }) }),
            fc.record({ op: fc.constant('removeTwice' as const), pick: fc.nat() }),
          ),
          { maxLength: 200 },
        ),
        (operations) => {
          const queue = new PriorityQueue<Item>();
          const model: Item[] = [];
          let seq = 0;
          for (const operation of operations) {
            if (operation.op === 'push') {
              const item = { due: operation.due, seq: seq++, position: -1 };
              queue.push(item);
              model.push(item);
            } else if (operation.op === 'pop') {
              const popped = queue.pop();
              expect(popped).toBe(model[0]);
              if (popped) expect(popped.position).toBe(-1);
              model.shift();
            } else if (model.length > 0) {
              const item = model[operation.pick % model.length]!;
              if (operation.op === 'update') {
                // Re-keyed as the scheduler does: a new time and a new place among ties.
                item.due = operation.due;
                item.seq = seq++;
                queue.update(item);
              } else {
                expect(queue.remove(item)).toBe(true);
                expect(queue.has(item)).toBe(false);
                if (operation.op === 'removeTwice') expect(queue.remove(item)).toBe(false);
                model.splice(model.indexOf(item), 1);
              }
            }
            model.sort(byDueThenSeq);
            expect(queue.size).toBe(model.length);
            expect(queue.peek()).toBe(model[0]);
            for (const item of model) expect(queue.has(item)).toBe(true);
          }
          // Drained, it gives back exactly the model's order.
          const drained: Item[] = [];
          for (let item = queue.pop(); item; item = queue.pop()) drained.push(item);
          expect(drained).toEqual(model);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('refuses to queue an item twice or to re-key one it does not hold', () => {
    const queue = new PriorityQueue<Item>();
    const item = { due: 1, seq: 1, position: -1 };
    expect(() => queue.update(item)).toThrow('not queued');
    queue.push(item);
    expect(() => queue.push(item)).toThrow('already queued');
    expect(queue.size).toBe(1);
  });

  it('is empty when new', () => {
    const queue = new PriorityQueue<Item>();
    expect(queue.size).toBe(0);
    expect(queue.peek()).toBeUndefined();
    expect(queue.pop()).toBeUndefined();
  });
});
