import { describe, expect, it } from '@jest/globals';
import {
  httpStatuses,
  parseHeaderLines,
  parseStatusRanges,
  requestHeaders,
  statusAccepted,
} from './monitor-types/https.js';

describe('httpStatuses', () => {
  it.each(['200', '200-299', '200-299,301', '200 - 299 , 301,418', '100-599'])('accepts %j', (v) => {
    expect(httpStatuses(v)).toBeNull();
  });
  it.each([
    ['', /status codes or ranges/],
    ['2xx', /status codes or ranges/],
    ['200-', /status codes or ranges/],
    ['99', /status codes or ranges/],
    ['600', /between 100 and 599/],
    ['099-200', /between 100 and 599/],
    ['299-200', /runs backwards/],
    ['200,,201', /status codes or ranges/],
    [200, /string/],
  ])('refuses %j', (v, m) => {
    expect(httpStatuses(v)).toMatch(m);
  });
});

describe('requestHeaders', () => {
  it.each(['X-Token: abc', 'Accept: */*\nX-A: 1', 'Accept: */*\r\nX-A: 1\r\n', "X-Weird!#$%&'*+.^_`|~: v\tw"])(
    'accepts %j',
    (v) => {
      expect(requestHeaders(v)).toBeNull();
    },
  );
  it.each([
    ['NoColon', /Name: value/],
    [': empty-name', /Name: value/],
    ['Bad Name: x', /invalid header name/],
    ['X-A: a\rInjected: 1', /control characters/],
    ['X-A: a\u0000', /NUL/],
    [Array.from({ length: 51 }, (_, i) => `X-${i}: v`).join('\n'), /at most 50/],
  ])('refuses %j', (v, m) => {
    expect(requestHeaders(v)).toMatch(m);
  });
});

describe('interpretation', () => {
  it('reads status ranges and applies them', () => {
    expect(parseStatusRanges()).toEqual([[200, 399]]);
    const ranges = parseStatusRanges('200 - 204, 301,418');
    expect(ranges).toEqual([
      [200, 204],
      [301, 301],
      [418, 418],
    ]);
    expect([199, 200, 204, 205, 301, 418].map((s) => statusAccepted(ranges, s))).toEqual([
      false,
      true,
      true,
      false,
      true,
      true,
    ]);
  });

  it('reads header lines, values may contain colons', () => {
    expect(parseHeaderLines('X-A: 1\r\n\nAuthorization: Basic a:b\n')).toEqual([
      ['X-A', '1'],
      ['Authorization', 'Basic a:b'],
    ]);
    expect(parseHeaderLines(undefined)).toEqual([]);
  });
});
