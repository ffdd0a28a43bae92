import { describe, expect, it } from '@jest/globals';
import { pageOffset, pageRead, pageRequest, paginationOf } from './pagination.js';

describe('pagination', () => {
  it('defaults to page 1 and the endpoint default page size', () => {
    expect(pageRequest({}, 50)).toEqual({ page: 1, perPage: 50 });
    expect(pageRequest({ page: '3', per_page: '7' }, 50)).toEqual({ page: 3, perPage: 7 });
  });

  it.each([
    // page, perPage, total → offset, total_pages, has_next, has_prev
    [1, 3, 7, 0, 3, true, false],
    [2, 3, 7, 3, 3, true, true],
    [3, 3, 7, 6, 3, false, true],
    [4, 3, 7, null, 3, false, true],
    [1, 50, 0, null, 0, false, false],
    [2_147_483_647, 100, 5, null, 1, false, true],
  ])('page %i of %i over %i rows', (page, perPage, total, offset, totalPages, hasNext, hasPrev) => {
    const request = { page, perPage };
    expect(pageOffset(request, total)).toBe(offset);
    expect(paginationOf(request, total)).toEqual({
      page,
      per_page: perPage,
      total,
      total_pages: totalPages,
      has_next: hasNext,
      has_prev: hasPrev,
    });
  });

  it.each([
    // offset, perPage, total → what is read
    [0, 3, 10, { offset: 0, limit: 3, reversed: false }],
    [3, 3, 10, { offset: 3, limit: 3, reversed: false }], // 4 rows after, 3 before: forwards
    [6, 3, 10, { offset: 1, limit: 3, reversed: true }],
    [9, 3, 10, { offset: 0, limit: 1, reversed: true }], // the short last page
    [4, 2, 10, { offset: 4, limit: 2, reversed: false }], // as near either end: forwards
    [0, 100, 40, { offset: 0, limit: 40, reversed: false }], // a single page
    [99_900, 100, 100_000, { offset: 0, limit: 100, reversed: true }],
    [50_000, 100, 100_000, { offset: 49_900, limit: 100, reversed: true }],
    [49_900, 100, 100_000, { offset: 49_900, limit: 100, reversed: false }],
  ])('the page at %i (%i a page, %i rows) is read from the nearer end', (offset, perPage, total, read) => {
    expect(pageRead(offset, perPage, total)).toEqual(read);
  });

  it('a page read in reverse, put back in order, holds the same rows as read forwards, for every page', () => {
    for (const total of [1, 2, 7, 10, 11, 100]) {
      const rows = Array.from({ length: total }, (_, i) => i);
      for (const perPage of [1, 3, 10, 100]) {
        for (let page = 1; page <= Math.ceil(total / perPage); page++) {
          const offset = (page - 1) * perPage;
          const read = pageRead(offset, perPage, total);
          const reversed = [...rows].reverse();
          const got = read.reversed
            ? reversed.slice(read.offset, read.offset + read.limit).reverse()
            : rows.slice(read.offset, read.offset + read.limit);
          expect(got).toEqual(rows.slice(offset, offset + perPage));
        }
      }
    }
  });
});
