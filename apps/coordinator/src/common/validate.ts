import { checkInput } from '#validation';
import { validationError } from '../errors.js';

/** `checkInput` at the HTTP edge: throws VALIDATION_ERROR (422) listing every problem (docs/decisions/0013-validation-decorator.md). */
export function validateInput<T extends object>(cls: new () => T, input: unknown): T {
  const { value, problems } = checkInput(cls, input);
  if (value === undefined) throw validationError(problems);
  return value;
}
