import { type Checker, described, Field, type JsonSchema } from '#validation';
import { MAX_URL_LENGTH, schemePattern, type TargetParse } from '../targets.js';

/**
 * What every monitor type declares, probed or passive: the settings the API accepts and stores.
 * A passive type (heartbeat, docs/decisions/0027-heartbeat-monitors.md) declares only this: no
 * agent probes it, so it has no target, no prober and no place on the probe wire.
 */
export interface SettingsTypeDefinition<S extends object, D extends object> {
  /** The DTO of `settings.<type>`: the API (and, for a probed type, the probe wire) validates with it. */
  readonly dto: new () => D;
  /** The stored form of a validated DTO (defaults filled in, optional fields only when set). */
  readonly toSettings: (dto: D) => S;
}

/** Declares a passive monitor type (settings only); the types of its settings and DTO are inferred. */
export function defineSettingsType<S extends object, D extends object>(
  definition: SettingsTypeDefinition<S, D>,
): SettingsTypeDefinition<S, D> {
  return definition;
}

/**
 * Everything Picket knows about one probed monitor type, declared once in its own file under
 * `monitor-types/` and listed once in PROBED_TYPE_TABLE (`../monitor-types.ts`). The stored
 * settings type `S` is what `toSettings` returns: the API answers it, the database stores it, the
 * probe wire carries it and the prober of the type (libs/probes) receives it.
 */
export interface MonitorTypeDefinition<S extends { url: string }, D extends object, T> extends SettingsTypeDefinition<
  S,
  D
> {
  /** Reads the target URL as written; its problems are the DTO's `url` messages. */
  readonly parseTarget: (url: string) => TargetParse<T>;
  /**
   * The IP address a valid target names literally, or null for a host name: the egress policy
   * judges literals when a monitor is saved, names only at connect time.
   */
  readonly literalAddress: (target: T) => string | null;
}

/** Declares a monitor type; the types of its settings, DTO and target are inferred. */
export function defineMonitorType<S extends { url: string }, D extends object, T>(
  definition: MonitorTypeDefinition<S, D, T>,
): MonitorTypeDefinition<S, D, T> {
  return definition;
}

/**
 * The `url` checker of a DTO: a string that the type's target parser accepts; `schema` is what
 * the OpenAPI document says of it (docs/decisions/0016-openapi-from-declarations.md).
 */
export function targetChecker(parse: (value: string) => TargetParse<unknown>, schema: JsonSchema): Checker {
  return described((value) => {
    if (typeof value !== 'string') return 'must be a string';
    const result = parse(value);
    return result.ok ? null : result.problem;
  }, schema);
}

/** The schema of a `<scheme>://…` target URL: a string of at most MAX_URL_LENGTH, with that scheme. */
export function targetSchema(scheme: string, description: string): JsonSchema {
  return { type: 'string', maxLength: MAX_URL_LENGTH, pattern: schemePattern(scheme), description };
}

/** Stored settings of a type that is its target URL alone. */
export interface UrlOnlySettings {
  url: string;
}

/** A type whose settings are its target URL alone (tcp, ping): a DTO with `url` checked by `parseTarget`. */
export function urlOnlyMonitorType<T>(
  parseTarget: (url: string) => TargetParse<T>,
  literalAddress: (target: T) => string | null,
  urlSchema: JsonSchema,
) {
  class UrlOnlySettingsDto {
    @Field(targetChecker(parseTarget, urlSchema)) url!: string;
  }
  return defineMonitorType({
    dto: UrlOnlySettingsDto,
    toSettings: (dto): UrlOnlySettings => ({ url: dto.url }),
    parseTarget,
    literalAddress,
  });
}
