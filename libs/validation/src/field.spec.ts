import { describe, expect, it } from '@jest/globals';
import { displayName, integerString, text } from './checks.js';
import { declaredFields, dtoSchema, Field } from './field.js';

class Base {
  @Field(integerString(1, 9), { optional: true }) page?: string;
}

class Dto extends Base {
  @Field(displayName(5)) name!: string;
  @Field(text({ max: 3 }), { optional: true, nullable: true }) note?: string | null;
  @Field((value) => (value === 1 ? null : 'must be 1')) one!: number;
}

describe('declaredFields and dtoSchema', () => {
  it('lists inherited fields first, in declaration order', () => {
    expect(declaredFields(Dto).map((f) => [f.name, f.optional, f.nullable])).toEqual([
      ['page', true, false],
      ['name', false, false],
      ['note', true, true],
      ['one', false, false],
    ]);
  });

  it('builds a closed object: required unless optional, null when nullable, annotations on the non-null branch', () => {
    expect(dtoSchema(Dto, { note: { description: 'A note.' }, one: { const: 1 } })).toEqual({
      type: 'object',
      properties: {
        page: { type: 'integer', minimum: 1, maximum: 9 },
        name: { type: 'string', minLength: 1, maxLength: 5 },
        note: { anyOf: [{ type: 'string', maxLength: 3, description: 'A note.' }, { type: 'null' }] },
        one: { const: 1 },
      },
      required: ['name', 'one'],
      additionalProperties: false,
    });
  });
});
