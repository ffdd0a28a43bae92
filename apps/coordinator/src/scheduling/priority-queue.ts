/** What the queue orders by: due time first, then insertion order (seq). */
export interface Queued {
  readonly due: number;
  readonly seq: number;
}

/** A binary min-heap keyed by (due, seq): O(log n) push and pop, O(1) peek, O(n) retain. */
export class PriorityQueue<T extends Queued> {
  private items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    this.items.push(item);
    this.siftUp(this.items.length - 1);
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top !== undefined && last !== undefined && items.length > 0) {
      items[0] = last;
      this.siftDown(0);
    }
    return top;
  }

  /** Keeps only the items `keep` accepts, then restores the heap in O(n). */
  retain(keep: (item: T) => boolean): void {
    this.items = this.items.filter(keep);
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private siftUp(start: number): void {
    const items = this.items;
    const item = items[start] as T;
    let i = start;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = items[parentIndex] as T;
      if (!before(item, parent)) break;
      items[i] = parent;
      i = parentIndex;
    }
    items[i] = item;
  }

  private siftDown(start: number): void {
    const items = this.items;
    const length = items.length;
    const item = items[start] as T;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && before(items[right] as T, items[left] as T)) child = right;
      const smallest = items[child] as T;
      if (!before(smallest, item)) break;
      items[i] = smallest;
      i = child;
    }
    items[i] = item;
  }
}

function before(a: Queued, b: Queued): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
