import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';
import {
  HTTPS_OPTIONAL_FIELDS,
  HttpsSettingsDto,
  MONITOR_TYPES,
  PingSettingsDto,
  TcpSettingsDto,
  type HttpsSettings,
  type MonitorSettings,
  type MonitorType,
} from '#contracts';
import { type Checker, Field, isPlainObject } from '#validation';

const settingsObject: Checker = (value) => (isPlainObject(value) ? null : 'must be an object');

export class MonitorSettingsDto {
  @Field(settingsObject, { optional: true })
  @ValidateNested()
  @Type(() => HttpsSettingsDto)
  https?: HttpsSettingsDto;

  @Field(settingsObject, { optional: true })
  @ValidateNested()
  @Type(() => TcpSettingsDto)
  tcp?: TcpSettingsDto;

  @Field(settingsObject, { optional: true })
  @ValidateNested()
  @Type(() => PingSettingsDto)
  ping?: PingSettingsDto;
}

/** `settings` must be an object with exactly one of the type keys. */
export const exactlyOneType: Checker = (value) => {
  if (!isPlainObject(value)) return 'must be an object';
  const present = MONITOR_TYPES.filter((type) => value[type] !== undefined);
  return present.length === 1 ? null : `must have exactly one of the keys ${MONITOR_TYPES.join(', ')}`;
};

/** The type and stored form of validated settings. */
export function splitSettings(dto: MonitorSettingsDto): { type: MonitorType; settings: MonitorSettings } {
  if (dto.https) {
    const https = dto.https;
    const settings: HttpsSettings = {
      url: https.url,
      check_certificate_expiration: https.check_certificate_expiration ?? false,
    };
    for (const key of HTTPS_OPTIONAL_FIELDS) {
      if (https[key] !== undefined) Object.assign(settings, { [key]: https[key] });
    }
    return { type: 'https', settings };
  }
  if (dto.tcp) return { type: 'tcp', settings: { url: dto.tcp.url } };
  if (dto.ping) return { type: 'ping', settings: { url: dto.ping.url } };
  throw new Error('splitSettings called with unvalidated settings');
}
