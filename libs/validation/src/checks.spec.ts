import { describe, expect, it } from '@jest/globals';
import {
  arrayOf,
  boolean,
  booleanString,
  codePoints,
  displayName,
  integer,
  integerString,
  objectIdString,
  oneOf,
  record,
  text,
  type Checker,
} from './checks.js';

const ok = (check: Checker, value: unknown) => expect(check(value)).toBeNull();
const bad = (check: Checker, value: unknown, message: RegExp) => expect(check(value)).toMatch(message);

describe('displayName(100)', () => {
  const name = displayName(100);
  it.each([['a'], ['x'.repeat(100)], ['🚀'.repeat(100)], ['👩‍💻 team'], ['Café'], ['e\u0301'.repeat(50)]])(
    'accepts %j',
    (value) => ok(name, value),
  );

  it.each([
    ['', /empty or blank/],
    ['   ', /empty or blank/],
    ['\u3164', /empty or blank/],
    ['x'.repeat(101), /at most 100/],
    ['🚀'.repeat(101), /at most 100/],
    ['🚀\ufe0f'.repeat(100), /at most 100/],
    ['a\u0000b', /NUL/],
    ['a\ud800b', /lone surrogates/],
    ['\udc00', /lone surrogates/],
    ['a\nb', /control characters/],
    ['a\u0085b', /control characters/],
    ['abc\u202edcba', /bidirectional/],
    [42, /must be a string/],
  ])('refuses %j', (value, message) => bad(name, value, message));
});

describe('text', () => {
  it('allows line breaks and tabs only when multiline', () => {
    ok(text({ max: 10, multiline: true }), 'a\r\n\tb');
    bad(text({ max: 10 }), 'a\nb', /control/);
    bad(text({ max: 10, multiline: true }), 'a\u0007b', /control/);
  });
  it('counts code points after NFC normalisation', () => {
    expect(codePoints('🚀🚀')).toBe(2);
    ok(text({ max: 1 }), 'e\u0301'); // NFC turns e + combining acute into one code point
  });
});

describe('integer', () => {
  const check = integer(10, 600);
  it.each([10, 600, 300])('accepts %j', (v) => ok(check, v));
  it.each([
    [9, /between 10 and 600/],
    [601, /between 10 and 600/],
    [10.5, /integer/],
    ['300', /integer/],
    [Number.NaN, /integer/],
    [true, /integer/],
  ])('refuses %j', (v, m) => bad(check, v, m));
});

describe('query strings', () => {
  const page = integerString(1, 100);
  it.each(['1', '100', '050'])('integerString accepts %j', (v) => ok(page, v));
  it.each([
    ['0', /between/],
    ['101', /between/],
    ['1e2', /digits only/],
    ['0x10', /digits only/],
    [' 12', /digits only/],
    ['-1', /digits only/],
    ['1.0', /digits only/],
    ['99999999999999999999', /digits only/],
    [['1', '2'], /given once/],
  ])('integerString refuses %j', (v, m) => bad(page, v, m));

  it.each(['true', 'false'])('booleanString accepts %j', (v) => ok(booleanString, v));
  it.each(['TRUE', '1', 'yes', '', ['true']])('booleanString refuses %j', (v) =>
    bad(booleanString, v, /exactly true or false/),
  );
});

describe('composite checkers', () => {
  it('oneOf lists the allowed values', () => {
    ok(oneOf(['a', 'b']), 'a');
    bad(oneOf(['a', 'b']), 'c', /one of: a, b/);
  });

  it('arrayOf checks bounds, items and duplicates', () => {
    const list = arrayOf(oneOf(['x', 'y', 'z']), { min: 1, max: 2, unique: true });
    ok(list, ['x', 'y']);
    bad(list, [], /at least one/);
    bad(list, ['x', 'y', 'z'], /at most 2/);
    bad(list, ['x', 'q'], /item 1: must be one of/);
    bad(list, ['x', 'x'], /duplicates/);
    bad(list, 'x', /must be an array/);
  });

  it('record needs exactly its keys', () => {
    const responder = record({ type: oneOf(['team']), id: text({ max: 5, min: 1 }) });
    ok(responder, { type: 'team', id: 'ops' });
    bad(responder, { type: 'team' }, /needs the field "id"/);
    bad(responder, { type: 'team', id: 'ops', x: 1 }, /unknown field "x"/);
    bad(responder, { type: 'user', id: 'ops' }, /type must be one of/);
    bad(responder, ['team'], /must be an object/);
  });

  it('boolean and objectIdString are strict', () => {
    ok(boolean, false);
    bad(boolean, 'false', /boolean/);
    ok(objectIdString, '6b0263b0aed78dd82a402afe');
    bad(objectIdString, '6B0263B0AED78DD82A402AFE', /hexadecimal id/);
  });
});

describe('the schema each checker factory attaches', () => {
  it.each<[string, Checker, unknown]>([
    ['text', text({ max: 5 }), { type: 'string', maxLength: 5 }],
    ['displayName', displayName(9), { type: 'string', minLength: 1, maxLength: 9 }],
    ['boolean', boolean, { type: 'boolean' }],
    ['integer', integer(1, 3), { type: 'integer', minimum: 1, maximum: 3 }],
    ['oneOf', oneOf(['a', 'b']), { enum: ['a', 'b'] }],
    ['objectIdString', objectIdString, { type: 'string', pattern: '^[0-9a-f]{24}$' }],
    [
      'arrayOf',
      arrayOf(boolean, { min: 1, max: 2, unique: true }),
      { type: 'array', items: { type: 'boolean' }, minItems: 1, maxItems: 2, uniqueItems: true },
    ],
    [
      'record',
      record({ a: boolean, b: integer(0, 1) }, ['b']),
      {
        type: 'object',
        properties: { a: { type: 'boolean' }, b: { type: 'integer', minimum: 0, maximum: 1 } },
        required: ['a'],
        additionalProperties: false,
      },
    ],
    ['integerString (the value it spells)', integerString(1, 9), { type: 'integer', minimum: 1, maximum: 9 }],
    ['booleanString (the value it spells)', booleanString, { type: 'boolean' }],
  ])('%s', (_, checker, schema) => expect(checker.schema).toEqual(schema));
});
