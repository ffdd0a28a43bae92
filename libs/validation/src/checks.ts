/**
 * Pure field checkers. Each returns null when the value is acceptable, or a short message
 * saying what is wrong. DTOs attach them with the `Field` decorator (./field.ts); services
 * and the CLI may call them directly (docs/decisions/0013-validation-decorator.md).
 */
import { isObjectId } from '#runtime';

/** A JSON Schema (2020-12) fragment: what a checker accepts, as the OpenAPI document states it. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * Returns null when the value is acceptable, else what is wrong. The factories here attach the
 * JSON Schema of what they accept as `schema`, so a DTO's validation and its documented schema
 * come from one declaration (docs/decisions/0016-openapi-from-declarations.md).
 */
export type Checker = ((value: unknown) => string | null) & { readonly schema?: JsonSchema };

/** The checker with the JSON Schema of what it accepts. */
export function described(check: (value: unknown) => string | null, schema: JsonSchema): Checker {
  return Object.assign(check, { schema });
}

/** C0 and C1 control characters. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Bidirectional overrides, embeddings, isolates and marks (Trojan Source). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const ALL_BLANK = /^[\s\u200b\u2060\ufeff\u3164\u115f\u1160]*$/u;

export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return true;
}

/** NUL or a lone surrogate anywhere in a string: never storable, never meaningful. */
export function unstorableTextProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(value)) return 'must be well-formed Unicode (no lone surrogates)';
  return null;
}

export interface TextOptions {
  /** Maximum length in Unicode code points, after NFC normalisation. */
  max: number;
  min?: number;
  /** Allow line breaks and tabs (free text such as request bodies). Other controls stay refused. */
  multiline?: boolean;
  /** Refuse empty and whitespace-only values. */
  notBlank?: boolean;
}

export function text(options: TextOptions): Checker {
  const { max, min = 0, multiline = false, notBlank = false } = options;
  const schema = { type: 'string', ...(min > 0 ? { minLength: min } : {}), maxLength: max };
  return described((value) => {
    if (typeof value !== 'string') return 'must be a string';
    const unstorable = unstorableTextProblem(value);
    if (unstorable) return unstorable;
    const forControls = multiline ? value.replace(/[\t\r\n]/g, '') : value;
    if (CONTROL.test(forControls)) return 'must not contain control characters';
    if (BIDI.test(value)) return 'must not contain bidirectional control characters';
    if (notBlank && ALL_BLANK.test(value)) return 'must not be empty or blank';
    const length = codePoints(value.normalize('NFC'));
    if (length < min) return `must be at least ${min} characters long`;
    if (length > max) return `must be at most ${max} characters long`;
    return null;
  }, schema);
}

/** A display name: 1..max code points, no control characters, not blank. */
export const displayName = (max = 100): Checker => text({ max, min: 1, notBlank: true });

export const boolean: Checker = described(
  (value) => (typeof value === 'boolean' ? null : 'must be a boolean (true or false)'),
  { type: 'boolean' },
);

export function integer(min: number, max: number): Checker {
  return described(
    (value) => {
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer';
      if (value < min || value > max) return `must be between ${min} and ${max}`;
      return null;
    },
    { type: 'integer', minimum: min, maximum: max },
  );
}

export function oneOf(values: readonly string[]): Checker {
  return described(
    (value) => (typeof value === 'string' && values.includes(value) ? null : `must be one of: ${values.join(', ')}`),
    { enum: [...values] },
  );
}

export interface ArrayOptions {
  min?: number;
  max: number;
  unique?: boolean;
}

export function arrayOf(item: Checker, options: ArrayOptions): Checker {
  const { min = 0, max, unique = false } = options;
  const schema = {
    type: 'array',
    ...(item.schema ? { items: item.schema } : {}),
    ...(min > 0 ? { minItems: min } : {}),
    maxItems: max,
    ...(unique ? { uniqueItems: true } : {}),
  };
  return described((value) => {
    if (!Array.isArray(value)) return 'must be an array';
    if (value.length < min) return min === 1 ? 'must contain at least one item' : `must contain at least ${min} items`;
    if (value.length > max) return `must contain at most ${max} items`;
    for (let i = 0; i < value.length; i++) {
      const problem = item(value[i]);
      if (problem) return `item ${i}: ${problem}`;
    }
    if (unique && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) {
      return 'must not contain duplicates';
    }
    return null;
  }, schema);
}

export const objectIdString: Checker = described(
  (value) => (isObjectId(value) ? null : 'must be a 24-character lowercase hexadecimal id'),
  { type: 'string', pattern: '^[0-9a-f]{24}$' },
);

/** An object with exactly these keys (all required unless listed in `optional`). */
export function record(shape: Readonly<Record<string, Checker>>, optional: readonly string[] = []): Checker {
  const schema = {
    type: 'object',
    properties: Object.fromEntries(Object.entries(shape).map(([key, check]) => [key, check.schema ?? {}])),
    required: Object.keys(shape).filter((key) => !optional.includes(key)),
    additionalProperties: false,
  };
  return described((value) => {
    if (!isPlainObject(value)) return 'must be an object';
    for (const key of Object.keys(value)) if (!Object.hasOwn(shape, key)) return `has an unknown field "${key}"`;
    for (const [key, check] of Object.entries(shape)) {
      if (value[key] === undefined) {
        if (optional.includes(key)) continue;
        return `needs the field "${key}"`;
      }
      const problem = check(value[key]);
      if (problem) return `${key} ${problem}`;
    }
    return null;
  }, schema);
}

export const plainObject: Checker = described((value) => (isPlainObject(value) ? null : 'must be an object'), {
  type: 'object',
});

// ---- query-string values: always strings, never coerced --------------------------------

/** A decimal integer written as digits only (no sign, exponent, hex, spaces or fractions). */
/** Documented as the integer it spells (a query parameter's schema describes its value). */
export function integerString(min: number, max: number): Checker {
  return described(
    (value) => {
      if (typeof value !== 'string') return 'must be given once, as a whole number';
      if (!/^\d{1,16}$/.test(value)) return 'must be a whole number written with digits only';
      const n = Number(value);
      if (n < min || n > max) return `must be between ${min} and ${max}`;
      return null;
    },
    { type: 'integer', minimum: min, maximum: max },
  );
}

/** Documented as the boolean it spells. */
export const booleanString: Checker = described(
  (value) => (value === 'true' || value === 'false' ? null : 'must be exactly true or false'),
  { type: 'boolean' },
);
