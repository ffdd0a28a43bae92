import { Field, integerString, oneOf } from '#validation';

export const MAX_PER_PAGE = 100;
export const MAX_PAGE = 2_147_483_647;

/** Query fields shared by every list endpoint. */
export class PageQuery {
  @Field(integerString(1, MAX_PAGE), { optional: true }) page?: string;
  @Field(integerString(1, MAX_PER_PAGE), { optional: true }) per_page?: string;
  @Field(oneOf(['asc', 'desc']), { optional: true }) order?: 'asc' | 'desc';
}

export interface PageRequest {
  page: number;
  perPage: number;
}

export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export function pageRequest(query: PageQuery, defaultPerPage: number): PageRequest {
  return {
    page: query.page === undefined ? 1 : Number(query.page),
    perPage: query.per_page === undefined ? defaultPerPage : Number(query.per_page),
  };
}

/**
 * Where a page starts, or null when it lies past the end: then no rows are read, so a
 * huge page number never turns into a huge OFFSET.
 */
export function pageOffset(request: PageRequest, total: number): number | null {
  const totalPages = Math.ceil(total / request.perPage);
  return request.page > totalPages ? null : (request.page - 1) * request.perPage;
}

/** Which rows a page reads: `limit` rows after `offset` in the list's order, or in the reverse order. */
export interface PageRead {
  offset: number;
  limit: number;
  /** Read in the reverse order; the rows read are then put back in the list's order. */
  reversed: boolean;
}

/**
 * How to read the page that starts at `offset` of a list of `total` rows in a total order
 * (every sort ends on the id): from the nearer end. A database skips OFFSET rows one by one,
 * so the last page of 100,000 monitors read forwards walks 99,900 of them; read in the
 * reverse order it is a first page again (docs/decisions/0035-monitor-counts-and-page-from-either-end.md).
 */
export function pageRead(offset: number, perPage: number, total: number): PageRead {
  const limit = Math.max(0, Math.min(perPage, total - offset));
  const fromEnd = total - offset - limit;
  return fromEnd < offset ? { offset: fromEnd, limit, reversed: true } : { offset, limit, reversed: false };
}

export function paginationOf(request: PageRequest, total: number): Pagination {
  const totalPages = Math.ceil(total / request.perPage);
  return {
    page: request.page,
    per_page: request.perPage,
    total,
    total_pages: totalPages,
    has_next: request.page < totalPages,
    has_prev: request.page > 1,
  };
}
