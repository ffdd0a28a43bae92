import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { isPlainObject, unstorableTextProblem } from './checks.js';

/** One problem with one field of an input, by dotted path (`settings.https.url`). */
export interface FieldProblem {
  field: string;
  message: string;
}

type Class<T> = new () => T;

const ignoredFields = new WeakMap<object, readonly string[]>();

/**
 * Top-level fields a DTO accepts and drops without validation: the resource's read-only
 * fields, so that a client can send back what it read (docs/decisions/0002-wire-conventions.md).
 */
export function IgnoreFields(...fields: string[]): ClassDecorator {
  return (target) => {
    ignoredFields.set(target, fields);
  };
}

function joinPath(prefix: string, key: string): string {
  if (prefix === '') return key;
  return /^\d+$/.test(key) ? `${prefix}[${key}]` : `${prefix}.${key}`;
}

function flatten(errors: ValidationError[], prefix: string, out: FieldProblem[]): void {
  for (const error of errors) {
    const path = joinPath(prefix, error.property);
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      out.push({ field: path, message: constraint === 'whitelistValidation' ? 'is not a known field' : message });
    }
    if (error.children?.length) flatten(error.children, path, out);
  }
}

/** Every string anywhere in the input (keys included) that no database can store. */
function unstorableStrings(value: unknown, path: string, out: FieldProblem[], depth = 0): void {
  if (depth > 64) return;
  if (typeof value === 'string') {
    const problem = unstorableTextProblem(value);
    if (problem) out.push({ field: path || '(body)', message: problem });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unstorableStrings(item, `${path}[${i}]`, out, depth + 1));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = unstorableTextProblem(key);
      if (keyProblem) out.push({ field: path || '(body)', message: `has a field name that ${keyProblem}` });
      else unstorableStrings(item, joinPath(path, key), out, depth + 1);
    }
  }
}

/**
 * Names of Object.prototype members (`__proto__`, `constructor`, `toString`, `hasOwnProperty`,
 * …). No field is named like this, and class-transformer must never see them: a nested
 * `constructor` key makes it throw (a 500), it silently drops `toString` and friends, and
 * class-validator's whitelist finds `hasOwnProperty` "declared" on its plain lookup object,
 * so such keys would slip past the unknown-field check.
 */
function isReservedKey(key: string): boolean {
  return Object.hasOwn(Object.prototype, key);
}

/** A copy of the input without reserved keys, at any depth; each one is reported as an unknown field. */
function withoutReservedKeys(value: unknown, path: string, out: FieldProblem[], depth = 0): unknown {
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  if (depth > 64) {
    out.push({ field: path || '(body)', message: 'nests too deeply' });
    return null;
  }
  if (Array.isArray(value)) return value.map((item, i) => withoutReservedKeys(item, `${path}[${i}]`, out, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (isReservedKey(key)) out.push({ field: joinPath(path, key), message: 'is not a known field' });
    else copy[key] = withoutReservedKeys(item, joinPath(path, key), out, depth + 1);
  }
  return copy;
}

export interface Checked<T> {
  value: T | undefined;
  problems: FieldProblem[];
}

/**
 * Validates untrusted input (a parsed JSON body or a query-string object) against a DTO
 * class: unknown fields are refused, read-only fields dropped, nothing coerced, and every
 * problem reported at once with a dotted field path under `prefix`
 * (docs/decisions/0013-validation-decorator.md).
 */
export function checkInput<T extends object>(cls: Class<T>, input: unknown, prefix = ''): Checked<T> {
  if (!isPlainObject(input)) {
    return { value: undefined, problems: [{ field: prefix || '(body)', message: 'must be a JSON object' }] };
  }
  const problems: FieldProblem[] = [];
  unstorableStrings(input, prefix, problems);
  if (problems.length > 0) return { value: undefined, problems };

  const clean = withoutReservedKeys(input, prefix, problems) as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  const ignored = ignoredFields.get(cls) ?? [];
  for (const [key, item] of Object.entries(clean)) {
    if (!ignored.includes(key)) copy[key] = item;
  }
  const instance = plainToInstance(cls, copy, { enableImplicitConversion: false });
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
  });
  flatten(errors, prefix, problems);
  return problems.length > 0 ? { value: undefined, problems } : { value: instance, problems };
}
