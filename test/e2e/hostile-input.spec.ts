/**
 * Hostile input (docs/decisions/0002-wire-conventions.md, goals I1 and I2): fast-check throws
 * every bad-input class at every write and list endpoint, for an id of the account, another
 * account's id, unknown and malformed ids. For every request: no 5xx; a 4xx is the documented
 * envelope whose code matches its status; the status is the one the case demands where the
 * case decides it; and a rejected request changes nothing that is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { DataSource } from 'typeorm';
import { ContactsService } from '../../apps/coordinator/src/contacts/contacts.service.js';
import { DATA_SOURCE } from '../../apps/coordinator/src/database/database.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { STATUS_OF_CODE } from '../support/error-codes.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type DatabaseKind, type TestDatabase } from '../support/databases.js';
import {
  BODY_CLASSES,
  bodyCase,
  bodyClasses,
  contactCreateSchema,
  contactListQuery,
  contactUpdateSchema,
  accountQuery,
  firstOfEachClass,
  maintenancePreviewSchema,
  malformedIds,
  monitorCreateSchema,
  NO_BODY,
  monitorListQuery,
  monitorUpdateSchema,
  noBodyClasses,
  parseLevelStatus,
  queryCase,
  queryClasses,
  regionCreateSchema,
  READ_ONLY_SENTINEL_ID,
  READ_ONLY_SENTINEL_TIME,
  unknownIds,
  WRITABLE_CHANNELS,
  type BodyCase,
  type Outcome,
  type QueryCase,
  type WritableChannel,
} from '../support/hostile.js';

const SEED = Number(process.env.PICKET_HOSTILE_SEED ?? 20261122);
/** Runs per endpoint group; PICKET_HOSTILE_RUNS raises them for a long I1 run (≥ 1000 per class). */
const RUNS_OVERRIDE = Number(process.env.PICKET_HOSTILE_RUNS ?? 0);

// ---- global prototypes (I2) ------------------------------------------------------------------

const PROTOTYPES = {
  Object: Object.prototype,
  Array: Array.prototype,
  Function: Function.prototype,
  String: String.prototype,
};

function prototypeShape(): Map<string, unknown> {
  const shape = new Map<string, unknown>();
  for (const [name, proto] of Object.entries(PROTOTYPES)) {
    for (const key of Reflect.ownKeys(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      shape.set(
        `${name}.${String(key)}`,
        d && ('value' in d ? d.value : [Reflect.get(d, 'get'), Reflect.get(d, 'set')]),
      );
    }
  }
  return shape;
}
const PROTOTYPES_BEFORE = prototypeShape();

// ---- the world each database gets ------------------------------------------------------------

type Resource = 'monitor' | 'contact';
type IdKind = 'none' | 'own' | 'foreign' | 'unknown' | 'malformed';

interface Target {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  idKind: IdKind;
  resource?: Resource;
  /** This endpoint's 2xx. */
  success: 200 | 201 | 204;
  /** A read-only (push) contact: PUT and DELETE answer 403. */
  readOnly?: boolean;
  /** The path has broken percent-encoding: a malformed id, so the resource's 404 before any route runs. */
  badUrl: boolean;
  [fc.toStringMethod](): string;
}

interface OwnContact {
  id: string;
  channel: WritableChannel | 'push';
}

interface World {
  c: RunningCoordinator;
  ds: DataSource;
  api: ApiClient;
  monitors: string[];
  contacts: OwnContact[];
  foreign: { monitor: string; contact: string };
  /** The exact body of the 404 for an unknown id, per resource. */
  notFound: Record<Resource, string>;
  /** Stored data as of the last accepted request. */
  baseline: string;
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

function target(
  method: Target['method'],
  path: string,
  success: Target['success'],
  idKind: IdKind = 'none',
  resource?: Resource,
  readOnly = false,
): Target {
  const shown = path.length > 90 ? `${path.slice(0, 90)}…(${path.length})` : path;
  return {
    method,
    path,
    idKind,
    resource,
    success,
    readOnly,
    badUrl: !decodable(path),
    [fc.toStringMethod]: () => `${method} ${shown} (${idKind} id${readOnly ? ', read-only' : ''})`,
  };
}

/** The stored data of every account, the bookkeeping column last_used_at aside. */
const TABLES = [
  ['accounts', 'id'],
  ['api_keys', 'id'],
  ['monitors', 'id'],
  ['monitor_contacts', 'monitor_id, contact_id'],
  ['contacts', 'id'],
  ['private_regions', 'id'],
  // The maintenance preview stores nothing: nothing here may change.
  ['maintenance_windows', 'id'],
] as const;

async function snapshot(ds: DataSource): Promise<string> {
  const tables: Record<string, unknown> = {};
  for (const [table, order] of TABLES) tables[table] = await ds.query(`SELECT * FROM ${table} ORDER BY ${order}`);
  return JSON.stringify(tables, (key, value: unknown) => (key === 'last_used_at' ? undefined : value));
}

async function expectCreated(response: Promise<ApiResponse>): Promise<any> {
  const res = await response;
  if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${res.text}`);
  return res.body;
}

const SEED_DETAILS: { readonly [K in WritableChannel]: Record<string, unknown> } = {
  email: { email: 'ops@example.com' },
  webhook: { url: 'https://hooks.example.com/picket', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
  chatone: { webhook_url: 'https://hooks.example.com/chat/1' },
  chattwo: { webhook_url: 'https://hooks.example.com/chat/2' },
  chatthree: { webhook_url: 'https://hooks.example.com/chat/3' },
  paging: { integration_key: 'R0UTINGKEY0123456789ABCDEFGHIJKL' },
  incidentmgmt: { webhook_url: 'https://hooks.example.com/incidents', bearer_token: 'tok_123' },
  alerting: { api_key: 'eb243592-faa2-4ba2', responders: [{ type: 'team', id: 'ops' }], tags: ['prod'] },
  ticketing: {
    subdomain: 'acme',
    email: 'agent@example.com',
    api_token: 'zd_token',
    custom_fields: [{ id: 7, value: 'x' }],
  },
};

async function buildWorld(db: TestDatabase): Promise<World> {
  const c = await startCoordinator(db.url, { env: { RATE_LIMIT_POINTS_PER_HOUR: '1000000' } });
  const ds = c.app.get<DataSource>(DATA_SOURCE);
  const own = await c.newAccount('hostile');
  const other = await c.newAccount('bystander');
  const api = own.client;

  const contacts: OwnContact[] = [];
  for (const channel of WRITABLE_CHANNELS) {
    const body = await expectCreated(
      api.post('/api/contacts', { name: `seed ${channel}`, channel, details: SEED_DETAILS[channel] }),
    );
    contacts.push({ id: body.contact.id, channel });
  }
  const push = await c.app.get(ContactsService).insert(own.accountId, 'browser', 'push', {
    endpoint: 'https://push.example.com/x',
    keys: { p256dh: 'k', auth: 'a' },
  });
  contacts.push({ id: push.id, channel: 'push' });

  const monitors: string[] = [];
  for (const settings of [
    { https: { url: 'https://example.com/health', request_headers: 'X-Token: abc', follow_redirect: false } },
    { tcp: { url: 'tcp://db.example.com:5432' } },
    { ping: { url: 'ping://203.0.113.7' } },
  ]) {
    const body = await expectCreated(
      api.post('/api/monitors', {
        name: `seed ${Object.keys(settings)[0]}`,
        settings,
        regions: ['eu-west-1', 'us-east-1'],
        contacts: contacts.slice(0, 2).map((x) => x.id),
      }),
    );
    monitors.push(body.data.id);
  }
  await api.post(`/api/monitors/${monitors[2]}/pause`);

  const foreignMonitor = await expectCreated(
    other.client.post('/api/monitors', {
      name: 'theirs',
      settings: { ping: { url: 'ping://example.org' } },
      regions: ['eu-west-1'],
    }),
  );
  const foreignContact = await expectCreated(
    other.client.post('/api/contacts', { name: 'theirs', channel: 'email', details: { email: 'them@example.org' } }),
  );

  const missing = '0123456789abcdef01234567';
  const notFound = {
    monitor: (await api.get(`/api/monitors/${missing}`)).text,
    contact: (await api.get(`/api/contacts/${missing}`)).text,
  };
  return {
    c,
    ds,
    api,
    monitors,
    contacts,
    foreign: { monitor: foreignMonitor.data.id, contact: foreignContact.contact.id },
    notFound,
    baseline: await snapshot(ds),
  };
}

// ---- the checks every request goes through -----------------------------------------------------

function fail(t: Target, message: string, res?: ApiResponse): never {
  const shown = res ? ` (got ${res.status} ${res.text.slice(0, 300)})` : '';
  throw new Error(`${t[fc.toStringMethod]()}: ${message}${shown}`);
}

function checkErrorEnvelope(t: Target, res: ApiResponse): void {
  if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
    fail(t, 'error without a JSON content type', res);
  const body = res.body as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null) fail(t, 'error body is not a JSON object', res);
  if (Object.keys(body).sort().join() !== 'error,status' || body.status !== 'error')
    fail(t, 'not the error envelope', res);
  const error = body.error as Record<string, unknown>;
  const { code, message, details } = error;
  if (typeof code !== 'string' || typeof message !== 'string' || message === '')
    fail(t, 'error needs code and message', res);
  if (STATUS_OF_CODE[code] !== res.status) fail(t, `code ${code} does not belong to HTTP ${res.status}`, res);
  if (/\n\s+at |node_modules|\.ts:\d/.test(message)) fail(t, 'error message leaks internals', res);
  const allowed = code === 'VALIDATION_ERROR' ? 'code,details,message' : 'code,message';
  if (Object.keys(error).sort().join() !== allowed) fail(t, `error object keys must be ${allowed}`, res);
  if (code === 'VALIDATION_ERROR') {
    if (!Array.isArray(details) || details.length === 0) fail(t, 'VALIDATION_ERROR needs details', res);
    for (const d of details as unknown[]) {
      const entry = d as Record<string, unknown>;
      if (
        typeof entry !== 'object' ||
        entry === null ||
        Object.keys(entry).sort().join() !== 'field,message' ||
        typeof entry.field !== 'string' ||
        typeof entry.message !== 'string'
      ) {
        fail(t, 'each detail is {field, message}', res);
      }
    }
  }
}

function allowedStatuses(t: Target, body: BodyCase | undefined, query: QueryCase | undefined): number[] | undefined {
  if (t.badUrl) return [404];
  const parseLevel = body && parseLevelStatus(body);
  if (parseLevel !== undefined) return [parseLevel];
  // A body that may fail to parse (arbitrary JSON can hold a __proto__ key) may get that 400 first.
  const mayFailFirst = (body?.expect ?? []).filter((o): o is 400 => o === 400);
  if (t.idKind === 'foreign' || t.idKind === 'unknown' || t.idKind === 'malformed') return [404, ...mayFailFirst];
  if (t.readOnly && (t.method === 'PUT' || t.method === 'DELETE')) return [403, ...mayFailFirst];
  const expect = body?.expect ?? query?.expect;
  return expect?.map((o: Outcome) => (o === 'success' ? t.success : o));
}

async function probe(w: World, t: Target, body?: BodyCase, query?: QueryCase): Promise<void> {
  const headers: Record<string, string> = {};
  if (body?.contentType !== undefined) headers['content-type'] = body.contentType;
  const raw = body?.body === undefined ? undefined : Buffer.from(body.body);
  let res: ApiResponse;
  try {
    res = await w.api.request(t.method, query ? `${t.path}?${query.query}` : t.path, { raw, headers });
  } catch (error) {
    fail(t, `request failed: ${String((error as { cause?: unknown }).cause ?? error)}`);
  }

  if (res.status >= 200 && res.status < 300) w.baseline = await snapshot(w.ds);
  if (res.status >= 500) fail(t, 'server error', res);
  const allowed = allowedStatuses(t, body, query);
  if (allowed && !allowed.includes(res.status)) fail(t, `expected ${allowed.join(' or ')}`, res);

  if (res.status >= 400) {
    checkErrorEnvelope(t, res);
    if (res.status === 404 && t.idKind !== 'none' && t.resource && res.text !== w.notFound[t.resource]) {
      fail(t, 'a 404 for a path id must be byte for byte the unknown-id 404', res);
    }
    const after = await snapshot(w.ds);
    if (after !== w.baseline) {
      expect({ rejected: t[fc.toStringMethod](), stored: JSON.parse(after) }).toEqual({
        rejected: t[fc.toStringMethod](),
        stored: JSON.parse(w.baseline),
      });
    }
    return;
  }

  if (t.idKind !== 'own' && t.idKind !== 'none') fail(t, 'a request for an id the account does not own succeeded', res);
  if (res.status === 204) {
    if (res.text !== '') fail(t, '204 with a body', res);
  } else if ((res.body as { status?: unknown } | undefined)?.status !== 'ok') {
    fail(t, 'success without the ok envelope', res);
  }
  const resource = res.body?.data?.id !== undefined ? res.body.data : res.body?.contact;
  if (resource && (resource.id === READ_ONLY_SENTINEL_ID || resource.created_at === READ_ONLY_SENTINEL_TIME)) {
    fail(t, 'a read-only field was written', res);
  }
}

// ---- targets ---------------------------------------------------------------------------------

function idTargets(
  w: World,
  resource: Resource,
  method: Target['method'],
  suffix: string,
  success: Target['success'],
  kinds: readonly IdKind[],
): fc.Arbitrary<Target> {
  const base = resource === 'monitor' ? '/api/monitors' : '/api/contacts';
  const own = resource === 'monitor' ? w.monitors : w.contacts.map((x) => x.id);
  const anOwnId = own[0] ?? '';
  const readOnlyIds = new Set(w.contacts.filter((x) => x.channel === 'push').map((x) => x.id));
  const make = (kind: IdKind) => (id: string) =>
    target(method, `${base}/${id}${suffix}`, success, kind, resource, kind === 'own' && readOnlyIds.has(id));
  const byKind: Record<IdKind, fc.Arbitrary<Target>> = {
    none: fc.constant(target(method, base, success)),
    own: fc.constantFrom(...own).map(make('own')),
    foreign: fc.constant(resource === 'monitor' ? w.foreign.monitor : w.foreign.contact).map(make('foreign')),
    unknown: unknownIds.filter((id) => !own.includes(id)).map(make('unknown')),
    malformed: malformedIds(anOwnId).map(make('malformed')),
  };
  return fc.oneof(...kinds.map((k) => ({ arbitrary: byKind[k], weight: k === 'own' || k === 'malformed' ? 2 : 1 })));
}

function firstTargets(
  w: World,
  resource: Resource,
  method: Target['method'],
  suffix: string,
  success: Target['success'],
) {
  const base = resource === 'monitor' ? '/api/monitors' : '/api/contacts';
  const own = resource === 'monitor' ? w.monitors[0] : w.contacts[0]?.id;
  const foreign = resource === 'monitor' ? w.foreign.monitor : w.foreign.contact;
  const at = (id: string, kind: IdKind) => target(method, `${base}/${id}${suffix}`, success, kind, resource);
  const upper = (own ?? '').toUpperCase();
  return {
    own: at(own ?? '', 'own'),
    bad: [
      at(foreign, 'foreign'),
      at('ffffffffffffffffffffffff', 'unknown'),
      at(upper === own ? `G${upper.slice(1)}` : upper, 'malformed'),
      at('%zz', 'malformed'),
      at('a'.repeat(201), 'malformed'),
    ],
  };
}

function anyOf<T>(classes: Readonly<Record<string, fc.Arbitrary<T>>>): fc.Arbitrary<T> {
  return fc.oneof(...Object.values(classes));
}

// ---- regressions: inputs that once got through --------------------------------------------------

/** Keys named after Object.prototype members were dropped silently instead of refused (was 201/200). */
const REGRESSION_BODIES: readonly BodyCase[] = [
  bodyCase(
    'unknown-field',
    'hasOwnProperty in settings.https',
    '{"name":"r","regions":["eu-west-1"],"settings":{"https":{"url":"https://example.com","hasOwnProperty":1}}}',
    [422],
  ),
  bodyCase(
    'unknown-field',
    'constructor in settings.https',
    '{"name":"r","regions":["eu-west-1"],"settings":{"https":{"url":"https://example.com","constructor":1}}}',
    [422],
  ),
  bodyCase(
    'unknown-field',
    'toString at the top level',
    '{"name":"r","regions":["eu-west-1"],"settings":{"ping":{"url":"ping://example.com"}},"toString":1}',
    [422],
  ),
];

/** Contact bodies that once got through. */
const REGRESSION_CONTACT_BODIES: readonly BodyCase[] = [
  // A `constructor` key in an untyped nested object made class-transformer throw: 500.
  bodyCase(
    'unknown-field',
    'constructor in details',
    '{"name":"r","channel":"email","details":{"email":"a@example.com","constructor":1}}',
    [422],
  ),
  bodyCase(
    'unknown-field',
    'constructor in a responder',
    '{"name":"r","channel":"alerting","details":{"api_key":"k","responders":[{"type":"team","id":"x","constructor":1}]}}',
    [422],
  ),
  // Keys named after Object.prototype members, nested: dropped silently (was 201).
  bodyCase(
    'unknown-field',
    'hasOwnProperty in details',
    '{"name":"r","channel":"email","details":{"email":"a@example.com","hasOwnProperty":1}}',
    [422],
  ),
  bodyCase(
    'unknown-field',
    'toString in a responder',
    '{"name":"r","channel":"alerting","details":{"api_key":"k","responders":[{"type":"team","id":"x","toString":1}]}}',
    [422],
  ),
  // The email domain check dropped tab, CR and LF (WHATWG domainToASCII), and the address was stored with them (was 201).
  bodyCase(
    'crlf',
    'CR LF inside an email domain',
    '{"name":"r","channel":"email","details":{"email":"a@exa\\r\\nmple.com"}}',
    [422],
  ),
  bodyCase(
    'crlf',
    'CR after a ticketing email',
    '{"name":"r","channel":"ticketing","details":{"subdomain":"acme","email":"a@example.com\\r","api_token":"t"}}',
    [422],
  ),
];

/** Query strings that once got through: Object.prototype member names as parameters (was 200). */
const REGRESSION_QUERIES: readonly string[] = ['toString=1', 'hasOwnProperty=1', 'valueOf=1'];

// ---- the suites ------------------------------------------------------------------------------

const kinds: [string, DatabaseKind][] = testDatabases().map((kind) => [kind.name, kind]);

describe.each(kinds)('hostile input (%s)', (_name, kind) => {
  const RUNS = RUNS_OVERRIDE || (kind.name === 'sqlite' ? 300 : 120);
  const TIMEOUT = 120_000 + RUNS * 100;
  let db: TestDatabase;
  let w: World;

  beforeAll(async () => {
    db = await kind.create();
    w = await buildWorld(db);
  }, 60_000);

  afterAll(async () => {
    await w?.c.close();
    await db?.drop();
  });

  const options = <T>(examples: T[]) => ({ seed: SEED, numRuns: RUNS, examples });

  it(
    'POST /api/monitors',
    async () => {
      const ids = w.contacts.map((x) => x.id);
      const classes = bodyClasses(monitorCreateSchema(ids, w.foreign.contact));
      const post = target('POST', '/api/monitors', 201);
      const examples = [...firstOfEachClass(classes, SEED), ...REGRESSION_BODIES].map((b) => [b] as [BodyCase]);
      await fc.assert(
        fc.asyncProperty(anyOf(classes), (b) => probe(w, post, b)),
        options(examples),
      );
    },
    TIMEOUT,
  );

  it(
    'PUT /api/monitors/{id}',
    async () => {
      const ids = w.contacts.map((x) => x.id);
      const classes = bodyClasses(monitorUpdateSchema(ids, w.foreign.contact));
      const first = firstTargets(w, 'monitor', 'PUT', '', 200);
      const samples = firstOfEachClass(classes, SEED);
      const valid = samples[BODY_CLASSES.indexOf('valid')] as BodyCase;
      const examples: [Target, BodyCase][] = [
        ...samples.map((b): [Target, BodyCase] => [first.own, b]),
        ...first.bad.map((t): [Target, BodyCase] => [t, valid]),
        ...REGRESSION_BODIES.map((b): [Target, BodyCase] => [first.own, b]),
      ];
      const targets = idTargets(w, 'monitor', 'PUT', '', 200, ['own', 'foreign', 'unknown', 'malformed']);
      await fc.assert(
        fc.asyncProperty(targets, anyOf(classes), (t, b) => probe(w, t, b)),
        options(examples),
      );
    },
    TIMEOUT,
  );

  it(
    'POST /api/monitors/{id}/pause and /resume, DELETE /api/monitors/{bad id}',
    async () => {
      const classes = noBodyClasses();
      const all: IdKind[] = ['own', 'foreign', 'unknown', 'malformed'];
      const targets = fc.oneof(
        idTargets(w, 'monitor', 'POST', '/pause', 200, all),
        idTargets(w, 'monitor', 'POST', '/resume', 200, all),
        idTargets(w, 'monitor', 'DELETE', '', 204, ['foreign', 'unknown', 'malformed']),
      );
      const pause = firstTargets(w, 'monitor', 'POST', '/pause', 200);
      const del = firstTargets(w, 'monitor', 'DELETE', '', 204);
      const examples: [Target, BodyCase][] = [
        ...firstOfEachClass(classes, SEED).map((b): [Target, BodyCase] => [pause.own, b]),
        ...[...pause.bad, ...del.bad].map((t): [Target, BodyCase] => [t, NO_BODY]),
      ];
      await fc.assert(
        fc.asyncProperty(targets, anyOf(classes), (t, b) => probe(w, t, b)),
        options(examples),
      );
    },
    TIMEOUT,
  );

  it(
    'GET /api/monitors with hostile query strings',
    async () => {
      const classes = queryClasses(monitorListQuery());
      const list = target('GET', '/api/monitors', 200);
      await fc.assert(
        fc.asyncProperty(anyOf(classes), (q) => probe(w, list, undefined, q)),
        options(
          [
            ...firstOfEachClass(classes, SEED),
            ...REGRESSION_QUERIES.map((q) => queryCase('nested-query', q, [422])),
          ].map((q) => [q] as [QueryCase]),
        ),
      );
    },
    TIMEOUT,
  );

  it(
    'POST /api/contacts',
    async () => {
      const classes = bodyClasses(contactCreateSchema());
      const post = target('POST', '/api/contacts', 201);
      const examples = [...firstOfEachClass(classes, SEED), ...REGRESSION_CONTACT_BODIES].map((b) => [b] as [BodyCase]);
      await fc.assert(
        fc.asyncProperty(anyOf(classes), (b) => probe(w, post, b)),
        options(examples),
      );
    },
    TIMEOUT,
  );

  it(
    'PUT /api/contacts/{id}',
    async () => {
      const byChannel = new Map<string, fc.Arbitrary<BodyCase>>();
      const classesOf = (channel: WritableChannel | 'push') =>
        bodyClasses(contactUpdateSchema(channel === 'push' ? 'email' : channel));
      for (const c of w.contacts) byChannel.set(c.id, anyOf(classesOf(c.channel)));
      const own = fc
        .constantFrom(...w.contacts)
        .chain((c) =>
          fc.tuple(
            fc.constant(target('PUT', `/api/contacts/${c.id}`, 200, 'own', 'contact', c.channel === 'push')),
            byChannel.get(c.id) as fc.Arbitrary<BodyCase>,
          ),
        );
      const bad = fc.tuple(
        idTargets(w, 'contact', 'PUT', '', 200, ['foreign', 'unknown', 'malformed']),
        anyOf(classesOf('email')),
      );
      const first = firstTargets(w, 'contact', 'PUT', '', 200);
      const pushContact = w.contacts.find((x) => x.channel === 'push') as OwnContact;
      const samples = firstOfEachClass(classesOf(w.contacts[0]?.channel ?? 'email'), SEED);
      const valid = samples[BODY_CLASSES.indexOf('valid')] as BodyCase;
      const examples: [[Target, BodyCase]][] = [
        ...samples.map((b): [[Target, BodyCase]] => [[first.own, b]]),
        ...first.bad.map((t): [[Target, BodyCase]] => [[t, valid]]),
        [[target('PUT', `/api/contacts/${pushContact.id}`, 200, 'own', 'contact', true), valid]],
        // A nested `constructor` key made class-transformer throw: 500.
        [[first.own, bodyCase('unknown-field', 'constructor in details', '{"details":{"constructor":1}}', [422])]],
      ];
      await fc.assert(
        fc.asyncProperty(fc.oneof({ arbitrary: own, weight: 3 }, { arbitrary: bad, weight: 2 }), ([t, b]) =>
          probe(w, t, b),
        ),
        options(examples),
      );
    },
    TIMEOUT,
  );

  it(
    'POST /api/contacts/{id}/reactivate, DELETE /api/contacts/{bad or read-only id}',
    async () => {
      const classes = noBodyClasses();
      const pushContact = w.contacts.find((x) => x.channel === 'push') as OwnContact;
      const deletePush = target('DELETE', `/api/contacts/${pushContact.id}`, 204, 'own', 'contact', true);
      const targets = fc.oneof(
        {
          arbitrary: idTargets(w, 'contact', 'POST', '/reactivate', 200, ['own', 'foreign', 'unknown', 'malformed']),
          weight: 3,
        },
        { arbitrary: idTargets(w, 'contact', 'DELETE', '', 204, ['foreign', 'unknown', 'malformed']), weight: 2 },
        { arbitrary: fc.constant(deletePush), weight: 1 },
      );
      const reactivate = firstTargets(w, 'contact', 'POST', '/reactivate', 200);
      const del = firstTargets(w, 'contact', 'DELETE', '', 204);
      const examples: [Target, BodyCase][] = [
        ...firstOfEachClass(classes, SEED).map((b): [Target, BodyCase] => [reactivate.own, b]),
        ...[...reactivate.bad, ...del.bad, deletePush].map((t): [Target, BodyCase] => [t, NO_BODY]),
      ];
      await fc.assert(
        fc.asyncProperty(targets, anyOf(classes), (t, b) => probe(w, t, b)),
        options(examples),
      );
    },
    TIMEOUT,
  );

  it(
    'GET /api/contacts and GET /api/account with hostile query strings',
    async () => {
      const contacts = target('GET', '/api/contacts', 200);
      const account = target('GET', '/api/account', 200);
      const contactQueries = queryClasses(contactListQuery());
      const accountQueries = queryClasses(accountQuery());
      const cases = fc.oneof(
        { arbitrary: fc.tuple(fc.constant(contacts), anyOf(contactQueries)), weight: 3 },
        { arbitrary: fc.tuple(fc.constant(account), anyOf(accountQueries)), weight: 1 },
      );
      const examples = [
        ...firstOfEachClass(contactQueries, SEED).map((q): [[Target, QueryCase]] => [[contacts, q]]),
        ...firstOfEachClass(accountQueries, SEED).map((q): [[Target, QueryCase]] => [[account, q]]),
        ...REGRESSION_QUERIES.map((q): [[Target, QueryCase]] => [[contacts, queryCase('nested-query', q, [422])]]),
      ];
      await fc.assert(
        fc.asyncProperty(cases, ([t, q]) => probe(w, t, undefined, q)),
        options(examples),
      );
    },
    TIMEOUT,
  );

  it(
    'POST /api/maintenance_windows/preview',
    async () => {
      const classes = bodyClasses(maintenancePreviewSchema(w.monitors, w.foreign.monitor));
      const post = target('POST', '/api/maintenance_windows/preview', 200);
      const examples = firstOfEachClass(classes, SEED).map((b) => [b] as [BodyCase]);
      await fc.assert(
        fc.asyncProperty(anyOf(classes), (b) => probe(w, post, b)),
        options(examples),
      );
    },
    TIMEOUT,
  );

  it(
    'POST /api/regions',
    async () => {
      const classes = bodyClasses(regionCreateSchema());
      const post = target('POST', '/api/regions', 201);
      const examples = [
        ...firstOfEachClass(classes, SEED),
        // A second region with an id the account has: refused, naming `id`.
        bodyCase('wrong-type', 'a repeated id', '{"id":"dup-region","name":"First"}', ['success']),
        bodyCase('wrong-type', 'a repeated id', '{"id":"dup-region","name":"Second"}', [422]),
      ].map((b) => [b] as [BodyCase]);
      await fc.assert(
        fc.asyncProperty(anyOf(classes), (b) => probe(w, post, b)),
        options(examples),
      );
    },
    TIMEOUT,
  );
});

describe('after the hostile-input suites', () => {
  it('no global prototype changed (I2)', () => {
    const after = prototypeShape();
    const changed = [...new Set([...PROTOTYPES_BEFORE.keys(), ...after.keys()])].filter((key) => {
      const a = PROTOTYPES_BEFORE.get(key);
      const b = after.get(key);
      return Array.isArray(a) && Array.isArray(b) ? a[0] !== b[0] || a[1] !== b[1] : !Object.is(a, b);
    });
    expect(changed).toEqual([]);
    const probeObject: Record<string, unknown> = {};
    expect(probeObject.picketPolluted).toBeUndefined();
    expect(probeObject.isAdmin).toBeUndefined();
  });
});
