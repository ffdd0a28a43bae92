import { describe, expect, it } from '@jest/globals';
import { matchPath } from './route-match.ts';

describe('route patterns', () => {
  it.each([
    ['/monitors', '/monitors', {}],
    ['/monitors/:id', '/monitors/abc', { id: 'abc' }],
    ['/monitors/:id/edit', '/monitors/abc/edit', { id: 'abc' }],
    ['/monitors/:id', '/monitors/a%20b', { id: 'a b' }],
    ['/', '/', {}],
    ['/monitors/:id', '/monitors', null],
    ['/monitors/:id', '/monitors/abc/edit', null],
    ['/monitors/new', '/monitors/abc', null],
    ['/settings', '/settings/', {}],
  ])('%s against %s', (pattern, path, params) => {
    expect(matchPath(pattern, path)).toEqual(params);
  });
});
