import { describe, expect, it } from '@jest/globals';
import { pageOffset, pageRequest, paginationOf } from './pagination.js';

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
});
