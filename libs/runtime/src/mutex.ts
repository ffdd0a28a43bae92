/**
 * At most `limit` sections run at once; the others wait their turn in arrival order (FIFO),
 * and a section that fails frees its place like one that succeeds.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`a semaphore needs a limit of 1 or more, not ${limit}`);
  }

  /** Sections waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    // The place is handed over by the section that leaves (running stays the same).
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** A promise-based mutual exclusion lock (FIFO): a semaphore of one. */
export class Mutex extends Semaphore {
  constructor() {
    super(1);
  }
}

/**
 * Resolves after the event loop's next turn (timers, I/O): long synchronous work (SQLite reads
 * and writes through better-sqlite3) calls it between parts so requests are not held behind it.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
