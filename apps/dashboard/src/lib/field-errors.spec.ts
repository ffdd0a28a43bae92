import { describe, expect, it } from '@jest/globals';
import { fieldErrors, parentField } from './field-errors.ts';

describe("the API's 422 details on the form", () => {
  const shown = ['name', 'regions', 'settings.https.url', 'check_interval'];

  it('places each detail on its field, or on the nearest shown ancestor', () => {
    const { byField, unplaced } = fieldErrors(
      [
        { field: 'name', message: 'must not be blank' },
        { field: 'settings.https.url', message: 'must be an http or https URL' },
        { field: 'regions[3]', message: 'is not a region' },
        { field: 'regions[5]', message: 'is repeated' },
      ],
      shown,
    );
    expect(byField).toEqual({
      name: 'must not be blank',
      'settings.https.url': 'must be an http or https URL',
      regions: 'is not a region is repeated',
    });
    expect(unplaced).toEqual([]);
  });

  it('keeps what no field shows, with its field name, for the message above the form', () => {
    const { byField, unplaced } = fieldErrors(
      [
        { field: 'settings', message: 'must have exactly one key' },
        { field: 'surprise', message: 'is not allowed' },
        { field: '', message: 'body must be an object' },
      ],
      shown,
    );
    expect(byField).toEqual({});
    expect(unplaced).toEqual([
      'settings: must have exactly one key',
      'surprise: is not allowed',
      'body must be an object',
    ]);
  });

  it.each([
    ['a.b[2].c', 'a.b[2]'],
    ['a.b[2]', 'a.b'],
    ['a.b', 'a'],
    ['a', null],
    ['[0]', null],
  ])('the parent of %s is %s', (field, parent) => {
    expect(parentField(field)).toBe(parent);
  });
});
