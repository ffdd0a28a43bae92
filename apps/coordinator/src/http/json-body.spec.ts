import { describe, expect, it } from '@jest/globals';
import { AppError } from '../errors.js';
import { jsonDepthExceeds, parseJsonBody } from './json-body.js';

function codeOf(raw: Buffer | string): string | null {
  try {
    parseJsonBody(Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8'));
    return null;
  } catch (error) {
    return error instanceof AppError ? error.code : 'THREW';
  }
}

describe('parseJsonBody', () => {
  it('parses objects, arrays and scalars; an empty body is no body', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1,{"b":null}]}'))).toEqual({ a: [1, { b: null }] });
    expect(parseJsonBody(Buffer.from('  '))).toBeUndefined();
    expect(parseJsonBody(Buffer.alloc(0))).toBeUndefined();
  });

  it.each([
    ['truncated', '{"a":'],
    ['trailing garbage', '{} x'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
    ['overlong UTF-8', Buffer.from([0x22, 0xc0, 0xaf, 0x22])],
    ['__proto__', '{"__proto__":{"polluted":true}}'],
    ['nested __proto__', '{"a":{"__proto__":{"x":1}}}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"x":1}}}'],
    ['33 levels', '['.repeat(33) + ']'.repeat(33)],
    ['10 000 levels', '{"a":'.repeat(10000) + '1' + '}'.repeat(10000)],
  ])('refuses %s with INVALID_JSON', (_name, raw) => {
    expect(codeOf(raw)).toBe('INVALID_JSON');
  });

  it('accepts 32 levels, and brackets inside strings do not count', () => {
    expect(codeOf('['.repeat(32) + ']'.repeat(32))).toBeNull();
    expect(codeOf(JSON.stringify({ s: '[[[[{{{{'.repeat(100), t: 'a\\"[' }))).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('depth scan ignores escaped quotes inside strings', () => {
    expect(jsonDepthExceeds('{"a":"\\"{{{{"}', 1)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":1}}', 1)).toBe(true);
  });
});
