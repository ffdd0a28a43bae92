import { CHECK_STATUSES, type CheckStatus } from '#contracts';

/** One row of ResultColumns: a region's latest result as an incident keeps it. */
export interface ResultRow {
  readonly region: string;
  readonly status: CheckStatus;
  readonly responseTimeMs: number | null;
  readonly error: string | null;
  /** Unix seconds. */
  readonly checkedAt: number;
  readonly checkerIp: string | null;
}

const STATUS_CODES = new Map<CheckStatus, number>(CHECK_STATUSES.map((status, i) => [status, i]));

/** Rows the columns first hold; they double when full. */
const INITIAL_ROWS = 1_024;

/**
 * Rows of results in columns, handed out in blocks of consecutive rows (one block per monitor,
 * one row per region): no object per result. Numbers sit in typed arrays, strings (interned by
 * the caller) in plain arrays of references; a released block is cleared and kept for the next
 * block of its length (docs/decisions/0046-exact-arrays-and-fewer-sets-per-monitor.md).
 */
export class ResultColumns {
  /** Rows handed out so far, free or not: the next new block starts here. */
  private end = 0;
  private capacity = 0;
  /** null: a free row. */
  private region: (string | null)[] = [];
  private status = new Uint8Array(0);
  /** NaN: no response time. */
  private responseTime = new Float64Array(0);
  private checkedAt = new Float64Array(0);
  private checkerIp: (string | null)[] = [];
  private error: (string | null)[] = [];
  /** At a block's first row: its length. */
  private blockLength = new Uint16Array(0);
  /** Released blocks by length: their first rows. */
  private readonly released = new Map<number, number[]>();

  /** Rows the columns have room for (what their memory is sized by). */
  get rows(): number {
    return this.capacity;
  }

  /** A block of `length` free rows (1–65535); returns its first row. */
  allocate(length: number): number {
    if (!Number.isInteger(length) || length < 1 || length > 0xffff) {
      throw new RangeError(`block length must be 1-65535, got ${length}`);
    }
    const start = this.released.get(length)?.pop() ?? this.grow(length);
    this.blockLength[start] = length;
    return start;
  }

  /** Gives back the block at `start`: its rows are cleared and reused for the next block of its length. */
  release(start: number): void {
    const length = this.lengthOf(start);
    for (let row = start; row < start + length; row++) this.clear(row);
    const starts = this.released.get(length);
    if (starts) starts.push(start);
    else this.released.set(length, [start]);
  }

  lengthOf(start: number): number {
    return this.blockLength[start]!;
  }

  /** The row of the block at `start` holding `region`, or -1. */
  find(start: number, region: string): number {
    for (let row = start; row < start + this.lengthOf(start); row++) {
      if (this.region[row] === region) return row;
    }
    return -1;
  }

  /** The block's first free row, or -1 when it is full. */
  firstFree(start: number): number {
    for (let row = start; row < start + this.lengthOf(start); row++) {
      if (this.region[row] === null) return row;
    }
    return -1;
  }

  write(row: number, value: ResultRow): void {
    this.region[row] = value.region;
    this.status[row] = STATUS_CODES.get(value.status)!;
    this.responseTime[row] = value.responseTimeMs ?? Number.NaN;
    this.checkedAt[row] = value.checkedAt;
    this.checkerIp[row] = value.checkerIp;
    this.error[row] = value.error;
  }

  /** The row's result, or null when it is free. */
  read(row: number): ResultRow | null {
    const region = this.region[row];
    if (region === null || region === undefined) return null;
    const responseTime = this.responseTime[row]!;
    return {
      region,
      status: CHECK_STATUSES[this.status[row]!]!,
      responseTimeMs: Number.isNaN(responseTime) ? null : responseTime,
      error: this.error[row]!,
      checkedAt: this.checkedAt[row]!,
      checkerIp: this.checkerIp[row]!,
    };
  }

  /** The results of the block at `start`, in row order (free rows skipped). */
  readBlock(start: number): ResultRow[] {
    const rows: ResultRow[] = [];
    for (let row = start; row < start + this.lengthOf(start); row++) {
      const value = this.read(row);
      if (value) rows.push(value);
    }
    return rows;
  }

  /**
   * Moves the block at `start` to a block one row longer, its rows kept in order and the new row
   * free; the old block is released. Returns the new block's first row.
   */
  lengthen(start: number): number {
    const length = this.lengthOf(start);
    const moved = this.allocate(length + 1);
    for (let i = 0; i < length; i++) {
      const value = this.read(start + i);
      if (value) this.write(moved + i, value);
    }
    this.release(start);
    return moved;
  }

  private clear(row: number): void {
    this.region[row] = null;
    this.checkerIp[row] = null;
    this.error[row] = null;
  }

  /** Hands out `length` new rows at the end, the columns grown to hold them. */
  private grow(length: number): number {
    const start = this.end;
    this.end += length;
    if (this.end > this.capacity) this.resize(Math.max(this.end, this.capacity * 2, INITIAL_ROWS));
    return start;
  }

  private resize(capacity: number): void {
    const widen = <T extends Uint8Array | Uint16Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.status = widen(this.status, (n) => new Uint8Array(n));
    this.responseTime = widen(this.responseTime, (n) => new Float64Array(n));
    this.checkedAt = widen(this.checkedAt, (n) => new Float64Array(n));
    this.blockLength = widen(this.blockLength, (n) => new Uint16Array(n));
    // Plain arrays filled to their length up front: V8 keeps them packed, with no room to spare.
    const references = (old: (string | null)[]) => {
      const next = new Array<string | null>(capacity).fill(null);
      for (let row = 0; row < old.length; row++) next[row] = old[row]!;
      return next;
    };
    this.region = references(this.region);
    this.checkerIp = references(this.checkerIp);
    this.error = references(this.error);
    this.capacity = capacity;
  }
}
