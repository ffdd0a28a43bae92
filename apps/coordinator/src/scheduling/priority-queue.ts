/** What the queue orders by: due time first, then `seq` (the scheduler's planning order). */
export interface Queued {
  readonly due: number;
  readonly seq: number;
  /** The item's place in the queue, kept by the queue; -1 while it is not in one. */
  position: number;
}

/**
 * A binary min-heap keyed by (due, seq) whose items know their place: O(log n) push, pop,
 * remove and re-key (`update`), O(1) peek. An item is in at most one queue at a time, and its
 * key changes only while it is out of the queue or through `update`.
 */
export class PriorityQueue<T extends Queued> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Whether the item is in this queue. */
  has(item: T): boolean {
    return item.position >= 0 && this.items[item.position] === item;
  }

  push(item: T): void {
    if (this.has(item)) throw new Error('the item is already queued');
    item.position = this.items.length;
    this.items.push(item);
    this.siftUp(item.position);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.removeAt(0);
    return top;
  }

  /** Takes the item out; false when it was not queued. */
  remove(item: T): boolean {
    if (!this.has(item)) return false;
    this.removeAt(item.position);
    return true;
  }

  /** Puts a queued item whose key has just changed back in order. */
  update(item: T): void {
    if (!this.has(item)) throw new Error('the item is not queued');
    this.siftDown(this.siftUp(item.position));
  }

  private removeAt(index: number): void {
    const items = this.items;
    const gone = items[index]!;
    const last = items.pop()!;
    gone.position = -1;
    if (last === gone) return;
    items[index] = last;
    last.position = index;
    this.siftDown(this.siftUp(index));
  }

  /** Moves the item at `start` up to its place; returns that place. */
  private siftUp(start: number): number {
    const items = this.items;
    const item = items[start]!;
    let i = start;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = items[parentIndex]!;
      if (!before(item, parent)) break;
      items[i] = parent;
      parent.position = i;
      i = parentIndex;
    }
    items[i] = item;
    item.position = i;
    return i;
  }

  private siftDown(start: number): void {
    const items = this.items;
    const length = items.length;
    const item = items[start]!;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && before(items[right]!, items[left]!)) child = right;
      const smallest = items[child]!;
      if (!before(smallest, item)) break;
      items[i] = smallest;
      smallest.position = i;
      i = child;
    }
    items[i] = item;
    item.position = i;
  }
}

function before(a: Queued, b: Queued): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
