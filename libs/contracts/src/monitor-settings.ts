import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import { Field, isPlainObject, type Checker } from '#validation';
import {
  MONITOR_TYPE_TABLE,
  MONITOR_TYPES,
  type MonitorType,
  type SettingsByType,
  type SettingsDtoByType,
} from './monitor-types.js';

/**
 * Monitor settings (docs/decisions/0004-monitors.md): `{ <type>: <that type's settings> }`, as the
 * API accepts them and the probe wire carries them. What each type accepts and stores is declared
 * in its file under monitor-types/; this file only spreads that over the table.
 */

/** `settings` as validated: at most one key per type, each checked by its type's DTO. */
export type TypeKeyedSettingsDto<T extends MonitorType = MonitorType> = { [K in T]?: SettingsDtoByType[K] };

const settingsObject: Checker = (value) => (isPlainObject(value) ? null : 'must be an object');

/**
 * A DTO class with one optional property per monitor type of `types` (every type for the API,
 * the probed ones for the probe wire), each validated by its type's DTO (the decorators a
 * hand-written class would carry, applied in table order). The parent field decides how many
 * keys are allowed (the API and the probe wire word that differently).
 */
export function typeKeyedSettingsDto<T extends MonitorType = MonitorType>(
  name: string,
  types: readonly T[] = MONITOR_TYPES as readonly T[],
): new () => TypeKeyedSettingsDto<T> {
  const cls = { [name]: class {} }[name] as new () => TypeKeyedSettingsDto<T>;
  const prototype = cls.prototype as object;
  for (const type of types) {
    const dto = MONITOR_TYPE_TABLE[type].dto;
    Type(() => dto)(prototype, type);
    ValidateNested()(prototype, type);
    Field(settingsObject, { optional: true })(prototype, type);
  }
  return cls;
}

/** The type of validated settings and their stored form. */
export type TypedSettings = { [K in MonitorType]: { type: K; settings: SettingsByType[K] } }[MonitorType];

/** The type and stored form of validated settings (exactly one type key). */
export function splitSettings(dto: TypeKeyedSettingsDto): TypedSettings {
  for (const type of MONITOR_TYPES) {
    const split = splitAs(type, dto);
    if (split) return split;
  }
  throw new Error('splitSettings called with unvalidated settings');
}

function splitAs<K extends MonitorType>(type: K, dto: TypeKeyedSettingsDto): TypedSettings | undefined {
  const given = dto[type];
  if (given === undefined) return undefined;
  return { type, settings: MONITOR_TYPE_TABLE[type].toSettings(given) } as TypedSettings;
}
