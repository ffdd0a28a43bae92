import 'reflect-metadata';
import { registerDecorator } from 'class-validator';
import type { Checker, JsonSchema } from './checks.js';

export interface FieldOptions {
  /** The field may be left out. */
  optional?: boolean;
  /** The field may be null. */
  nullable?: boolean;
}

/**
 * Attaches one checker to a DTO property as a single class-validator constraint, so each
 * field reports at most one problem: "is required", "must not be null", or the checker's
 * own message (docs/decisions/0013-validation-decorator.md).
 */
/** One `@Field` as declared: what the OpenAPI document reads. */
export interface FieldDeclaration {
  name: string;
  checker: Checker;
  optional: boolean;
  nullable: boolean;
}

const declarations = new WeakMap<object, FieldDeclaration[]>();

/** The `@Field`s of a DTO class, inherited ones first, in declaration order. */
export function declaredFields(cls: abstract new () => unknown): FieldDeclaration[] {
  const chain: object[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    chain.unshift(c);
  }
  return chain.flatMap((c) => declarations.get(c) ?? []);
}

/**
 * The JSON Schema of a DTO class, from its fields' checkers: a closed object, the fields that
 * are not optional required, nullable ones also null. `annotate` adds what no checker knows
 * (descriptions, the defaults a service applies) to a field's non-null schema.
 */
export function dtoSchema(
  cls: abstract new () => unknown,
  annotate: Readonly<Record<string, JsonSchema>> = {},
): { type: 'object'; properties: Record<string, JsonSchema>; required: string[]; additionalProperties: false } {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of declaredFields(cls)) {
    const schema = { ...field.checker.schema, ...annotate[field.name] };
    properties[field.name] = field.nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
    if (!field.optional) required.push(field.name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

export function Field(checker: Checker, options: FieldOptions = {}): PropertyDecorator {
  const problemOf = (value: unknown): string | null => {
    if (value === undefined) return options.optional ? null : 'is required';
    if (value === null) return options.nullable ? null : 'must not be null';
    return checker(value);
  };
  return (target, propertyKey) => {
    const own = declarations.get(target.constructor) ?? [];
    own.push({
      name: String(propertyKey),
      checker,
      optional: options.optional ?? false,
      nullable: options.nullable ?? false,
    });
    declarations.set(target.constructor, own);
    registerDecorator({
      name: 'picketField',
      target: target.constructor,
      propertyName: String(propertyKey),
      validator: {
        validate: (value: unknown) => problemOf(value) === null,
        defaultMessage: (args) => problemOf(args?.value) ?? 'is invalid',
      },
    });
  };
}
