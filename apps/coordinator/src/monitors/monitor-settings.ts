import { MONITOR_TYPES, typeKeyedSettingsDto, type TypeKeyedSettingsDto } from '#contracts';
import { type Checker, isPlainObject } from '#validation';

/**
 * The API's `settings`: `{ <type>: <that type's settings> }`, one property per monitor type of
 * the contracts' MONITOR_TYPE_TABLE (generated from it; splitSettings in #contracts reads it).
 */
export const MonitorSettingsDto = typeKeyedSettingsDto('MonitorSettingsDto');
export type MonitorSettingsDto = TypeKeyedSettingsDto;

/** `settings` must be an object with exactly one of the type keys. */
export const exactlyOneType: Checker = (value) => {
  if (!isPlainObject(value)) return 'must be an object';
  const present = MONITOR_TYPES.filter((type) => value[type] !== undefined);
  return present.length === 1 ? null : `must have exactly one of the keys ${MONITOR_TYPES.join(', ')}`;
};
