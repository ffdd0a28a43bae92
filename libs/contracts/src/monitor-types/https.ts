import { isIPv4 } from 'node:net';
import parseJsonPath from 'jsonpath-rfc9535/parser';
import { arrayOf, boolean, type Checker, described, Field, isPlainObject, oneOf, text } from '#validation';
import { classifyHost, MAX_URL_LENGTH, parseHttpUrl, schemePattern } from '../targets.js';
import { defineMonitorType, targetChecker } from './definition.js';

/**
 * The `https` monitor type (docs/decisions/0004-monitors.md): an HTTP(S) request to `url`, with
 * optional assertions. Its settings, their DTO, their interpretation and its target syntax.
 */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Stored settings: the inner object of the API's `settings.https`. */
export interface HttpsSettings {
  url: string;
  check_certificate_expiration: boolean;
  http_method?: HttpMethod;
  http_statuses?: string;
  request_headers?: string;
  request_body?: string;
  response_body?: string;
  follow_redirect?: boolean;
  response_body_absent?: string;
  json_assertions?: JsonAssertion[];
  ignore_tls_errors?: boolean;
}

export const JSON_ASSERTION_OPS = ['eq', 'ne', 'contains', 'lt', 'gt', 'exists'] as const;
export type JsonAssertionOp = (typeof JSON_ASSERTION_OPS)[number];

/**
 * One assertion on a JSON response body (docs/decisions/0025-https-assertions.md): the values an
 * RFC 9535 JSONPath selects, compared with `value`. `exists` takes no value or a boolean.
 */
export interface JsonAssertion {
  path: string;
  op: JsonAssertionOp;
  value?: JsonValue;
}

/** A value JSON can carry (arrays and objects as `object`: stored settings stay a shallow type). */
export type JsonValue = string | number | boolean | null | object;

/** The optional HTTPS assertion fields, returned only when set (docs/decisions/0004-monitors.md). */
export const HTTPS_OPTIONAL_FIELDS = [
  'http_method',
  'http_statuses',
  'request_headers',
  'request_body',
  'response_body',
  'follow_redirect',
  'response_body_absent',
  'json_assertions',
  'ignore_tls_errors',
] as const satisfies readonly (keyof HttpsSettings)[];

/** Bounds of the HTTPS fields, shared by the checkers and the OpenAPI document. */
export const DEFAULT_HTTP_STATUSES = '200-399';

export const HTTPS_LIMITS = {
  httpStatusesLength: 200,
  requestHeadersLength: 8192,
  requestHeaders: 50,
  requestBodyLength: 65536,
  responseBodyLength: 4096,
  redirects: 10,
  jsonAssertions: 10,
  jsonPathLength: 500,
  /** Characters of an assertion's `value` as JSON. */
  jsonValueLength: 1000,
} as const;

// ---- checkers -------------------------------------------------------------------------

export const httpUrl = targetChecker(parseHttpUrl, {
  type: 'string',
  maxLength: MAX_URL_LENGTH,
  pattern: schemePattern('http', true),
  description: 'An absolute `http://` or `https://` URL with a host and no user information.',
});

/** One status code (100..599) or an inclusive range of them, as `httpStatuses` reads it. */
const STATUS_PART = String.raw`[1-5]\d{2}(?:\s*-\s*[1-5]\d{2})?`;

/** Status list such as "200-299,301": codes and inclusive ranges of codes 100..599. */
export const httpStatuses: Checker = described(
  (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (value.length > HTTPS_LIMITS.httpStatusesLength) {
      return `must be at most ${HTTPS_LIMITS.httpStatusesLength} characters long`;
    }
    const parts = value.split(',').map((p) => p.trim());
    for (const part of parts) {
      const m = /^(\d{3})(?:\s*-\s*(\d{3}))?$/.exec(part);
      if (!m) return 'must be status codes or ranges separated by commas, such as "200-299,301"';
      const low = Number(m[1]);
      const high = m[2] === undefined ? low : Number(m[2]);
      if (low < 100 || high > 599) return 'status codes must be between 100 and 599';
      if (low > high) return `range ${part} runs backwards`;
    }
    return null;
  },
  {
    type: 'string',
    maxLength: HTTPS_LIMITS.httpStatusesLength,
    // What the parts may look like; a range running backwards is refused too.
    pattern: String.raw`^\s*${STATUS_PART}\s*(?:,\s*${STATUS_PART}\s*)*$`,
    description: 'Status codes (100..599) and inclusive ranges of them, separated by commas, e.g. `200-299,301`.',
  },
);

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex
const HEADER_VALUE_FORBIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * Request headers a monitor may not set (docs/decisions/0004-monitors.md): they frame the
 * request or belong to one connection, so a value of the monitor's could make a checker send a
 * second, smuggled request from the published checker addresses. The HTTP client sets the ones
 * it needs. Lower case.
 */
export const FORBIDDEN_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'http2-settings',
  'expect',
]);

/**
 * A `Host` header value: a host as targets allow it (an ASCII DNS name, IPv4 or bracketed IPv6,
 * judged by classifyHost) with an optional port 1..65535; nothing else.
 */
export function isHostHeaderValue(value: string): boolean {
  if (value.length > 261) return false;
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return false;
  const port = match[2] === undefined ? 1 : Number(match[2]);
  return port >= 1 && port <= 65535 && classifyHost(match[1] ?? '').ok;
}

/**
 * Whether a monitor's request header of this name may be sent: an RFC 9110 token that is not a
 * framing or hop-by-hop header (Picket frames the request and manages the connection). The
 * checker below refuses the others on save; the prober drops them whatever arrives.
 */
export function isSendableHeaderName(name: string): boolean {
  return HEADER_NAME.test(name) && !FORBIDDEN_REQUEST_HEADERS.has(name.toLowerCase());
}

export const requestHeaders: Checker = described(
  (value) => {
    const basic = text({ max: HTTPS_LIMITS.requestHeadersLength, multiline: true })(value);
    if (basic) return basic;
    const lines = (value as string).split(/\r?\n/).filter((line) => line.trim() !== '');
    if (lines.length > HTTPS_LIMITS.requestHeaders) return `must have at most ${HTTPS_LIMITS.requestHeaders} headers`;
    let hosts = 0;
    for (const [i, line] of lines.entries()) {
      const pseudo = /^:([A-Za-z0-9-]+):/.exec(line);
      if (pseudo) return `line ${i + 1}: :${pseudo[1]} is an HTTP/2 pseudo-header`;
      const colon = line.indexOf(':');
      if (colon <= 0) return `line ${i + 1} must have the form "Name: value"`;
      const name = line.slice(0, colon);
      if (!HEADER_NAME.test(name)) return `line ${i + 1} has an invalid header name`;
      const headerValue = line.slice(colon + 1);
      if (HEADER_VALUE_FORBIDDEN.test(headerValue)) return `line ${i + 1} has control characters in its value`;
      const key = name.toLowerCase();
      if (FORBIDDEN_REQUEST_HEADERS.has(key)) {
        return `line ${i + 1}: ${name} may not be set (Picket frames the request and manages the connection)`;
      }
      if (key === 'host') {
        if (++hosts > 1) return `line ${i + 1}: Host may be given only once`;
        if (!isHostHeaderValue(headerValue.trim())) {
          return `line ${i + 1}: Host must be a host name or IP address with an optional port`;
        }
      }
    }
    return null;
  },
  {
    type: 'string',
    maxLength: HTTPS_LIMITS.requestHeadersLength,
    description:
      `Newline-separated \`Name: value\` lines (at most ${HTTPS_LIMITS.requestHeaders}); names are RFC 9110 tokens, ` +
      `values have no control characters. Refused: ${[...FORBIDDEN_REQUEST_HEADERS].join(', ')} ` +
      '(Picket frames the request and manages the connection) and HTTP/2 pseudo-headers; `Host` at most once, ' +
      'as a host name or IP address with an optional port.',
  },
);

/** Whether a JSONPath expression is valid RFC 9535 (parsed, never evaluated here). */
function jsonPathProblem(path: string): string | null {
  try {
    parseJsonPath(path);
    return null;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `is not a valid JSONPath (RFC 9535): ${reason.length > 120 ? `${reason.slice(0, 119)}…` : reason}`;
  }
}

function jsonAssertionProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'must be an object with path, op and value';
  for (const key of Object.keys(value)) {
    if (!['path', 'op', 'value'].includes(key)) return `has an unknown field "${key}"`;
  }
  const { path, op } = value;
  if (typeof path !== 'string') return 'path must be a string';
  if (path.length > HTTPS_LIMITS.jsonPathLength)
    return `path must be at most ${HTTPS_LIMITS.jsonPathLength} characters long`;
  const pathProblem = jsonPathProblem(path);
  if (pathProblem) return `path ${pathProblem}`;
  if (typeof op !== 'string' || !(JSON_ASSERTION_OPS as readonly string[]).includes(op)) {
    return `op must be one of: ${JSON_ASSERTION_OPS.join(', ')}`;
  }
  const given = Object.hasOwn(value, 'value');
  const operand = value.value;
  if (op === 'exists') return !given || typeof operand === 'boolean' ? null : 'value of exists must be true or false';
  if (!given) return `value is required with ${op}`;
  if ((op === 'lt' || op === 'gt') && (typeof operand !== 'number' || !Number.isFinite(operand))) {
    return `value of ${op} must be a number`;
  }
  if (JSON.stringify(operand).length > HTTPS_LIMITS.jsonValueLength) {
    return `value must be at most ${HTTPS_LIMITS.jsonValueLength} characters as JSON`;
  }
  return null;
}

export const jsonAssertions: Checker = arrayOf(
  described(jsonAssertionProblem, {
    type: 'object',
    required: ['path', 'op'],
    additionalProperties: false,
    properties: {
      path: {
        type: 'string',
        maxLength: HTTPS_LIMITS.jsonPathLength,
        description: 'An RFC 9535 JSONPath, e.g. `$.status`.',
      },
      op: { enum: [...JSON_ASSERTION_OPS] },
      value: {
        description:
          'Any JSON value for eq and ne; a number for lt and gt; a string or an array element for contains; ' +
          'for exists, true (default) or false. Required except with exists.',
      },
    },
  }),
  { max: HTTPS_LIMITS.jsonAssertions },
);

// ---- DTO -----------------------------------------------------------------------------

export class HttpsSettingsDto {
  @Field(httpUrl) url!: string;
  @Field(boolean, { optional: true }) check_certificate_expiration?: boolean;
  @Field(oneOf(HTTP_METHODS), { optional: true }) http_method?: HttpMethod;
  @Field(httpStatuses, { optional: true }) http_statuses?: string;
  @Field(requestHeaders, { optional: true }) request_headers?: string;
  @Field(text({ max: HTTPS_LIMITS.requestBodyLength, multiline: true }), { optional: true }) request_body?: string;
  @Field(text({ max: HTTPS_LIMITS.responseBodyLength, min: 1, multiline: true }), { optional: true })
  response_body?: string;
  @Field(boolean, { optional: true }) follow_redirect?: boolean;
  @Field(text({ max: HTTPS_LIMITS.responseBodyLength, min: 1, multiline: true }), { optional: true })
  response_body_absent?: string;
  @Field(jsonAssertions, { optional: true }) json_assertions?: JsonAssertion[];
  @Field(boolean, { optional: true }) ignore_tls_errors?: boolean;
}

// ---- the definition ------------------------------------------------------------------

export const httpsType = defineMonitorType({
  dto: HttpsSettingsDto,
  /** check_certificate_expiration defaults to false; the optional fields are kept only when set, in a fixed order. */
  toSettings: (dto): HttpsSettings => {
    const settings: HttpsSettings = {
      url: dto.url,
      check_certificate_expiration: dto.check_certificate_expiration ?? false,
    };
    for (const key of HTTPS_OPTIONAL_FIELDS) {
      if (dto[key] !== undefined) Object.assign(settings, { [key]: dto[key] });
    }
    return settings;
  },
  parseTarget: parseHttpUrl,
  literalAddress: (url) => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    return isIPv4(host) || host.includes(':') ? host : null;
  },
});

// ---- interpretation (the agent) -----------------------------------------------------------

/** Inclusive status ranges of a validated `http_statuses` value (default 200-399). */
export function parseStatusRanges(spec: string = DEFAULT_HTTP_STATUSES): [number, number][] {
  return spec.split(',').map((part) => {
    const [low = '', high] = part.split('-').map((x) => x.trim());
    return [Number(low), Number(high ?? low)];
  });
}

export function statusAccepted(ranges: readonly (readonly [number, number])[], status: number): boolean {
  return ranges.some(([low, high]) => status >= low && status <= high);
}

/**
 * A stored `request_headers` value with the lines today's checker refuses taken out (framing,
 * hop-by-hop and pseudo-headers, invalid names or values, a second or malformed Host): what a
 * monitor saved before those rules still sends. Undefined when nothing valid is left. The
 * migration that repairs stored monitors uses it (docs/decisions/0017-http-edge-hardening.md).
 */
export function keepSendableHeaderLines(text: string): string | undefined {
  let host = false;
  const kept = text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      const colon = line.indexOf(':');
      if (colon <= 0) return false;
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1);
      if (!isSendableHeaderName(name) || HEADER_VALUE_FORBIDDEN.test(value)) return false;
      if (name.toLowerCase() !== 'host') return true;
      if (host || !isHostHeaderValue(value.trim())) return false;
      host = true;
      return true;
    })
    .join('\n');
  return kept !== '' && requestHeaders(kept) === null ? kept : undefined;
}

/** `[name, value]` pairs of a validated `request_headers` value. */
export function parseHeaderLines(text: string | undefined): [string, string][] {
  if (text === undefined) return [];
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    });
}
