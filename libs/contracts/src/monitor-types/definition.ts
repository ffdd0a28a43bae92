import { type Checker, described, Field, type JsonSchema } from '#validation';
import { MAX_URL_LENGTH, schemePattern, type TargetParse } from '../targets.js';

/**
 * Everything Picket knows about one monitor type, declared once in its own file under
 * `monitor-types/` and listed once in MONITOR_TYPE_TABLE (`../monitor-types.ts`). The stored
 * settings type `S` is what `toSettings` returns: the API answers it, the database stores it, the
 * probe wire carries it and the prober of the type (libs/probes) receives it.
 */
export interface MonitorTypeDefinition<S extends { url: string }, D extends object, T> {
  /** The DTO of `settings.<type>`: the API and the probe wire both validate with it. */
  readonly dto: new () => D;
  /** The stored form of a validated DTO (defaults filled in, optional fields only when set). */
  readonly toSettings: (dto: D) => S;
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
