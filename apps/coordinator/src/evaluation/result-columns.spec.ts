import { describe, expect, it } from '@jest/globals';
import { CHECK_STATUSES } from '#contracts';
import { ResultColumns, type ResultRow } from './result-columns.js';

function row(region: string, overrides: Partial<ResultRow> = {}): ResultRow {
  return {
    region,
    status: 'up',
    responseTimeMs: 12.5,
    error: null,
    checkedAt: 1_800_000_000,
    checkerIp: '192.0.2.10',
    ...overrides,
  };
}

describe('ResultColumns', () => {
  it.each<[string, Partial<ResultRow>]>([
    ['an UP with a fractional response time', { responseTimeMs: 0.25 }],
    ['a response time of zero (not null)', { responseTimeMs: 0 }],
    ['no response time', { status: 'down', responseTimeMs: null, error: 'connection refused' }],
    ['no checker address', { checkerIp: null }],
    ['a checked_at past 2038', { checkedAt: 4_200_000_000 }],
    ...CHECK_STATUSES.map((status): [string, Partial<ResultRow>] => [`status ${status}`, { status }]),
  ])('gives back what was written: %s', (_, overrides) => {
    const columns = new ResultColumns();
    const start = columns.allocate(2);
    columns.write(start + 1, row('eu-west-1', overrides));
    expect(columns.read(start + 1)).toEqual(row('eu-west-1', overrides));
    expect(columns.read(start)).toBeNull();
  });

  it('finds rows by region and the first free row of a block, within the block only', () => {
    const columns = new ResultColumns();
    const a = columns.allocate(3);
    const b = columns.allocate(1);
    columns.write(a, row('us-east-1'));
    columns.write(b, row('eu-west-1'));
    expect(columns.find(a, 'us-east-1')).toBe(a);
    expect(columns.find(a, 'eu-west-1')).toBe(-1);
    expect(columns.firstFree(a)).toBe(a + 1);
    expect(columns.firstFree(b)).toBe(-1);
    columns.write(a + 1, row('ap-southeast-1'));
    expect(columns.readBlock(a).map((r) => r.region)).toEqual(['us-east-1', 'ap-southeast-1']);
  });

  it('reuses a released block, cleared, for the next block of its length only', () => {
    const columns = new ResultColumns();
    const a = columns.allocate(2);
    columns.write(a, row('us-east-1', { error: 'kept until released' }));
    columns.release(a);
    const other = columns.allocate(3);
    expect(other).not.toBe(a);
    const again = columns.allocate(2);
    expect(again).toBe(a);
    expect(columns.readBlock(again)).toEqual([]);
    expect(columns.allocate(2)).not.toBe(a);
  });

  it('lengthens a block by one row: its rows kept in order, the new row free, the old block released', () => {
    const columns = new ResultColumns();
    const small = columns.allocate(2);
    columns.write(small, row('us-east-1'));
    columns.write(small + 1, row('eu-west-1', { status: 'down', error: 'HTTP 503' }));
    const before = columns.readBlock(small);
    const moved = columns.lengthen(small);
    expect(columns.lengthOf(moved)).toBe(3);
    expect(columns.readBlock(moved)).toEqual(before);
    expect(columns.firstFree(moved)).toBe(moved + 2);
    expect(columns.readBlock(small)).toEqual([]);
    expect(columns.allocate(2)).toBe(small);
  });

  it('grows its columns without losing rows, doubling', () => {
    const columns = new ResultColumns();
    const starts: number[] = [];
    for (let i = 0; i < 3_000; i++) {
      const start = columns.allocate(2);
      columns.write(start + 1, row(`region-${i}`, { checkedAt: i }));
      starts.push(start);
    }
    expect(columns.rows).toBe(8_192);
    starts.forEach((start, i) => expect(columns.read(start + 1)).toEqual(row(`region-${i}`, { checkedAt: i })));
  });

  it.each([0, -1, 1.5, 65_536])('refuses a block of %p rows', (length) => {
    expect(() => new ResultColumns().allocate(length)).toThrow(RangeError);
  });
});
