import 'reflect-metadata';
import { registerDecorator } from 'class-validator';
import type { Checker } from './checks.js';

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
export function Field(checker: Checker, options: FieldOptions = {}): PropertyDecorator {
  const problemOf = (value: unknown): string | null => {
    if (value === undefined) return options.optional ? null : 'is required';
    if (value === null) return options.nullable ? null : 'must not be null';
    return checker(value);
  };
  return (target, propertyKey) => {
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
