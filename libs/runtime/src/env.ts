import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads a configuration class from environment variables, once, at boot. Property names
 * are the variable names. Empty strings count as unset. A bad value throws a ConfigError
 * naming every offending variable; nothing is coerced silently. Configuration classes use
 * class-validator's own decorators, not `@Field` (docs/decisions/0013-validation-decorator.md).
 */
export function loadEnv<T extends object>(cls: new () => T, env: Readonly<Record<string, string | undefined>>): T {
  const plain: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') plain[key] = value;
  }
  const instance = plainToInstance(cls, plain, { excludeExtraneousValues: true, exposeDefaultValues: true });
  const errors = validateSync(instance, { forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new ConfigError(
      errors.map((e) => {
        // A key's value is never echoed (stderr and logs are kept): only whether it was set.
        const shown =
          plain[e.property] === undefined
            ? 'unset'
            : /SECRET/.test(e.property)
              ? 'set, not shown'
              : JSON.stringify(plain[e.property]);
        return `${e.property} (${shown}): ${Object.values(e.constraints ?? {}).join('; ')}`;
      }),
    );
  }
  return instance;
}

/** The environment variables a configuration class reads: every validated property (deployment files are checked against it). */
export function configVariables(cls: new () => object): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

/** A class-transformer `@Transform` for comma-separated lists: trimmed, empty entries dropped. */
export const commaList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
    : value;

/** A whole number written as digits (at most 9) becomes a number; anything else is left for the validator to refuse. */
export const digitsToInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
