import { registerDecorator } from 'class-validator';
import { isMonitorType, isProbedType } from '#contracts';
import { isPlainObject } from '#validation';

/**
 * `regions` judged against the monitor's type (docs/decisions/0027-heartbeat-monitors.md): a
 * probed type (or one not known yet) needs at least one region, a heartbeat none. Null when the
 * regions fit, or when they are no array (their own checker says so).
 */
export function regionsProblem(type: string | undefined, regions: unknown): string | null {
  if (regions !== undefined && !Array.isArray(regions)) return null;
  if (type !== undefined && isMonitorType(type) && !isProbedType(type)) {
    return regions !== undefined && regions.length > 0 ? `must be omitted or empty for a ${type} monitor` : null;
  }
  if (regions === undefined) return 'is required';
  return regions.length === 0 ? 'must contain at least one item' : null;
}

/** The type key of a `settings` value as sent: its single key when that is a type, else undefined. */
export function typeKeyOf(settings: unknown): string | undefined {
  if (!isPlainObject(settings)) return undefined;
  const keys = Object.keys(settings);
  return keys.length === 1 && isMonitorType(keys[0]) ? keys[0] : undefined;
}

/** On a create DTO's `regions`: regionsProblem against the type of the `settings` beside it. */
export function RegionsForType(): PropertyDecorator {
  const problemOf = (value: unknown, object: object) =>
    regionsProblem(typeKeyOf((object as { settings?: unknown }).settings), value);
  return (target, propertyKey) => {
    registerDecorator({
      name: 'picketRegionsForType',
      target: target.constructor,
      propertyName: String(propertyKey),
      validator: {
        validate: (value: unknown, args) => problemOf(value, args?.object ?? {}) === null,
        defaultMessage: (args) => problemOf(args?.value, args?.object ?? {}) ?? 'is invalid',
      },
    });
  };
}
