/**
 * fast-check arbitraries for the hostile-input suite (docs/decisions/0002-wire-conventions.md,
 * goals I1/I2): valid monitor and contact bodies, and one arbitrary per bad-input class built
 * around them. Every generated case says which answers the server may give, as far as the case
 * alone decides it, so the suite checks more than "no 5xx".
 */
import fc from 'fast-check';
import { REGION_IDS } from '#contracts';
import { SPEC_WRITABLE_CHANNELS } from './spec-lists.js';

// ---- cases ------------------------------------------------------------------------------

/** `success` is the endpoint's own 2xx (201 for create, 204 for delete, 200 otherwise). */
export type Outcome = 'success' | 400 | 403 | 404 | 413 | 415 | 422;

export const BODY_CLASSES = [
  'valid',
  'oversize-body',
  'content-type',
  'malformed-json',
  'invalid-utf8',
  'deep-nesting',
  'prototype-poisoning',
  'unknown-field',
  'read-only-field',
  'wrong-type',
  'hostile-number',
  'unicode',
  'crlf',
  'mutation',
] as const;
export type BodyClass = (typeof BODY_CLASSES)[number];

export interface BodyCase {
  cls: BodyClass | 'no-body' | 'any-json';
  note: string;
  /** The request body (text is sent as UTF-8); undefined sends no body. */
  body?: string | Uint8Array;
  /** Content-Type header; undefined sends none. */
  contentType?: string;
  /** What the server may answer when the target exists, if the body alone decides it. */
  expect?: readonly Outcome[];
  [fc.toStringMethod](): string;
}

export const QUERY_CLASSES = [
  'valid-query',
  'boolean-string',
  'numeric-string',
  'page-bounds',
  'repeated-param',
  'nested-query',
  'unknown-param',
  'bad-enum',
  'unicode-query',
] as const;
export type QueryClass = (typeof QUERY_CLASSES)[number];

export interface QueryCase {
  cls: QueryClass;
  /** Raw query string without `?` (already percent-encoded as it goes on the wire). */
  query: string;
  expect?: readonly Outcome[];
  [fc.toStringMethod](): string;
}

const PARSE_LEVEL: readonly Outcome[] = [400, 413, 415];

/** A body case whose answer is decided before any route sees it (400, 413, 415). */
export function parseLevelStatus(c: BodyCase): 400 | 413 | 415 | undefined {
  const only = c.expect?.length === 1 ? c.expect[0] : undefined;
  return only !== undefined && PARSE_LEVEL.includes(only) ? (only as 400 | 413 | 415) : undefined;
}

const JSON_TYPE = 'application/json';

function describeBody(body: string | Uint8Array | undefined): string {
  if (body === undefined) return 'no body';
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('latin1');
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const shown = text.length > 160 ? `${JSON.stringify(text.slice(0, 120))}…` : JSON.stringify(text);
  return `${size} bytes ${shown}`;
}

/** `contentType` null sends no Content-Type header; left out, a body is sent as application/json. */
export function bodyCase(
  cls: BodyCase['cls'],
  note: string,
  body: string | Uint8Array | undefined,
  expect?: readonly Outcome[],
  type?: string | null,
): BodyCase {
  const contentType = type === null ? undefined : (type ?? (body === undefined ? undefined : JSON_TYPE));
  return {
    cls,
    note,
    body,
    contentType,
    expect,
    [fc.toStringMethod]: () =>
      `[${cls}] ${note}; content-type ${contentType ?? '(none)'}; ${describeBody(body)}; expect ${expect?.join('|') ?? 'any 4xx/2xx'}`,
  };
}

export function queryCase(cls: QueryClass, query: string, expect?: readonly Outcome[]): QueryCase {
  return {
    cls,
    query,
    expect,
    [fc.toStringMethod]: () =>
      `[${cls}] ?${query.length > 200 ? `${query.slice(0, 200)}…` : query}; expect ${expect?.join('|') ?? 'any'}`,
  };
}

// ---- JSON values and paths --------------------------------------------------------------

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
type Path = readonly (string | number)[];

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Nesting depth as the server counts it: `{}` and `[]` are 1, scalars 0. */
export function depthOf(value: Json): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (isObject(value)) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

/** Every path below the root, parents before children. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, i) => out.push([...prefix, i], ...pathsOf(item, [...prefix, i])));
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) out.push([...prefix, key], ...pathsOf(item, [...prefix, key]));
  }
  return out;
}

function getAt(value: Json, path: Path): Json | undefined {
  let node: Json | undefined = value;
  for (const step of path) {
    if (Array.isArray(node) && typeof step === 'number') node = node[step];
    else if (isObject(node) && typeof step === 'string') node = node[step];
    else return undefined;
  }
  return node;
}

function stringAt(value: Json, path: Path): string {
  const node = getAt(value, path);
  return typeof node === 'string' ? node : '';
}

/** A copy of `root` with the node at `path` replaced (or removed when `next` is undefined). */
function setAt(root: JsonObject, path: Path, next: Json | undefined): JsonObject {
  const copy = structuredClone(root);
  const parent = getAt(copy, path.slice(0, -1));
  const last = path[path.length - 1];
  if (Array.isArray(parent) && typeof last === 'number') {
    if (next === undefined) parent.splice(last, 1);
    else parent[last] = next;
  } else if (isObject(parent) && typeof last === 'string') {
    if (next === undefined) delete parent[last];
    else parent[last] = next;
  }
  return copy;
}

function pathText(path: Path): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('') || '(root)';
}

function pick<T>(items: readonly T[], index: number): T {
  const item = items[index % items.length];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** JSON text of `body` where the string `@@RAW@@` is replaced by raw JSON text. */
const RAW = '@@RAW@@';
function withRaw(body: JsonObject, raw: string): string {
  return JSON.stringify(body).replace(JSON.stringify(RAW), raw);
}

// ---- valid values -----------------------------------------------------------------------

const SAFE_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:()#éüßñ中文😀'];
const safeText = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...SAFE_CHARS), minLength, maxLength });
const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
/** A display name: starts with a letter, at most 61 code points. */
export const validName = fc.tuple(letter, safeText(0, 60)).map(([a, b]) => a + b);
const token = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-'),
  minLength: 1,
  maxLength: 40,
});
const hostName = fc.constantFrom(
  'example.com',
  'status.example.org',
  'api.example.net',
  'db.internal',
  'xn--bcher-kva.example',
);
const host = fc.oneof(
  hostName,
  fc.constantFrom('203.0.113.7', '198.51.100.20', '[2001:db8::1]', '[::ffff:203.0.113.9]'),
);
const urlPath = fc.constantFrom('', '/', '/health', '/api/v1/status?full=1', '/a/b/c#frag', '/%E2%9C%93');
const httpUrl = fc.tuple(fc.constantFrom('http', 'https'), host, urlPath).map(([s, h, p]) => `${s}://${h}${p}`);
const httpsUrl = fc.tuple(hostName, urlPath).map(([h, p]) => `https://hooks.${h}${p}`);
const email = fc.tuple(token, hostName).map(([local, domain]) => `${local}@${domain}`);

export const MONITOR_NUMBERS = {
  check_interval: { min: 10, max: 600 },
  timeout: { min: 5, max: 60 },
  fail_threshold: { min: 1, max: 10 },
} as const;

const headerLine = fc.tuple(fc.constantFrom('X-Token', 'Accept', 'X-Trace-Id', 'Cache-Control'), safeText(0, 20));
const httpsSettings = fc.record(
  {
    url: httpUrl,
    check_certificate_expiration: fc.boolean(),
    http_method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
    http_statuses: fc.constantFrom('200', '200-299', '200-299,301', '200 - 299 , 418'),
    request_headers: fc
      .array(headerLine, { minLength: 1, maxLength: 3 })
      .map((lines) => lines.map(([n, v]) => `${n}: ${v}`).join('\n')),
    request_body: safeText(0, 40),
    response_body: safeText(1, 20),
    follow_redirect: fc.boolean(),
  },
  { requiredKeys: ['url'] },
);
const monitorSettings = fc.oneof(
  httpsSettings.map((https) => ({ https })),
  fc.tuple(host, fc.integer({ min: 1, max: 65535 })).map(([h, port]) => ({ tcp: { url: `tcp://${h}:${port}` } })),
  host.map((h) => ({ ping: { url: `ping://${h}` } })),
);

function monitorFields(contactIds: readonly string[]) {
  return {
    name: validName,
    settings: monitorSettings,
    active: fc.boolean(),
    check_interval: fc.integer(MONITOR_NUMBERS.check_interval),
    timeout: fc.integer(MONITOR_NUMBERS.timeout),
    fail_threshold: fc.integer(MONITOR_NUMBERS.fail_threshold),
    regions: fc.uniqueArray(fc.constantFrom(...REGION_IDS), { minLength: 1, maxLength: 4 }),
    contacts:
      contactIds.length > 0 ? fc.uniqueArray(fc.constantFrom(...contactIds), { maxLength: 3 }) : fc.constant([]),
    notification_rules: notificationRules(contactIds),
  };
}

/** Valid `notification_rules`: any subset of the keys, steps strictly increasing. */
function notificationRules(contactIds: readonly string[]): fc.Arbitrary<JsonObject> {
  const stepContacts =
    contactIds.length > 0 ? fc.uniqueArray(fc.constantFrom(...contactIds), { maxLength: 3 }) : fc.constant([]);
  const escalation = fc
    .uniqueArray(fc.integer({ min: 60, max: 86_400 }), { maxLength: 5 })
    .chain((afters) =>
      fc.tuple(
        ...[...afters]
          .sort((a, b) => a - b)
          .map((after_seconds) => stepContacts.map((contacts) => ({ after_seconds, contacts }))),
      ),
    );
  return fc.record(
    {
      delay_seconds: fc.integer({ min: 0, max: 3600 }),
      repeat_interval_seconds: fc.oneof(fc.constant(0), fc.integer({ min: 300, max: 86_400 })),
      escalation,
    },
    { requiredKeys: [] },
  ) as fc.Arbitrary<JsonObject>;
}

/** Number slots inside `notification_rules`: the delay, the interval, a single step's time. */
const RULE_NUMBERS: { path: Path; accepts: (v: unknown) => boolean }[] = [
  { path: ['notification_rules', 'delay_seconds'], accepts: (v) => integerIn(0, 3600)(v) },
  {
    path: ['notification_rules', 'repeat_interval_seconds'],
    accepts: (v) => v === 0 || integerIn(300, 86_400)(v),
  },
  { path: ['notification_rules', 'escalation', 0, 'after_seconds'], accepts: (v) => integerIn(60, 86_400)(v) },
];

/** Rules that must be refused: steps not increasing, six steps, another account's or an unknown contact in a step. */
function invalidRules(valid: fc.Arbitrary<JsonObject>, foreignContactId: string): fc.Arbitrary<JsonObject> {
  const step = (after_seconds: number, contacts: string[] = []) => ({ after_seconds, contacts });
  const bad = fc.constantFrom<JsonObject>(
    { escalation: [step(600), step(600)] },
    { escalation: [step(600), step(300)] },
    { escalation: [60, 120, 180, 240, 300, 360].map((s) => step(s)) },
    { escalation: [step(60, [foreignContactId])] },
    { escalation: [step(60, ['ffffffffffffffffffffffff'])] },
    { repeat_interval_seconds: 299 },
  );
  return fc.tuple(valid, bad).map(([body, notification_rules]) => ({ ...body, notification_rules }));
}

/** A valid POST /api/monitors body; `contactIds` are contacts of the requesting account. */
export function validMonitorCreate(contactIds: readonly string[]): fc.Arbitrary<JsonObject> {
  return fc.record(monitorFields(contactIds), {
    requiredKeys: ['name', 'settings', 'regions'],
  }) as fc.Arbitrary<JsonObject>;
}

/** A valid PUT /api/monitors/{id} body (every field optional). */
export function validMonitorUpdate(contactIds: readonly string[]): fc.Arbitrary<JsonObject> {
  return fc.record(monitorFields(contactIds), { requiredKeys: [] }) as fc.Arbitrary<JsonObject>;
}

export const WRITABLE_CHANNELS = SPEC_WRITABLE_CHANNELS;
export type WritableChannel = (typeof WRITABLE_CHANNELS)[number];

const secretToken = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789-_.'),
  minLength: 1,
  maxLength: 48,
});
const tags = fc.uniqueArray(
  safeText(0, 15).map((t) => `t${t}`),
  { maxLength: 4 },
);
const flag = fc.boolean();

/** Each channel's details: required fields, then optional ones (docs/decisions/0006-contacts.md). */
const DETAILS: { readonly [K in WritableChannel]: { fields: Record<string, fc.Arbitrary<Json>>; required: string[] } } =
  {
    email: { fields: { email }, required: ['email'] },
    webhook: {
      fields: {
        url: httpUrl,
        secret: fc
          .uint8Array({ minLength: 24, maxLength: 64 })
          .map((b) => `whsec_${Buffer.from(b).toString('base64')}`),
      },
      required: ['url'],
    },
    chatone: { fields: { webhook_url: httpsUrl }, required: ['webhook_url'] },
    chattwo: { fields: { webhook_url: httpsUrl }, required: ['webhook_url'] },
    chatthree: { fields: { webhook_url: httpsUrl }, required: ['webhook_url'] },
    paging: {
      fields: {
        integration_key: secretToken,
        severity_mapping: fc.record(
          {
            critical: fc.constantFrom('critical', 'error', 'warning', 'info'),
            high: fc.constantFrom('critical', 'error', 'warning', 'info'),
            medium: fc.constantFrom('critical', 'error', 'warning', 'info'),
            low: fc.constantFrom('critical', 'error', 'warning', 'info'),
          },
          { requiredKeys: [] },
        ),
        auto_resolve_incidents: flag,
      },
      required: ['integration_key'],
    },
    incidentmgmt: {
      fields: { webhook_url: httpsUrl, bearer_token: secretToken, auto_resolve_incidents: flag },
      required: ['webhook_url', 'bearer_token'],
    },
    alerting: {
      fields: {
        api_key: secretToken,
        priority: fc.constantFrom('P1', 'P2', 'P3', 'P4', 'P5'),
        responders: fc.array(
          fc.record({ type: fc.constantFrom('team', 'user', 'escalation', 'schedule'), id: validName }),
          { maxLength: 3 },
        ),
        tags,
        auto_close_alerts: flag,
        eu_instance: flag,
      },
      required: ['api_key'],
    },
    ticketing: {
      fields: {
        subdomain: fc.constantFrom('acme', 'acme-2', 'a1', 'support-desk'),
        email,
        api_token: secretToken,
        priority: fc.constantFrom('low', 'normal', 'high', 'urgent'),
        custom_fields: fc.array(fc.record({ id: fc.integer({ min: 1, max: 2 ** 40 }), value: safeText(0, 30) }), {
          maxLength: 3,
        }),
        tags,
        auto_solve_tickets: flag,
      },
      required: ['subdomain', 'email', 'api_token'],
    },
  };

export function validDetails(channel: WritableChannel, partial = false): fc.Arbitrary<JsonObject> {
  const { fields, required } = DETAILS[channel];
  return fc.record(fields, { requiredKeys: partial ? [] : required });
}

/** A valid POST /api/contacts body for one channel, or for any writable channel. */
export function validContactCreate(channel?: WritableChannel): fc.Arbitrary<JsonObject> {
  const channels = channel === undefined ? WRITABLE_CHANNELS : [channel];
  return fc.oneof(
    ...channels.map(
      (ch) =>
        fc.record(
          {
            name: validName,
            channel: fc.constant(ch),
            details: validDetails(ch),
            active: flag,
            down_alerts_only: flag,
          },
          { requiredKeys: ['name', 'channel', 'details'] },
        ) as fc.Arbitrary<JsonObject>,
    ),
  );
}

/** A valid PUT /api/contacts/{id} body for a contact of `channel` (details merge over the stored ones). */
export function validContactUpdate(channel: WritableChannel): fc.Arbitrary<JsonObject> {
  return fc.record(
    {
      name: validName,
      channel: fc.constant(channel),
      details: validDetails(channel, true),
      active: flag,
      down_alerts_only: flag,
    },
    { requiredKeys: [] },
  );
}

/** Field names of every resource, nested ones included: "unknown" keys avoid all of them. */
const KNOWN_FIELDS = new Set([
  ...['name', 'settings', 'active', 'check_interval', 'timeout', 'fail_threshold', 'regions', 'contacts'],
  ...['https', 'tcp', 'ping', 'url', 'check_certificate_expiration', 'http_method', 'http_statuses'],
  ...['request_headers', 'request_body', 'response_body', 'follow_redirect'],
  ...['id', 'created_at', 'updated_at', 'last_status', 'last_status_change', 'error'],
  'last_checked_at',
  ...['channel', 'details', 'down_alerts_only', 'email', 'secret', 'webhook_url', 'integration_key'],
  ...['severity_mapping', 'critical', 'high', 'medium', 'low', 'auto_resolve_incidents', 'bearer_token'],
  ...['api_key', 'priority', 'responders', 'type', 'tags', 'auto_close_alerts', 'eu_instance', 'subdomain'],
  ...['api_token', 'custom_fields', 'value', 'auto_solve_tickets', 'endpoint', 'keys', 'p256dh', 'auth'],
]);

/** Unknown keys, including the names of Object.prototype members and look-alikes of real fields. */
export const unknownKey = fc
  .oneof(
    fc.constantFrom(
      'extra',
      'account_id',
      'accountId',
      'owner',
      'is_admin',
      'monitor_type',
      'Name',
      'NAME',
      'name ',
      ' name',
      'name\u200b',
      'na\u0301me',
      '',
      '$where',
      'settings.https.url',
      'constructor',
      'prototype',
      'hasOwnProperty',
      'isPrototypeOf',
      'propertyIsEnumerable',
      'toString',
      'toLocaleString',
      'valueOf',
      '__defineGetter__',
      '__defineSetter__',
      '__lookupGetter__',
      '__lookupSetter__',
      '__proto__x',
    ),
    fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_'), minLength: 1, maxLength: 12 }),
  )
  .filter((key) => !KNOWN_FIELDS.has(key));

/**
 * What an added unknown key earns: 422, except `__proto__`, which the JSON parser refuses
 * (400). fast-check itself likes to generate `__proto__` as a string.
 */
function unknownKeyStatus(key: string): 400 | 422 {
  return key === '__proto__' ? 400 : 422;
}

// ---- body schemas -------------------------------------------------------------------------

/** A slot that receives a number: the body around it and whether a value fits there. */
export interface NumberSlot {
  body: JsonObject;
  path: Path;
  accepts: (value: unknown) => boolean;
}

export interface BodySchema {
  /** Valid bodies for the endpoint. */
  valid: fc.Arbitrary<JsonObject>;
  /** Required top-level display-name field (for Unicode abuse), if any. */
  nameField?: string;
  /** Read-only fields and sentinel values: ignored by the server, never stored. */
  readOnly: JsonObject;
  /** Valid bodies with a number slot. */
  numbers: fc.Arbitrary<NumberSlot>;
  /** Bodies with CR, LF or other controls in a field that must refuse them. */
  crlf: fc.Arbitrary<JsonObject>;
  /** Extra bodies the endpoint must refuse with 422 (e.g. a read-only channel). */
  alsoInvalid?: fc.Arbitrary<JsonObject>;
}

export const READ_ONLY_SENTINEL_ID = '000000000000000000000001';
export const READ_ONLY_SENTINEL_TIME = 1;

const integerIn =
  (min: number, max: number) =>
  (v: unknown): boolean =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

const CRLF_URL_SUFFIXES = ['\r\nX-Injected: 1', '\n', '\r', '\t', ' ', '%0d%0a\r\n', '\u0000', '\u007f'];

function monitorCrlf(base: fc.Arbitrary<JsonObject>): fc.Arbitrary<JsonObject> {
  const badUrl = fc.tuple(
    fc.constantFrom('https://exa', 'https://example.com/', 'tcp://db', 'ping://host'),
    fc.constantFrom(...CRLF_URL_SUFFIXES),
    fc.constantFrom('mple.com', '/x', ':5432', ''),
  );
  const badHeaders = fc.constantFrom(
    'X-A: a\rInjected: 1',
    'X-A: a\r\n\r\nGET / HTTP/1.1',
    'X-A\r\n: v',
    'X A: v',
    'X-A: v\u0000',
    'X-A: v\u000b',
    'X-A: v\u007f',
    ': no-name',
    'X-A\u0085: v',
  );
  return fc.oneof(
    fc.tuple(base, badUrl).map(([body, [a, b, c]]) => {
      const url = a + b + c;
      const type = url.startsWith('tcp') ? 'tcp' : url.startsWith('ping') ? 'ping' : 'https';
      return { ...body, settings: { [type]: { url } } };
    }),
    fc.tuple(base, badHeaders).map(([body, request_headers]) => ({
      ...body,
      settings: { https: { url: 'https://example.com/', request_headers } },
    })),
    fc.tuple(base, fc.constantFrom('Ops\r\nBcc: x@example.com', 'a\nb', 'tab\there')).map(([body, name]) => ({
      ...body,
      name,
    })),
  );
}

/** Monitor contacts that must be refused: another account's contact, an unknown one. */
function foreignContacts(valid: fc.Arbitrary<JsonObject>, foreignContactId: string): fc.Arbitrary<JsonObject> {
  return fc
    .tuple(valid, fc.constantFrom(foreignContactId, 'ffffffffffffffffffffffff'))
    .map(([body, id]) => ({ ...body, contacts: [...((body.contacts as string[] | undefined) ?? []), id] }));
}

const MONITOR_READ_ONLY: JsonObject = {
  id: READ_ONLY_SENTINEL_ID,
  created_at: READ_ONLY_SENTINEL_TIME,
  updated_at: READ_ONLY_SENTINEL_TIME,
  last_status: 'down',
  last_status_change: READ_ONLY_SENTINEL_TIME,
  last_checked_at: READ_ONLY_SENTINEL_TIME,
};

function monitorSchema(valid: fc.Arbitrary<JsonObject>, foreignContactId: string): BodySchema {
  const keys = Object.keys(MONITOR_NUMBERS) as (keyof typeof MONITOR_NUMBERS)[];
  return {
    valid,
    alsoInvalid: fc.oneof(foreignContacts(valid, foreignContactId), invalidRules(valid, foreignContactId)),
    nameField: 'name',
    readOnly: MONITOR_READ_ONLY,
    numbers: fc.oneof(
      fc.tuple(valid, fc.constantFrom(...keys)).map(([body, key]) => ({
        body,
        path: [key],
        accepts: integerIn(MONITOR_NUMBERS[key].min, MONITOR_NUMBERS[key].max),
      })),
      // A body whose rules have exactly one step, so its time alone decides.
      fc.tuple(valid, fc.constantFrom(...RULE_NUMBERS)).map(([body, slot]) => ({
        body: { ...body, notification_rules: { escalation: [{ after_seconds: 600, contacts: [] }] } },
        path: slot.path,
        accepts: slot.accepts,
      })),
    ),
    crlf: monitorCrlf(valid),
  };
}

/** POST /api/monitors; `contactIds` are the account's contacts, `foreignContactId` another account's. */
export function monitorCreateSchema(contactIds: readonly string[], foreignContactId: string): BodySchema {
  return monitorSchema(validMonitorCreate(contactIds), foreignContactId);
}

/** PUT /api/monitors/{id}. */
export function monitorUpdateSchema(contactIds: readonly string[], foreignContactId: string): BodySchema {
  return monitorSchema(validMonitorUpdate(contactIds), foreignContactId);
}

const CONTACT_READ_ONLY: JsonObject = {
  id: READ_ONLY_SENTINEL_ID,
  created_at: READ_ONLY_SENTINEL_TIME,
  error: { code: 'x', message: 'y', failed_at: 1, consecutive_failures: 9 },
};

function contactCrlf(channel: WritableChannel | undefined, base: fc.Arbitrary<JsonObject>): fc.Arbitrary<JsonObject> {
  const suffix = fc.constantFrom(...CRLF_URL_SUFFIXES);
  const byChannel = (ch: WritableChannel, s: string): JsonObject => {
    switch (ch) {
      case 'email':
        return { email: s.length % 2 === 0 ? `ops@example.com${s}Bcc: x@example.com` : `ops@exa${s}mple.com` };
      case 'webhook':
        return { url: `https://example.com/${s}x` };
      case 'chatone':
      case 'chattwo':
      case 'chatthree':
        return { webhook_url: `https://hooks.exa${s}mple.com/x` };
      case 'paging':
        return { integration_key: `key${s}more` };
      case 'incidentmgmt':
        return { webhook_url: `https://example.com/${s}`, bearer_token: 'tok' };
      case 'alerting':
        return { api_key: `k${s}` };
      case 'ticketing':
        return { subdomain: 'acme', email: `a@example.com${s}`, api_token: 't' };
    }
  };
  return fc.oneof(
    fc.tuple(base, suffix).map(([body, s]) => {
      const ch = (body.channel as WritableChannel | undefined) ?? channel ?? 'email';
      return { ...body, details: byChannel(ch, s) };
    }),
    fc.tuple(base, fc.constantFrom('Ops\r\nBcc: x@example.com', 'a\nb', 'tab\there')).map(([body, name]) => ({
      ...body,
      name,
    })),
  );
}

function ticketingNumbers(base: fc.Arbitrary<JsonObject>): fc.Arbitrary<NumberSlot> {
  return fc.oneof(
    base.map((body) => ({
      body: { ...body, details: { ...(body.details as JsonObject), custom_fields: [{ id: 1, value: 'v' }] } },
      path: ['details', 'custom_fields', 0, 'id'],
      accepts: integerIn(1, Number.MAX_SAFE_INTEGER),
    })),
    base.map((body) => ({ body, path: ['active'], accepts: (v: unknown) => typeof v === 'boolean' })),
  );
}

export function contactCreateSchema(): BodySchema {
  const valid = validContactCreate();
  return {
    valid,
    nameField: 'name',
    readOnly: CONTACT_READ_ONLY,
    numbers: ticketingNumbers(validContactCreate('ticketing')),
    crlf: contactCrlf(undefined, valid),
    alsoInvalid: validName.map((name) => ({
      name,
      channel: 'push',
      details: { endpoint: 'https://push.example.com/x', keys: { p256dh: 'k', auth: 'a' } },
    })),
  };
}

export function contactUpdateSchema(channel: WritableChannel): BodySchema {
  const valid = validContactUpdate(channel);
  return {
    valid,
    readOnly: CONTACT_READ_ONLY,
    numbers:
      channel === 'ticketing'
        ? ticketingNumbers(valid)
        : valid.map((body) => ({ body, path: ['down_alerts_only'], accepts: (v: unknown) => typeof v === 'boolean' })),
    crlf: contactCrlf(channel, valid),
    alsoInvalid: fc.constantFrom<JsonObject>(
      { channel: channel === 'email' ? 'webhook' : 'email' },
      { channel: 'push' },
      { details: null },
      { name: null },
    ),
  };
}

/** Bodies generated so far: each valid region id gets its own suffix, since a repeated id is 422. */
let regionSerial = 0;

/**
 * `POST /api/regions`: `{id, name}` (docs/decisions/0030-private-regions.md). Every valid body has
 * an id no other has had, so it is created (201), never refused as a duplicate.
 */
export function regionCreateSchema(): BodySchema {
  const idStem = fc.tuple(
    fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
    fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-'), minLength: 2, maxLength: 16 }),
  );
  const valid = fc
    .tuple(idStem, validName)
    .map(([[first, rest], name]) => ({ id: `${first}${rest}-${(regionSerial++).toString(36)}`, name }));
  return {
    valid,
    nameField: 'name',
    readOnly: { type: 'private', agents_online: 0, created_at: READ_ONLY_SENTINEL_TIME },
    // No number field: a number (or a numeric string) as the id is refused.
    numbers: valid.map((body) => ({ body, path: ['id'], accepts: () => false })),
    crlf: fc.oneof(
      fc
        .tuple(valid, fc.constantFrom(...CRLF_URL_SUFFIXES))
        .map(([body, bad]) => ({ ...body, id: `${body.id}${bad}` })),
      fc.tuple(valid, fc.constantFrom('\r\n', '\n', '\r', '\u0000', '\u007f')).map(([body, bad]) => ({
        ...body,
        name: `a${bad}b`,
      })),
    ),
    // Ids the pattern or the public list refuses, and a body without its name.
    alsoInvalid: fc.oneof(
      fc
        .tuple(
          fc.constantFrom(
            ...REGION_IDS,
            'ab',
            'a'.repeat(33),
            'Office',
            '1office',
            '-office',
            'off_ice',
            'off ice',
            '',
          ),
          validName,
        )
        .map(([id, name]): JsonObject => ({ id, name })),
      valid.map((body): JsonObject => ({ id: body.id })),
    ),
  };
}

/** 9999-12-31T23:59:59Z, the last instant a maintenance window may name. */
const MAINTENANCE_MAX_INSTANT = 253_402_300_799;
const PREVIEW_RULES = [
  'FREQ=WEEKLY;BYDAY=SU',
  'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR',
  'FREQ=DAILY',
  'FREQ=DAILY;COUNT=5',
  'FREQ=DAILY;UNTIL=20271231T235959Z',
  'FREQ=HOURLY;BYMINUTE=0',
  'FREQ=MONTHLY;BYMONTHDAY=31',
  'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29',
];
const PREVIEW_ZONES = ['UTC', 'Europe/Berlin', 'america/new_york', 'Asia/Kolkata', 'Australia/Lord_Howe'];

/**
 * POST /api/maintenance_windows/preview (a create's body, stored nowhere): one-off and recurring
 * windows around now; `monitorIds` are the account's monitors, `foreignMonitorId` another's.
 */
export function maintenancePreviewSchema(monitorIds: readonly string[], foreignMonitorId: string): BodySchema {
  const now = Math.floor(Date.now() / 1000);
  const common = {
    name: validName,
    monitors: fc.uniqueArray(fc.constantFrom(...monitorIds), { maxLength: 3 }),
    starts_at: fc.integer({ min: now - 30 * 86_400, max: now + 365 * 86_400 }),
    timezone: fc.constantFrom(...PREVIEW_ZONES),
    active: fc.boolean(),
  };
  const oneOff = fc
    .record(
      { ...common, length: fc.integer({ min: 1, max: 30 * 86_400 }), nulls: fc.boolean() },
      { requiredKeys: ['name', 'monitors', 'starts_at', 'length', 'nulls'] },
    )
    .map(({ length, nulls, ...body }): JsonObject => ({
      ...body,
      ends_at: body.starts_at + length,
      ...(nulls ? { rrule: null, duration: null } : {}),
    }));
  const recurring = fc
    .record(
      {
        ...common,
        rrule: fc.constantFrom(...PREVIEW_RULES),
        duration: fc.integer({ min: 60, max: 604_800 }),
        ends_at: fc.constant(null),
      },
      { requiredKeys: ['name', 'monitors', 'starts_at', 'rrule', 'duration'] },
    )
    .map((body): JsonObject => ({ ...body }));
  const valid = fc.oneof(oneOff, recurring);
  const isOneOff = (body: JsonObject) => typeof body.ends_at === 'number';
  return {
    valid,
    nameField: 'name',
    readOnly: {
      id: READ_ONLY_SENTINEL_ID,
      created_at: READ_ONLY_SENTINEL_TIME,
      updated_at: READ_ONLY_SENTINEL_TIME,
      state: 'ended',
      next_start_at: null,
    },
    numbers: valid.chain((body) => {
      const start = body.starts_at as number;
      const slots: NumberSlot[] = isOneOff(body)
        ? [
            { body, path: ['starts_at'], accepts: integerIn(0, (body.ends_at as number) - 1) },
            { body, path: ['ends_at'], accepts: integerIn(start + 1, MAINTENANCE_MAX_INSTANT) },
          ]
        : [
            { body, path: ['starts_at'], accepts: integerIn(0, MAINTENANCE_MAX_INSTANT) },
            { body, path: ['duration'], accepts: integerIn(60, 604_800) },
          ];
      return fc.constantFrom(...slots);
    }),
    crlf: fc.oneof(
      fc.tuple(valid, fc.constantFrom('\r\n', '\n', '\r', '\u0000', '\u007f')).map(([body, bad]) => ({
        ...body,
        name: `a${bad}b`,
      })),
      fc.tuple(recurring, fc.constantFrom('\r\n', '\n', '\r', '\t', ' ', '\u0000')).map(([body, bad]) => ({
        ...body,
        rrule: `${body.rrule as string}${bad}`,
      })),
      fc.tuple(valid, fc.constantFrom('\r\nX-Injected: 1', '\n', '\r', '\u0000')).map(([body, bad]) => ({
        ...body,
        timezone: `Europe/Berlin${bad}`,
      })),
    ),
    // Fields that do not go together, monitors not the account's, rules and zones refused.
    alsoInvalid: fc.oneof(
      oneOff.map((body): JsonObject => ({ ...body, ends_at: body.starts_at as number })),
      oneOff.map((body): JsonObject => ({ ...body, rrule: 'FREQ=DAILY', duration: 60 })),
      recurring.map((body): JsonObject => ({ ...body, duration: null })),
      recurring.map((body): JsonObject => ({ ...body, rrule: 'FREQ=MINUTELY' })),
      recurring.map((body): JsonObject => ({ ...body, rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' })),
      recurring.map((body): JsonObject => ({ ...body, timezone: '+01:00' })),
      valid.map((body): JsonObject => ({
        name: body.name as string,
        monitors: [],
        starts_at: body.starts_at as number,
      })),
      fc
        .tuple(valid, fc.constantFrom(foreignMonitorId, 'ffffffffffffffffffffffff'))
        .map(([body, id]): JsonObject => ({ ...body, monitors: [id] })),
    ),
  };
}

// ---- hostile values -------------------------------------------------------------------------

const hostileChar = fc.oneof(
  fc.integer({ min: 0x00, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2069'),
  fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'),
);

/** Names that every display-name field refuses (code points > 100, controls, bidi, blank, lone surrogates). */
export const hostileName = fc.oneof(
  fc.constantFrom(
    '😀'.repeat(10_000),
    '😀'.repeat(101),
    'a' + '\ufe0f'.repeat(100),
    'ok' + '\ufe0f'.repeat(2_000),
    'e\u0301'.repeat(101),
    '',
    ' ',
    '   \t ',
    '\u3000',
    '\u200b',
    '\u2060\ufeff',
    '\u3164',
    '\u00a0',
    '\u0000',
    'name\u0000',
    '\ud800',
    'a\udc00b',
    'x\ud83d',
    '\u202eevil',
    'ok\u0085',
  ),
  fc.tuple(validName, hostileChar, fc.nat()).map(([name, bad, at]) => {
    const chars = [...name];
    chars.splice(at % (chars.length + 1), 0, bad);
    return chars.join('');
  }),
  fc.integer({ min: 99, max: 3_000 }).map((n) => 'ok' + '\ufe0f'.repeat(n)),
);

/** Strings that no field of any kind accepts: NUL, lone surrogates, C0 controls other than tab/CR/LF. */
const alwaysRefusedString = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000', '\ud800', 'x\udfff', '\udc00\ud800'),
  fc
    .integer({ min: 1, max: 0x1f })
    .filter((c) => c !== 0x09 && c !== 0x0a && c !== 0x0d)
    .map((c) => `v${String.fromCharCode(c)}`),
);

/** Raw JSON number texts. */
const numberTexts = fc.oneof(
  fc.constantFrom(
    '1e3',
    '1E2',
    '1e1',
    '5e0',
    '0.5e2',
    '300.0',
    '10.000',
    '-0',
    '0',
    '-1',
    '1e999',
    '-1e999',
    '9999999999999999999',
    '9007199254740993',
    '1e-7',
    '30.5',
    '4.9e1',
    '600.0000000000001',
    '1' + '0'.repeat(400),
    '0.' + '0'.repeat(300) + '1',
  ),
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);
/** Numbers written as JSON strings (never accepted for an integer field). */
const numericStrings = fc.constantFrom(
  '300',
  '1e3',
  '0x10',
  'NaN',
  'Infinity',
  '-Infinity',
  ' 12 ',
  '-1',
  '9999999999999999999',
  '',
  'true',
  '1_000',
  '١٢',
);

const wrongTypeValues: Json[] = [
  0,
  1,
  -1,
  1.5,
  'x',
  '',
  'true',
  'false',
  '300',
  true,
  false,
  [],
  [1],
  ['x'],
  {},
  { a: 1 },
];

function jsonType(v: Json | undefined): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

// ---- body class arbitraries ---------------------------------------------------------------

const MAX_BODY = 256 * 1024;

function oversize(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<BodyCase> {
  const over = fc.integer({ min: MAX_BODY + 1, max: MAX_BODY + 64 * 1024 });
  return fc.oneof(
    fc.tuple(valid, over).map(([body, size]) => {
      const text = JSON.stringify(body);
      // `{"name":"` + name + `",` + text without its `{`: 10 bytes around the name.
      const name = 'x'.repeat(Math.max(0, size - 10 - Buffer.byteLength(text)));
      const out = `{"name":"${name}",${text.slice(1)}`;
      return bodyCase('oversize-body', `${Buffer.byteLength(out)} bytes with a long name`, out, [413]);
    }),
    fc.tuple(valid, over).map(([body, size]) => {
      const text = JSON.stringify(body);
      const out = text + ' '.repeat(Math.max(0, size - Buffer.byteLength(text)));
      return bodyCase('oversize-body', 'valid body padded with whitespace', out, [413]);
    }),
    over.map((size) => {
      const out = `[${'1,'.repeat(Math.ceil(size / 2))}1]`;
      return bodyCase('oversize-body', 'huge array', out, [413]);
    }),
    over.map((size) => {
      const out = `{"a":"${'\u00e9'.repeat(Math.ceil(size / 2))}"}`;
      return bodyCase('oversize-body', 'multibyte string (limit counts bytes)', out, [413]);
    }),
    // The limit itself: exactly 256 KiB is read (and then refused by validation).
    fc.constant(null).map(() => {
      const head = '{"name":"';
      const out = head + 'x'.repeat(MAX_BODY - head.length - 2) + '"}';
      return bodyCase('oversize-body', 'exactly 256 KiB', out, [422]);
    }),
  );
}

const BAD_CONTENT_TYPES = [
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  'text/json',
  'text/html',
  'application/jsonx',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/octet-stream',
  'application',
  'json',
  '*/*',
  // JSON in another charset than UTF-8 (docs/decisions/0017-http-edge-hardening.md).
  'application/json; charset=utf-16',
  'application/json; charset=ISO-8859-1',
  'application/json;charset="latin1"',
];

function contentType(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<BodyCase> {
  return fc
    .tuple(valid, fc.option(fc.constantFrom(...BAD_CONTENT_TYPES), { nil: null }))
    .map(([body, type]) => bodyCase('content-type', type ?? 'no content type', JSON.stringify(body), [415], type));
}

const MALFORMED = [
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":-Infinity}',
  '{"a":0x10}',
  '{"a":+1}',
  '{"a":.5}',
  '{"a":01}',
  '{"a":1e}',
  '{"a":1.}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"\\ud800\\u"}',
  '{"a":1}{"b":2}',
  '{"a":1} x',
  '[1,]',
  '{"a" 1}',
  '{"a":tru}',
  '{"a":nul}',
  '"',
  '{',
  '}',
  '[',
  '/* c */ {}',
  '{"a":undefined}',
  '{"a":1,,"b":2}',
  '{"a":"line\nbreak"}',
  '\u0000',
  '{"a":1}\u0000',
  '{"check_interval":0x10}',
  '{"name":"x","timeout":NaN}',
];
const RAW_CONTROL = fc
  .integer({ min: 1, max: 0x1f })
  .filter((c) => c !== 0x09 && c !== 0x0a && c !== 0x0d)
  .map((c) => String.fromCharCode(c));

function malformed(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<BodyCase> {
  return fc.oneof(
    fc.constantFrom(...MALFORMED).map((text) => bodyCase('malformed-json', 'fixed corpus', text, [400])),
    fc.tuple(valid, fc.nat()).map(([body, at]) => {
      const text = JSON.stringify(body);
      const cut = 1 + (at % (text.length - 1));
      return bodyCase('malformed-json', `truncated at ${cut}`, text.slice(0, cut), [400]);
    }),
    fc.tuple(valid, fc.nat(), RAW_CONTROL).map(([body, at, c]) => {
      const text = JSON.stringify(body);
      const i = at % (text.length + 1);
      return bodyCase('malformed-json', `raw control character at ${i}`, text.slice(0, i) + c + text.slice(i), [400]);
    }),
  );
}

const BAD_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

function invalidUtf8(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<BodyCase> {
  return fc.tuple(valid, fc.nat(), fc.constantFrom(...BAD_UTF8), fc.boolean()).map(([body, at, bad, inString]) => {
    const name = typeof body.name === 'string' ? body.name : 'n';
    const text = JSON.stringify(inString ? { ...body, name: `${name}@@BAD@@` } : body);
    const bytes = Buffer.from(text, 'utf8');
    const marker = bytes.indexOf('@@BAD@@');
    const i = marker >= 0 ? marker : at % (bytes.length + 1);
    const tail = marker >= 0 ? bytes.subarray(i + '@@BAD@@'.length) : bytes.subarray(i);
    const out = Buffer.concat([bytes.subarray(0, i), Buffer.from(bad), tail]);
    const hex = bad.map((b) => b.toString(16).padStart(2, '0')).join(' ');
    return bodyCase('invalid-utf8', `bytes ${hex} ${inString ? 'inside a string' : `at ${i}`}`, out, [400]);
  });
}

function deepNesting(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<BodyCase> {
  const levels = fc.oneof(fc.integer({ min: 32, max: 200 }), fc.integer({ min: 200, max: 10_000 }));
  return fc.oneof(
    fc
      .tuple(valid, levels, fc.constantFrom('array', 'object', 'mixed'), fc.boolean())
      .map(([body, n, shape, closed]) => {
        const open = shape === 'array' ? '[' : shape === 'object' ? '{"a":' : '{"a":[';
        const close = shape === 'array' ? ']' : shape === 'object' ? '}' : ']}';
        const perLevel = shape === 'mixed' ? 2 : 1;
        const count = Math.ceil(n / perLevel);
        const inner = open.repeat(count) + (shape === 'array' ? '' : '1') + (closed ? close.repeat(count) : '');
        const text = JSON.stringify({ ...body, settings: RAW }).replace(JSON.stringify(RAW), inner);
        return bodyCase(
          'deep-nesting',
          `${count * perLevel + 1} levels of ${shape}${closed ? '' : ', unclosed'}`,
          text,
          [400],
        );
      }),
    levels.map((n) => bodyCase('deep-nesting', `${n + 1} bare arrays`, '['.repeat(n + 1) + ']'.repeat(n + 1), [400])),
    // The limit: 32 levels parse (then fail validation); brackets inside strings are not nesting.
    valid.map((body) => {
      const text = JSON.stringify({ ...body, name: RAW }).replace(JSON.stringify(RAW), '['.repeat(31) + ']'.repeat(31));
      return bodyCase('deep-nesting', 'exactly 32 levels', text, [422]);
    }),
    valid.map((body) =>
      bodyCase(
        'deep-nesting',
        'brackets inside a string',
        JSON.stringify({ ...body, name: '[{'.repeat(5_000) }),
        [422],
      ),
    ),
  );
}

const POLLUTION = '{"picketPolluted":true,"isAdmin":true}';
const PROTO_KEYS = ['"__proto__"', '"\\u005f\\u005fproto\\u005f\\u005f"', '"__pro\\u0074o__"'];

function poisoning(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<BodyCase> {
  const payload = fc.constantFrom(
    ...PROTO_KEYS.map((k) => `${k}:${POLLUTION}`),
    `"constructor":{"prototype":${POLLUTION}}`,
    `"constructor":{"a":1,"prototype":${POLLUTION}}`,
  );
  return fc.tuple(valid, payload, fc.nat()).map(([body, poison, at]) => {
    const objectPaths = [[] as Path, ...pathsOf(body).filter((p) => isObject(getAt(body, p) ?? null))];
    const path = pick(objectPaths, at);
    const marker = '@@POISON@@';
    const target =
      path.length === 0
        ? { [marker]: 1, ...body }
        : setAt(body, path, { [marker]: 1, ...(getAt(body, path) as JsonObject) });
    const text = JSON.stringify(target).replace(`"${marker}":1`, poison);
    return bodyCase('prototype-poisoning', `${poison.slice(0, 40)} in ${pathText(path)}`, text, [400]);
  });
}

function unknownField(valid: fc.Arbitrary<JsonObject>): fc.Arbitrary<BodyCase> {
  const value = fc.constantFrom<Json>(1, 'x', true, null, [], {}, { nested: 1 });
  return fc.tuple(valid, unknownKey, value, fc.nat()).map(([body, key, v, at]) => {
    const objectPaths = [[] as Path, ...pathsOf(body).filter((p) => isObject(getAt(body, p) ?? null))];
    const path = pick(objectPaths, at);
    const target = getAt(body, path) as JsonObject;
    const out = path.length === 0 ? { ...body, [key]: v } : setAt(body, path, { ...target, [key]: v });
    return bodyCase('unknown-field', `${JSON.stringify(key)} in ${pathText(path)}`, JSON.stringify(out), [
      unknownKeyStatus(key),
    ]);
  });
}

function readOnlyField(s: BodySchema): fc.Arbitrary<BodyCase> {
  const keys = Object.keys(s.readOnly);
  return fc.tuple(s.valid, fc.subarray(keys, { minLength: 1 })).map(([body, chosen]) => {
    const out: JsonObject = { ...body };
    for (const key of chosen) out[key] = s.readOnly[key] ?? null;
    return bodyCase('read-only-field', `read-only ${chosen.join(', ')}`, JSON.stringify(out), ['success']);
  });
}

function retype(body: JsonObject, at: number, pickValue: number): { out: JsonObject; note: string } {
  const paths = pathsOf(body);
  const path = pick(paths, at);
  const current = getAt(body, path);
  const choices = wrongTypeValues.filter((v) => jsonType(v) !== jsonType(current));
  const next = pick(choices, pickValue);
  return { out: setAt(body, path, next), note: `${pathText(path)} ${jsonType(current)} -> ${JSON.stringify(next)}` };
}

function wrongType(s: BodySchema): fc.Arbitrary<BodyCase> {
  const retyped = fc.tuple(s.valid, fc.nat(), fc.nat()).map(([body, at, v]) => {
    const { out, note } = retype(body, at, v);
    return bodyCase('wrong-type', note, JSON.stringify(out), [422]);
  });
  const whole = fc
    .constantFrom<Json>([], 'x', 1, true, [{}], false)
    .map((v) => bodyCase('wrong-type', `body is ${JSON.stringify(v)}`, JSON.stringify(v), [422]));
  const invalid = s.alsoInvalid?.map((b) => bodyCase('wrong-type', 'refused value', JSON.stringify(b), [422]));
  return invalid ? fc.oneof(retyped, whole, invalid) : fc.oneof(retyped, whole);
}

function hostileNumber(s: BodySchema): fc.Arbitrary<BodyCase> {
  return fc.oneof(
    fc.tuple(s.numbers, numberTexts).map(([slot, text]) => {
      const accepted = slot.accepts(JSON.parse(text));
      const out = withRaw(setAt(slot.body, slot.path, RAW), text);
      return bodyCase('hostile-number', `${pathText(slot.path)} = ${text.slice(0, 30)}`, out, [
        accepted ? 'success' : 422,
      ]);
    }),
    fc.tuple(s.numbers, numericStrings).map(([slot, str]) => {
      const out = JSON.stringify(setAt(slot.body, slot.path, str));
      return bodyCase('hostile-number', `${pathText(slot.path)} = ${JSON.stringify(str)}`, out, [422]);
    }),
  );
}

function unicode(s: BodySchema): fc.Arbitrary<BodyCase> {
  const anywhere = fc.tuple(s.valid, fc.nat(), alwaysRefusedString, fc.boolean()).map(([body, at, bad, asKey]) => {
    if (asKey) {
      return bodyCase('unicode', `key ${JSON.stringify(bad)}`, JSON.stringify({ ...body, [bad]: 1 }), [422]);
    }
    const strings = pathsOf(body).filter((p) => typeof getAt(body, p) === 'string');
    if (strings.length === 0)
      return bodyCase('unicode', 'no string field', JSON.stringify({ ...body, [bad]: 1 }), [422]);
    const path = pick(strings, at);
    const out = setAt(body, path, `${stringAt(body, path)}${bad}`);
    return bodyCase('unicode', `${pathText(path)} += ${JSON.stringify(bad)}`, JSON.stringify(out), [422]);
  });
  const nameField = s.nameField;
  if (nameField === undefined) {
    const named = fc.tuple(s.valid, hostileName).map(([body, name]) => {
      const out = { ...body, name };
      return bodyCase('unicode', `name = ${JSON.stringify(name.slice(0, 30))}`, JSON.stringify(out), [422]);
    });
    return fc.oneof(anywhere, named);
  }
  const names = fc.tuple(s.valid, hostileName).map(([body, name]) => {
    const out = { ...body, [nameField]: name };
    return bodyCase(
      'unicode',
      `${nameField} = ${JSON.stringify(name.slice(0, 30))}…(${[...name].length} cp)`,
      JSON.stringify(out),
      [422],
    );
  });
  return fc.oneof(names, anywhere);
}

function crlf(s: BodySchema): fc.Arbitrary<BodyCase> {
  return s.crlf.map((body) => bodyCase('crlf', 'CR/LF/controls in a field', JSON.stringify(body), [422]));
}

type MutationOp =
  'drop' | 'retype' | 'oversize-string' | 'oversize-array' | 'nest' | 'unknown-key' | 'null' | 'duplicate';

function mutateOnce(
  body: JsonObject,
  op: MutationOp,
  at: number,
  n: number,
  key: string,
): { out: JsonObject; note: string; expect?: Outcome[] } {
  const all = pathsOf(body);
  if (all.length === 0 || op === 'unknown-key') {
    return { out: { ...body, [key]: n }, note: `add ${JSON.stringify(key)}`, expect: [unknownKeyStatus(key)] };
  }
  switch (op) {
    case 'drop': {
      const path = pick(all, at);
      return { out: setAt(body, path, undefined), note: `drop ${pathText(path)}` };
    }
    case 'retype': {
      const { out, note } = retype(body, at, n);
      return { out, note: `retype ${note}`, expect: [422] };
    }
    case 'null': {
      const path = pick(all, at);
      return { out: setAt(body, path, null), note: `null at ${pathText(path)}` };
    }
    case 'oversize-string': {
      const strings = all.filter((p) => typeof getAt(body, p) === 'string');
      if (strings.length === 0) return mutateOnce(body, 'unknown-key', at, n, key);
      const path = pick(strings, at);
      const out = setAt(body, path, stringAt(body, path) + 'x'.repeat(70_000 + (n % 50_000)));
      return { out, note: `oversize ${pathText(path)}`, expect: [422] };
    }
    case 'oversize-array': {
      const arrays = all.filter((p) => Array.isArray(getAt(body, p)));
      if (arrays.length === 0) return mutateOnce(body, 'unknown-key', at, n, key);
      const path = pick(arrays, at);
      const items = getAt(body, path) as Json[];
      const filler = items.length > 0 ? items : ['x'];
      const big = Array.from({ length: 101 + (n % 200) }, (_, i) => filler[i % filler.length] ?? null);
      return { out: setAt(body, path, big), note: `${big.length} items in ${pathText(path)}`, expect: [422] };
    }
    case 'nest': {
      const path = pick(all, at);
      let value = getAt(body, path) ?? null;
      const levels = 1 + (n % 40);
      for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { nested: value } : [value];
      const out = setAt(body, path, value);
      return { out, note: `nest ${pathText(path)} ${levels} levels`, expect: [depthOf(out) > 32 ? 400 : 422] };
    }
    case 'duplicate': {
      const arrays = all.filter((p) => {
        const v = getAt(body, p);
        return Array.isArray(v) && v.length > 0;
      });
      if (arrays.length === 0) return mutateOnce(body, 'drop', at, n, key);
      const path = pick(arrays, at);
      const items = getAt(body, path) as Json[];
      return { out: setAt(body, path, [...items, items[0] ?? null]), note: `duplicate in ${pathText(path)}` };
    }
  }
}

const MUTATIONS: readonly MutationOp[] = [
  'drop',
  'retype',
  'oversize-string',
  'oversize-array',
  'nest',
  'unknown-key',
  'null',
  'duplicate',
];

function mutation(s: BodySchema): fc.Arbitrary<BodyCase> {
  const step = fc.tuple(fc.constantFrom(...MUTATIONS), fc.nat(), fc.nat(), unknownKey);
  return fc.tuple(s.valid, fc.array(step, { minLength: 1, maxLength: 3 })).map(([body, steps]) => {
    let out = body;
    const notes: string[] = [];
    let expect: Outcome[] | undefined;
    for (const [op, at, n, key] of steps) {
      const result = mutateOnce(out, op, at, n, key);
      out = result.out;
      notes.push(result.note);
      expect = steps.length === 1 ? result.expect : undefined;
    }
    const text = JSON.stringify(out);
    // Whatever the steps did, a body over the size limit or nested deeper than 32 levels is refused first.
    if (Buffer.byteLength(text) > MAX_BODY) expect = [413];
    else if (depthOf(out) > 32 || text.includes('"__proto__":')) expect = [400];
    return bodyCase('mutation', notes.join('; '), text, expect);
  });
}

export const NO_BODY = bodyCase('no-body', 'no body', undefined, ['success']);

/** One arbitrary per body class, for an endpoint that takes a body. */
export function bodyClasses(s: BodySchema): { readonly [K in BodyClass]: fc.Arbitrary<BodyCase> } {
  return {
    valid: s.valid.map((b) => bodyCase('valid', 'valid body', JSON.stringify(b), ['success'])),
    'oversize-body': oversize(s.valid),
    'content-type': contentType(s.valid),
    'malformed-json': malformed(s.valid),
    'invalid-utf8': invalidUtf8(s.valid),
    'deep-nesting': deepNesting(s.valid),
    'prototype-poisoning': poisoning(s.valid),
    'unknown-field': unknownField(s.valid),
    'read-only-field': readOnlyField(s),
    'wrong-type': wrongType(s),
    'hostile-number': hostileNumber(s),
    unicode: unicode(s),
    crlf: crlf(s),
    mutation: mutation(s),
  };
}

/**
 * Bodies for endpoints that take none (pause, resume, reactivate, delete): the request-level
 * classes still apply (413, 415, 400); a parseable body is ignored.
 */
export function noBodyClasses(): Record<string, fc.Arbitrary<BodyCase>> {
  const anyObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 4,
  }) as fc.Arbitrary<JsonObject>;
  const base = fc.oneof(anyObject, fc.constant<JsonObject>({ active: false }));
  return {
    'no-body': fc.constant(NO_BODY),
    'empty-json': fc.constantFrom('', '   ', '\n').map((t) => bodyCase('no-body', 'empty JSON body', t, ['success'])),
    'any-json': fc
      .jsonValue({ maxDepth: 3 })
      .map((v) => bodyCase('any-json', 'arbitrary JSON', JSON.stringify(v), ['success', 400])),
    'oversize-body': oversize(base).filter((c) => c.expect?.[0] === 413),
    'content-type': contentType(base),
    'malformed-json': malformed(base),
    'invalid-utf8': invalidUtf8(base),
    'deep-nesting': deepNesting(base).filter((c) => c.expect?.[0] === 400),
    'prototype-poisoning': poisoning(base),
  };
}

// ---- query strings --------------------------------------------------------------------------

export interface QuerySchema {
  /** Valid `key=value` pairs (already encoded), one list per parameter. */
  valid: Readonly<Record<string, fc.Arbitrary<string>>>;
}

const enc = encodeURIComponent;
const pageValue = fc.oneof(fc.integer({ min: 1, max: 3 }).map(String), fc.constant('2147483647'));
const perPageValue = fc.oneof(fc.integer({ min: 1, max: 100 }).map(String), fc.constantFrom('100', '0100', '1'));

export function monitorListQuery(): QuerySchema {
  return {
    valid: {
      page: pageValue,
      per_page: perPageValue,
      sort: fc.constantFrom('name', 'created_at', 'updated_at'),
      order: fc.constantFrom('asc', 'desc'),
      active: fc.constantFrom('true', 'false'),
      monitor_type: fc.constantFrom('https', 'tcp', 'ping'),
    },
  };
}

export function contactListQuery(): QuerySchema {
  return {
    valid: {
      page: pageValue,
      per_page: perPageValue,
      search: safeText(0, 12).map(enc),
      channel: fc.constantFrom(...WRITABLE_CHANNELS, 'push'),
      sort: fc.constantFrom('name', 'created_at'),
      order: fc.constantFrom('asc', 'desc'),
    },
  };
}

/** GET /api/account takes no query parameter: any one is unknown (422). */
export function accountQuery(): QuerySchema {
  return { valid: {} };
}

type Pair = { key: string; value: string | null; bad: boolean | undefined };

function pairText(p: Pair): string {
  return p.value === null ? p.key : `${p.key}=${p.value}`;
}

const BOOLEAN_STRINGS = [
  'yes',
  'no',
  '1',
  '0',
  'TRUE',
  'True',
  'FALSE',
  '',
  'true%20',
  '%20true',
  'on',
  'off',
  'null',
  'undefined',
  'true,false',
  't',
];
const NUMERIC_STRINGS = [
  '1e3',
  '0x10',
  '%2012%20',
  '+12+',
  '-1',
  '9999999999999999999',
  'NaN',
  'Infinity',
  '1.0',
  '%2B1',
  '',
  '0',
  '00',
  '1e0',
  '%D9%A3',
  '%EF%BC%91',
  '10abc',
  '0b1',
  '0o7',
  '1_0',
  '%00',
];
const PAGE_BOUNDS: readonly [string, string][] = [
  ['page', '0'],
  ['page', '2147483648'],
  ['page', '1e15'],
  ['page', '999999999999999'],
  ['page', '99999999999999999'],
  ['per_page', '0'],
  ['per_page', '101'],
  ['per_page', '1000'],
  ['per_page', '-100'],
];
const NESTED_KEYS = [
  'sort[a]=b',
  'page[]=1',
  'per_page[0]=1',
  'a[b][c]=d',
  '__proto__[picketPolluted]=1',
  'constructor[prototype][picketPolluted]=1',
  '__proto__=1',
  'constructor=1',
  'prototype=1',
  'hasOwnProperty=1',
  'toString=1',
  'valueOf=1',
  'page.x=1',
  'page%5B%5D=1',
  'sort%5Ba%5D=b',
];
const BAD_ENUMS: readonly [string, string][] = [
  ['sort', 'NAME'],
  ['sort', 'id'],
  ['sort', 'created_at%20'],
  ['sort', 'name,created_at'],
  ['order', 'DESC'],
  ['order', 'random'],
  ['order', ''],
  ['monitor_type', 'http'],
  ['monitor_type', 'HTTPS'],
  ['channel', 'sms'],
  ['channel', 'Email'],
];

function queryFor(schema: QuerySchema) {
  const known = Object.keys(schema.valid);
  const validPair = known.length
    ? fc
        .constantFrom(...known)
        .chain((key) => (schema.valid[key] as fc.Arbitrary<string>).map((value): Pair => ({ key, value, bad: false })))
    : fc.constant<Pair>({ key: 'x', value: '1', bad: true });
  const on = (key: string, value: string | null, bad: boolean | undefined): Pair => ({ key, value, bad });
  const hostile: Record<QueryClass, fc.Arbitrary<Pair[]>> = {
    'valid-query': fc.constant([]),
    'boolean-string': fc.constantFrom(...BOOLEAN_STRINGS).map((v) => [on('active', v, true)]),
    'numeric-string': fc
      .tuple(fc.constantFrom('page', 'per_page'), fc.constantFrom(...NUMERIC_STRINGS))
      .map(([k, v]) => [on(k, v, true)]),
    'page-bounds': fc.constantFrom(...PAGE_BOUNDS).map(([k, v]) => [on(k, v, true)]),
    'repeated-param': fc.tuple(validPair, validPair).map(([a, b]) => [
      { ...a, bad: true },
      { ...a, value: b.key === a.key ? b.value : a.value, bad: true },
    ]),
    'nested-query': fc.constantFrom(...NESTED_KEYS).map((kv) => {
      const [k, v] = kv.split('=') as [string, string];
      return [on(k, v, true)];
    }),
    'unknown-param': fc
      .oneof(
        fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_'), minLength: 1, maxLength: 10 }),
        fc.constantFrom('Page', 'PER_PAGE', 'per-page', 'perPage', 'limit', 'offset', 'q', 'account_id', '%00'),
      )
      .filter((k) => !known.includes(k))
      .map((k) => [on(k, '1', true)]),
    'bad-enum': fc.constantFrom(...BAD_ENUMS).map(([k, v]) => [on(k, v, true)]),
    'unicode-query': fc
      .constantFrom<[string, boolean | undefined]>(
        ['%00', true],
        ['a%01b', true],
        ['%1B%5B31m', true],
        ['%C2%85', true],
        ['%E2%80%AE', true],
        ['%E2%80%8E', true],
        ['x'.repeat(101), true],
        ['%F0%9F%98%80'.repeat(101), true],
        ['%ED%A0%80', undefined],
        ['%FF', undefined],
        ['%ZZ', undefined],
        ['%', undefined],
        ['%F0%9F%98%80', false],
        ['caf%C3%A9', false],
        ['a%0D%0Ab', true],
        ['%20%20', false],
        ['%25', false],
        ['_', false],
        ['%5C', false],
      )
      .map(([v, bad]) => [on('search', v, known.includes('search') ? bad : true)]),
  };
  return { validPair, hostile };
}

/** One arbitrary per query class for a list endpoint. */
export function queryClasses(schema: QuerySchema): { readonly [K in QueryClass]: fc.Arbitrary<QueryCase> } {
  const { validPair, hostile } = queryFor(schema);
  const entries = QUERY_CLASSES.map((cls) => {
    const arb = fc
      .tuple(fc.uniqueArray(validPair, { maxLength: 3, selector: (p) => p.key }), hostile[cls], fc.nat())
      .map(([valid, bad, at]) => {
        const pairs = [...valid];
        for (const p of bad) pairs.splice(at % (pairs.length + 1), 0, p);
        const keys = pairs.map((p) => p.key);
        const repeated = new Set(keys).size !== keys.length;
        let expect: Outcome[] | undefined = ['success'];
        if (repeated || pairs.some((p) => p.bad === true)) expect = [422];
        else if (pairs.some((p) => p.bad === undefined)) expect = undefined;
        return queryCase(cls, pairs.map(pairText).join('&'), expect);
      });
    return [cls, arb] as const;
  });
  return Object.fromEntries(entries) as { readonly [K in QueryClass]: fc.Arbitrary<QueryCase> };
}

// ---- ids ------------------------------------------------------------------------------------

/** Path segments that are no object id (already encoded for the URL). */
export function malformedIds(validId: string): fc.Arbitrary<string> {
  const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 0, maxLength: 40 });
  return fc
    .oneof(
      fc.constantFrom(
        validId.toUpperCase(),
        validId.slice(1),
        `${validId}0`,
        `${validId}%00`,
        `${validId}%20`,
        `%20${validId}`,
        `${validId}%0D%0A`,
        `0x${validId.slice(2)}`,
        'g'.repeat(24),
        'null',
        'undefined',
        '0',
        '-1',
        '1e3',
        '%00',
        '%zz',
        '%ff',
        '%E0%A4%A',
        '%',
        '%2F',
        `..%2F${validId}`,
        `${validId};x`,
        `${validId}%3Fx=1`,
        '%5Bobject%20Object%5D',
        '%F0%9F%92%A5',
        'a'.repeat(201),
        'a'.repeat(2_000),
        validId.repeat(20),
      ),
      hex.filter((h) => h.length !== 24 && h.length > 0),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(enc),
      fc
        .uint8Array({ minLength: 1, maxLength: 30 })
        .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
    )
    .filter((seg) => {
      // Dot segments are resolved away by the URL parser before the request is sent.
      const dots = seg.replace(/%2e/gi, '.');
      return seg !== '' && dots !== '.' && dots !== '..' && !/^[0-9a-f]{24}$/.test(seg);
    });
}

/** Valid-looking ids that name nothing. */
export const unknownIds = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 24, maxLength: 24 });

/** The arbitraries of every class, in a fixed order: the first runs sample each class once. */
export function firstOfEachClass<T>(classes: Readonly<Record<string, fc.Arbitrary<T>>>, seed: number): T[] {
  return Object.values(classes).map((arb, i) => {
    const [first] = fc.sample(arb, { seed: seed + i, numRuns: 1 });
    if (first === undefined) throw new Error('empty arbitrary');
    return first;
  });
}
