/**
 * The OpenAPI document against the running coordinator: every operation is exercised for real
 * (that it lists exactly the registered routes: openapi-routes.spec.ts), and every answer must have a
 * documented status and a body that validates against the documented schema (ajv, JSON
 * Schema 2020-12). Finally every documented status (500 and 503 aside) must have been seen,
 * so the document can neither miss nor invent behaviour.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { request as httpRequest } from 'node:http';
import { PERMISSIONS, type Permission } from '../../apps/coordinator/src/auth/permissions.js';
import { AccountsService } from '../../apps/coordinator/src/auth/accounts.service.js';
import { completeDetails } from '../../apps/coordinator/src/contacts/channels.js';
import { ContactsRepository } from '../../apps/coordinator/src/contacts/contacts.repository.js';
import { ContactsService } from '../../apps/coordinator/src/contacts/contacts.service.js';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { MAX_BODY_BYTES } from '../../apps/coordinator/src/http/json-body.js';
import { MonitorEntity } from '../../apps/coordinator/src/monitors/monitor.entity.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { TransitionWriter } from '../../apps/coordinator/src/transitions/transition.writer.js';
import { UsersService } from '../../apps/coordinator/src/users/users.service.js';
import { EnrollmentService } from '../../apps/coordinator/src/regions/enrollment.service.js';
import { createUser } from '@nats-io/jwt';
import { ConfiguredNats, startJwtNats, type JwtNats } from '../support/nats-secure.js';
import { sessionFrom, tokenOfUrl, type Session } from '../support/sessions.js';
import type { ApiClient, ApiResponse, RequestOptions } from '../support/api-client.js';
import { probeResult } from '../support/check-results.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { waitFor } from '../support/wait.js';

const DOC_ID = 'https://picket.test/openapi.json';
const UNKNOWN_ID = '0123456789abcdef01234567';
/** AUTH_FAILURES_PER_HOUR of the coordinator under test: the wrong guesses the public-page test makes before its 429. */
const FAILURE_BUDGET = 10;
/**
 * Statuses a healthy server cannot be made to answer on purpose here (429 needs the budget
 * spent: test/e2e/rate-limit.spec.ts exhausts it on every route kind).
 */
const UNREACHABLE_STATUSES = new Set(['429', '500', '503']);
/**
 * Enrollment answers for real only with a nats-server in JWT mode; without the binary (a plain
 * `npm test` on a machine without it) its successes are left unseen, and said so.
 */
const JWT_NATS = ConfiguredNats.binary() !== null;
if (!JWT_NATS && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the OpenAPI test needs nats-server on this machine (Debian package nats-server)');
}
const ENROLLMENT_SUCCESSES = new Set([
  'POST /api/regions/{id}/agent_tokens 201',
  'GET /api/regions/{id}/agents 200',
  'DELETE /api/regions/{id}/agents/{agentId} 204',
]);
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const JSON_TYPE = { 'content-type': 'application/json' };
/** The resource 404 of each path prefix with an id. */
const NOT_FOUND_CODES: [prefix: string, code: string][] = [
  ['/api/monitors/', 'MONITOR_NOT_FOUND'],
  ['/api/contacts/', 'CONTACT_NOT_FOUND'],
  ['/api/incidents/', 'INCIDENT_NOT_FOUND'],
  ['/api/status_pages/', 'STATUS_PAGE_NOT_FOUND'],
  // Users and API keys take the generic code (docs/decisions/0022-users-and-sessions.md).
  ['/api/users/', 'NOT_FOUND'],
  ['/api/keys/', 'NOT_FOUND'],
  ['/api/maintenance_windows/', 'MAINTENANCE_WINDOW_NOT_FOUND'],
  ['/api/regions/', 'REGION_NOT_FOUND'],
  // The public pages take any id; a URL that cannot be decoded reaches no route.
  ['/status/', 'NOT_FOUND'],
  // A heartbeat's ping token: unknown, malformed or deleted alike.
  ['/ping/', 'NOT_FOUND'],
];

interface Operation {
  /** Upper case, as sent. */
  method: string;
  /** The documented template, e.g. /api/monitors/{id}. */
  path: string;
  pattern: RegExp;
  spec: any;
}

const pointerEscape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

describe('OpenAPI document', () => {
  let db: TestDatabase;
  let coordinator: RunningCoordinator;
  let served: ApiResponse;
  let doc: any;
  let ajv: Ajv2020;
  let operations: Operation[];
  let owner: { accountId: string; apiKey: string; client: ApiClient };
  let a: ApiClient;
  /** The first admin of the `default` account, signed in (cookie and CSRF token on every request). */
  let admin: Session;
  const observed = new Map<string, Set<string>>();
  let natsAuth: JwtNats | undefined;
  const validators = new Map<string, ValidateFunction>();
  const keys = new Map<string, ApiClient>();

  // ---- reading the document --------------------------------------------------------

  /** The value at a local `#/...` reference. */
  function at(reference: string): any {
    if (!reference.startsWith('#/')) throw new Error(`not a local reference: ${reference}`);
    let node: any = doc;
    for (const raw of reference.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`unresolved $ref ${reference}`);
      node = node[key];
    }
    return node;
  }

  /** A Reference Object followed to what it names (response, parameter, header, schema). */
  const deref = (node: any): any => (node && typeof node.$ref === 'string' ? deref(at(node.$ref)) : node);

  const schemaOf = (name: string): any => at(`#/components/schemas/${name}`);

  /** An ajv validator for a schema found anywhere in the document; its refs resolve in the document. */
  function validatorFor(schema: unknown): ValidateFunction {
    const text = JSON.stringify(schema);
    let validate = validators.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text.replaceAll('"#/components/', `"${DOC_ID}#/components/`)));
      validators.set(text, validate);
    }
    return validate;
  }

  /** The documented operation of a request; of several that match, the one with the most literal text. */
  function operationFor(method: string, url: string): Operation {
    const path = url.split('?')[0] ?? url;
    const literal = (op: Operation) => op.path.replace(/\{\w+\}/g, '').length;
    const found = operations
      .filter((op) => op.method === method && op.pattern.test(path))
      .sort((x, y) => literal(y) - literal(x))[0];
    if (!found) throw new Error(`${method} ${path} is not a documented operation`);
    return found;
  }

  /** Operations only signed-in dashboard users may call (`x-permission` session or admin; keys get 403). */
  const sessionOnly = (op: Operation): boolean => op.spec.security?.[0]?.sessionCookie !== undefined;

  /** Who can call an operation: the admin's session for session-only ones, else the account's key. */
  const callerOf = (op: Operation): ApiClient => (sessionOnly(op) ? admin.client : a);

  // ---- checking answers ----------------------------------------------------------------

  /** The answer must be documented for the operation: status, headers and body. */
  function conform(method: string, url: string, res: ApiResponse): void {
    const op = operationFor(method, url);
    const status = String(res.status);
    const label = `${method} ${url} answered ${status} ${res.text.slice(0, 600)}`;
    const documented = op.spec.responses[status];
    if (!documented) {
      throw new Error(`${label}\nundocumented status; documented: ${Object.keys(op.spec.responses).join(', ')}`);
    }
    const key = `${op.method} ${op.path}`;
    observed.set(key, (observed.get(key) ?? new Set()).add(status));
    conformResponse(deref(documented), res, label);
  }

  function conformResponse(response: any, res: ApiResponse, label: string): void {
    const contentType = res.headers.get('content-type') ?? '';
    const types = Object.keys(response.content ?? {});
    // An operation may document JSON and text (checker addresses, public pages); the answer must be one of them.
    const type = types.find((t) => contentType.startsWith(t));
    if (types.length > 0 && !type)
      throw new Error(`${label}\ncontent type ${contentType}; documented: ${types.join(', ')}`);
    if (type !== undefined && type !== 'application/json') {
      expect(res.text).not.toBe('');
    } else if (type !== undefined) {
      const media = response.content[type];
      const validate = validatorFor(media.schema);
      if (!validate(res.body)) {
        throw new Error(`${label}\nbody does not match the documented schema: ${ajv.errorsText(validate.errors)}`);
      }
    } else if (res.text !== '') {
      throw new Error(`${label}\na body where the document says there is none`);
    }
    for (const [name, header] of Object.entries<any>(response.headers ?? {})) {
      const value = res.headers.get(name);
      const spec = deref(header);
      if (value === null) {
        if (spec.required) throw new Error(`${label}\nmissing documented header ${name}`);
        continue;
      }
      const validate = validatorFor(spec.schema ?? {});
      if (!validate(value)) throw new Error(`${label}\nheader ${name}: ${ajv.errorsText(validate.errors)}`);
    }
  }

  /** A request whose answer must conform to the document. */
  async function call(client: ApiClient, method: string, url: string, options: RequestOptions = {}) {
    const res = await client.request(method, url, options);
    conform(method, url, res);
    return res;
  }

  /** The status, and for errors the code when given (success bodies have no error code). */
  function expectCode(res: ApiResponse, status: number, code?: string): void {
    const actual = res.body?.error?.code;
    const expected = code ?? (status >= 400 ? actual : undefined);
    expect({ status: res.status, code: actual }).toEqual({ status, code: expected });
  }

  /** A client whose key holds exactly these permissions (cached per set). */
  async function keyWith(permissions: readonly Permission[]): Promise<ApiClient> {
    const name = [...permissions].sort().join(',');
    let client = keys.get(name);
    if (!client) {
      client = (await coordinator.newKey(owner.accountId, permissions)).client;
      keys.set(name, client);
    }
    return client;
  }

  /** The schema of `details` that the ContactCreate branch for `channel` demands. */
  function createDetailsSchema(channel: string): any {
    const branch = schemaOf('ContactCreate').oneOf.find((b: any) => b.properties.channel.enum.includes(channel));
    if (!branch) throw new Error(`ContactCreate has no branch for ${channel}`);
    return deref(branch.properties.details);
  }

  // ---- fixtures ----------------------------------------------------------------------

  const monitorBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    name: 'Storefront',
    settings: { https: { url: 'https://example.com/health' } },
    regions: ['eu-west-1'],
    ...overrides,
  });

  async function createMonitor(overrides: Record<string, unknown> = {}): Promise<any> {
    const res = await call(a, 'POST', '/api/monitors', { json: monitorBody(overrides) });
    expectCode(res, 201);
    return res.body.data;
  }

  /** Details per writable channel: the least a create needs, and every field set. */
  const CHANNEL_SAMPLES: Record<string, { minimal: Record<string, unknown>; full: Record<string, unknown> }> = {
    email: { minimal: { email: 'ops@example.com' }, full: { email: 'ops@example.com' } },
    webhook: {
      minimal: { url: 'https://hooks.example.com/picket' },
      full: { url: 'http://hooks.example.com/picket', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
    },
    chatone: {
      minimal: { webhook_url: 'https://chat.example.com/1' },
      full: { webhook_url: 'https://chat.example.com/1' },
    },
    chattwo: {
      minimal: { webhook_url: 'https://chat.example.com/2' },
      full: { webhook_url: 'https://chat.example.com/2' },
    },
    chatthree: {
      minimal: { webhook_url: 'https://chat.example.com/3' },
      full: { webhook_url: 'https://chat.example.com/3' },
    },
    paging: {
      minimal: { integration_key: 'R0UTINGKEY0123456789' },
      full: {
        integration_key: 'R0UTINGKEY0123456789',
        severity_mapping: { low: 'warning' },
        auto_resolve_incidents: false,
      },
    },
    incidentmgmt: {
      minimal: { webhook_url: 'https://api.incidents.example.com/v2/alert', bearer_token: 'tok_abc' },
      full: {
        webhook_url: 'https://api.incidents.example.com/v2/alert',
        bearer_token: 'tok_abc',
        auto_resolve_incidents: false,
      },
    },
    alerting: {
      minimal: { api_key: 'genie-key-1' },
      full: {
        api_key: 'genie-key-1',
        priority: 'P1',
        responders: [{ type: 'team', id: 'ops' }],
        tags: ['prod'],
        auto_close_alerts: false,
        eu_instance: true,
      },
    },
    ticketing: {
      minimal: { subdomain: 'acme', email: 'it@example.com', api_token: 'zd-token' },
      full: {
        subdomain: 'acme',
        email: 'it@example.com',
        api_token: 'zd-token',
        priority: 'urgent',
        custom_fields: [{ id: 42, value: 'picket' }],
        tags: ['uptime'],
        auto_solve_tickets: false,
      },
    },
  };

  // ---- lifecycle ---------------------------------------------------------------------

  beforeAll(async () => {
    const kind = testDatabases()[0];
    if (!kind) throw new Error('no test database');
    db = await kind.create();
    // A configured checker address, so the text form of the address list has a body to check.
    // A small failure budget: the public-page test spends it with wrong passwords, each a scrypt
    // (150 of them took most of a minute); the key test's three refused keys per operation come
    // from an address per operation.
    // A NATS server in JWT mode and NATS_AUTH_DIR, so private regions' enrollment answers for real.
    natsAuth = JWT_NATS ? await startJwtNats() : undefined;
    coordinator = await startCoordinator(db.url, {
      env: {
        CHECKER_ADDRESSES: 'eu-west-1=203.0.113.5',
        AUTH_FAILURES_PER_HOUR: String(FAILURE_BUDGET),
        ...natsAuth?.coordinatorEnv,
      },
    });
    // Ready before the operations are tried: with NATS configured, /readyz answers 503 until the link
    // connects (CI once saw it still connecting when the walk reached /readyz).
    await waitFor('the coordinator to be ready', async () =>
      (await coordinator.client().get('/readyz')).status === 200 ? true : undefined,
    );
    served = await coordinator.client().get('/api/openapi.json');
    doc = served.body;
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: DOC_ID, components: doc?.components ?? {} });
    operations = [];
    for (const [path, item] of Object.entries<any>(doc?.paths ?? {})) {
      const source = path.split('/').map((s) => s.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+'));
      for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
        // A streaming answer never ends: test/e2e/live.spec.ts checks that operation against the document.
        if (item[method] && item[method]['x-stream'] !== true) {
          operations.push({
            method: method.toUpperCase(),
            path,
            pattern: new RegExp(`^${source.join('/')}$`),
            spec: item[method],
          });
        }
      }
    }
    owner = await coordinator.newAccount('openapi');
    a = owner.client;
    // The first admin, through the setup URL a first start prints.
    const url = await coordinator.app.get(UsersService).issueSetupUrl();
    if (url === null) throw new Error('no setup URL on a fresh database');
    const setup = await call(coordinator.client(), 'POST', '/auth/setup', {
      json: { token: tokenOfUrl(url), email: 'admin@openapi.example', name: 'Admin', password: 'a long password' },
    });
    admin = await sessionFrom(coordinator.baseUrl, setup);
  });

  afterAll(async () => {
    await coordinator?.close();
    await natsAuth?.stop();
    await db?.drop();
  });

  // ---- the document itself -------------------------------------------------------------

  it('is served as OpenAPI 3.1 JSON without an API key', () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.bearerAuth.bearerFormat).toContain('pkt_');
    expect(doc.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'picket_session',
    });
    conform('GET', '/api/openapi.json', served);
  });

  it('is internally consistent: refs resolve, schemas compile, ids are unique, path parameters declared', () => {
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.push(value);
          else walk(value);
        }
      }
    };
    walk(doc);
    for (const reference of refs) expect(() => at(reference)).not.toThrow();

    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
      if (!ajv.validateSchema(schema)) throw new Error(`schema ${name}: ${ajv.errorsText(ajv.errors)}`);
      expect(() => ajv.getSchema(`${DOC_ID}#/components/schemas/${pointerEscape(name)}`)).not.toThrow();
    }

    const ids = operations.map((op) => op.spec.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set(doc.tags.map((t: any) => t.name));
    for (const op of operations) {
      expect(op.spec.tags.every((t: string) => tags.has(t))).toBe(true);
      const declared = (op.spec.parameters ?? [])
        .map(deref)
        .filter((p: any) => p.in === 'path')
        .map((p: any) => p.name);
      const inPath = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(declared.sort()).toEqual(inPath.sort());
      const permission = op.spec['x-permission'];
      if (op.spec.security?.length === 0) expect(permission).toBeUndefined();
      else if (sessionOnly(op)) expect(['session', 'admin']).toContain(permission);
      else expect(PERMISSIONS).toContain(permission);
    }
  });

  // The routes themselves, both ways, with their permissions: openapi-routes.spec.ts.

  // ---- behaviour every operation shares -------------------------------------------------

  it('needs the documented key and permission for every operation', async () => {
    // Refused keys are charged to their address's failure budget: each operation's come from an
    // address of their own, so the budget can stay small (see beforeAll).
    const refusedFrom = (index: number) => `127.0.4.${index + 1}`;
    const refused = async (index: number, key: string | undefined, method: string, url: string, json: unknown) => {
      const headers: Record<string, string> = key === undefined ? {} : { authorization: `Bearer ${key}` };
      const res = await rawRequest(method.toUpperCase(), url, { headers, json, from: refusedFrom(index) });
      conform(method, url, res);
      return res;
    };
    expect(operations.length).toBeLessThan(255);
    for (const [index, op] of operations.entries()) {
      const url = op.path.replace('{id}', UNKNOWN_ID);
      const json = op.spec.requestBody ? {} : undefined;
      if (op.spec.security?.length === 0) {
        // Served without a key: never the API key's 401 (public pages with an unknown id are 404; the sign-in
        // routes judge their bodies, an empty one being 422).
        const res = await call(coordinator.client(), op.method, url, { json });
        expect(res.headers.get('www-authenticate') ?? '').not.toMatch(/^Bearer/);
        // (A dashboard asset named `{file}` does not exist: 404; the dashboard's own test covers it.)
        const literalOk = !op.path.includes('{id}') && !op.path.includes('{file}');
        if (op.spec.tags[0] === 'Sessions') expect([204, 422]).toContain(res.status);
        else if (literalOk && op.spec.tags[0] !== 'Public status pages') expectCode(res, 200);
        continue;
      }
      if (sessionOnly(op)) {
        // Never with a key, whatever its permissions; a signed-in admin passes.
        expectCode(await call(await keyWith(PERMISSIONS), op.method, url, { json }), 403, 'FORBIDDEN');
        expect([401, 403]).not.toContain((await call(admin.client, op.method, url, { json })).status);
        expectCode(await refused(index, undefined, op.method, url, json), 401, 'UNAUTHORIZED');
        continue;
      }
      const permission = op.spec['x-permission'] as Permission;
      const granted = await call(await keyWith([permission]), op.method, url, { json });
      expect([401, 403]).not.toContain(granted.status);
      const denied = await call(await keyWith(PERMISSIONS.filter((p) => p !== permission)), op.method, url, { json });
      expectCode(denied, 403, 'FORBIDDEN');
      for (const key of [undefined, 'not-a-key', `pkt_${'0'.repeat(64)}`]) {
        expectCode(await refused(index, key, op.method, url, json), 401, 'UNAUTHORIZED');
      }
    }
  });

  it('answers unreadable requests as documented (400, 404, 413, 415, 422)', async () => {
    for (const op of operations) {
      const caller = callerOf(op);
      const unknownParam = await call(
        caller,
        op.method,
        `${op.path.replace('{id}', UNKNOWN_ID)}?unknown_parameter=1`,
        {},
      );
      expectCode(unknownParam, 422, 'VALIDATION_ERROR');
      const url = op.path.replace('{id}', UNKNOWN_ID);
      if (op.path.includes('{id}')) {
        const notFoundCode = NOT_FOUND_CODES.find(([prefix]) => op.path.startsWith(prefix))?.[1];
        if (!notFoundCode) throw new Error(`no resource 404 known for ${op.path}`);
        expectCode(await call(caller, op.method, op.path.replace('{id}', '%E0%A4%A'), {}), 404, notFoundCode);
      }
      if (!BODY_METHODS.has(op.method)) continue;
      expectCode(await call(a, op.method, url, { raw: '{"name":', headers: JSON_TYPE }), 400, 'INVALID_JSON');
      expectCode(
        await call(a, op.method, url, { raw: 'name=x', headers: { 'content-type': 'text/plain' } }),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
      const huge = JSON.stringify({ name: 'x'.repeat(MAX_BODY_BYTES) });
      expectCode(await call(a, op.method, url, { raw: huge, headers: JSON_TYPE }), 413, 'PAYLOAD_TOO_LARGE');
    }
  });

  it('answers other methods on documented paths with the documented 405, and unknown paths with 404', async () => {
    const documentedMethods = (item: any) =>
      ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((m) => item[m.toLowerCase()]);
    for (const path of Object.keys(doc.paths)) {
      const url = path.replace('{id}', UNKNOWN_ID);
      // `Allow` lists every method a route serves at the URL: a literal path beside `{id}`
      // (`/api/maintenance_windows/preview`, POST) also has the `{id}` routes' methods.
      const methods = [
        ...new Set(
          Object.entries<any>(doc.paths)
            .filter(([other]) => other === path || operations.some((op) => op.path === other && op.pattern.test(url)))
            .flatMap(([, served]) => documentedMethods(served)),
        ),
      ];
      const other = ['PATCH', 'PUT', 'POST', 'DELETE'].find((m) => !methods.includes(m));
      if (!other) throw new Error(`no undocumented method left for ${path}`);
      const res = await a.request(other, url);
      expectCode(res, 405, 'METHOD_NOT_ALLOWED');
      conformResponse(at('#/components/responses/MethodNotAllowed'), res, `${other} ${path}`);
      const allow = (res.headers.get('allow') ?? '').split(/,\s*/).filter((m) => m !== 'HEAD');
      expect(allow.sort()).toEqual(methods.sort());
    }
    const res = await a.get('/api/nothing-here');
    expectCode(res, 404, 'NOT_FOUND');
    conformResponse(at('#/components/responses/NotFound'), res, 'GET /api/nothing-here');
  });

  it('enforces the documented query parameters: enums, bounds, defaults, nothing else', async () => {
    // Paths with an id are asked about a monitor or a contact of the account (those with query parameters under an id).
    const monitorId = (await createMonitor({ name: 'Query parameters' })).id as string;
    const contact = await call(a, 'POST', '/api/contacts', {
      json: { name: 'Query parameters', channel: 'email', details: { email: 'query@example.com' } },
    });
    expectCode(contact, 201);
    const contactId = contact.body.contact.id as string;
    // The check history's region filter takes the account's own private ids (0030-private-regions.md):
    // 'office-2', a good value below, is one of them.
    expectCode(await call(a, 'POST', '/api/regions', { json: { id: 'office-2', name: 'Query parameters' } }), 201);
    for (const op of operations.filter((o) => (o.spec.parameters ?? []).some((p: any) => deref(p).in === 'query'))) {
      const params = op.spec.parameters.map(deref).filter((p: any) => p.in === 'query');
      const path = op.path.replace('{id}', op.path.startsWith('/api/contacts/') ? contactId : monitorId);
      const caller = callerOf(op);
      const defaults = await call(caller, op.method, path);
      expectCode(defaults, 200);
      const byName = Object.fromEntries(params.map((p: any) => [p.name, p.schema]));
      if (byName.page) {
        const pagination = defaults.body.pagination ?? defaults.body.data.pagination;
        expect(pagination.page).toBe(byName.page.default);
        expect(pagination.per_page).toBe(byName.per_page.default);
      }
      if (byName.period) expect(defaults.body.data.period).toBe(byName.period.default);

      for (const { name, schema } of params) {
        const good: string[] = [];
        const bad: string[] = ['', ' 1'].filter(() => schema.type === 'integer');
        if (schema.enum) {
          good.push(...schema.enum);
          bad.push('bogus', String(schema.enum[0]).toUpperCase());
        } else if (schema.anyOf) {
          // A listed value or one of a pattern (a region: public, or of a private region's form).
          const [listed, patterned] = schema.anyOf as [{ enum: string[] }, { pattern: string }];
          const pattern = new RegExp(patterned.pattern);
          good.push(...listed.enum, 'office-2');
          bad.push('', 'bogus!', String(listed.enum[0]).toUpperCase(), 'x'.repeat(40));
          expect(bad.filter((value) => pattern.test(value) || listed.enum.includes(value))).toEqual([]);
        } else if (schema.type === 'boolean') {
          good.push('true', 'false');
          bad.push('yes', '1', 'TRUE');
        } else if (schema.type === 'integer') {
          good.push(String(schema.minimum), String(schema.maximum));
          bad.push(String(schema.minimum - 1), String(schema.maximum + 1), '1.5', '1e2', 'abc');
        } else if (schema.type === 'string' && schema.pattern) {
          // An id filter: any well-formed id is accepted (an unknown one matches nothing).
          const pattern = new RegExp(schema.pattern);
          good.push(UNKNOWN_ID, monitorId);
          bad.push('', 'nope', UNKNOWN_ID.toUpperCase(), `${UNKNOWN_ID}0`);
          expect(good.filter((value) => !pattern.test(value))).toEqual([]);
          expect(bad.filter((value) => pattern.test(value))).toEqual([]);
        } else if (schema.type === 'string') {
          good.push('', 'a'.repeat(schema.maxLength));
          bad.push('a'.repeat(schema.maxLength + 1));
        } else {
          throw new Error(`no probe for parameter ${name}`);
        }
        for (const value of good) {
          expectCode(await call(caller, op.method, `${path}?${name}=${encodeURIComponent(value)}`), 200);
        }
        for (const value of bad) {
          const res = await call(caller, op.method, `${path}?${name}=${encodeURIComponent(value)}`);
          expectCode(res, 422, 'VALIDATION_ERROR');
          expect(res.body.error.details.map((d: any) => d.field)).toContain(name);
        }
      }
      expectCode(await call(caller, op.method, `${path}?unknown=1`), 422, 'VALIDATION_ERROR');
    }
  });

  // ---- monitors ------------------------------------------------------------------------

  it('monitors: create with every field, defaults, required fields, bounds and read-only fields', async () => {
    const create = schemaOf('MonitorCreate');
    const contactId = (
      await call(a, 'POST', '/api/contacts', {
        json: { name: 'Ops', channel: 'email', details: { email: 'ops@example.com' } },
      })
    ).body.contact.id;

    const full = await createMonitor({
      name: 'Shop 🛒',
      settings: {
        https: {
          url: 'https://shop.example.com/health',
          check_certificate_expiration: true,
          http_method: 'POST',
          http_statuses: '200-299,301',
          request_headers: 'X-Probe: 1\nAccept: text/plain',
          request_body: '{"ping":true}',
          response_body: 'ok',
          follow_redirect: false,
          response_body_absent: 'error',
          json_assertions: [{ path: '$.status', op: 'eq', value: 'ok' }],
          ignore_tls_errors: true,
        },
      },
      active: false,
      check_interval: 60,
      timeout: 10,
      fail_threshold: 3,
      // Every public region (the other choice, a private region's id, needs one of the account's).
      regions: deref(create.properties.regions.items).anyOf[0].enum,
      contacts: [contactId],
    });
    expect(full.contacts).toEqual([contactId]);
    await createMonitor({ settings: { tcp: { url: 'tcp://db.example.com:5432' } } });
    await createMonitor({ settings: { ping: { url: 'ping://[2001:db8::1]' } } });

    const minimal = await createMonitor();
    for (const [field, schema] of Object.entries<any>(create.properties)) {
      if ('default' in schema) expect({ field, value: minimal[field] }).toEqual({ field, value: schema.default });
    }
    const https = schemaOf('HttpsSettings').properties;
    expect(minimal.settings.https.check_certificate_expiration).toBe(https.check_certificate_expiration.default);

    for (const field of create.required) {
      const res = await call(a, 'POST', '/api/monitors', { json: monitorBody({ [field]: undefined }) });
      expectCode(res, 422, 'VALIDATION_ERROR');
      expect(res.body.error.details.map((d: any) => d.field)).toContain(field);
    }
    for (const json of [[], 'text', null, { ...monitorBody(), surprise: 1 }]) {
      expectCode(await call(a, 'POST', '/api/monitors', { json }), 422, 'VALIDATION_ERROR');
    }
    expectCode(await call(a, 'POST', '/api/monitors', {}), 422, 'VALIDATION_ERROR');

    for (const [field, schema] of Object.entries<any>(create.properties)) {
      if (schema.type !== 'integer') continue;
      for (const value of [schema.minimum, schema.maximum]) await createMonitor({ [field]: value });
      for (const value of [schema.minimum - 1, schema.maximum + 1, schema.minimum + 0.5, String(schema.minimum)]) {
        expectCode(await call(a, 'POST', '/api/monitors', { json: monitorBody({ [field]: value }) }), 422);
      }
    }
    await createMonitor({ name: '🛒'.repeat(create.properties.name.maxLength) });
    for (const name of ['🛒'.repeat(create.properties.name.maxLength + 1), '', '   ']) {
      expectCode(await call(a, 'POST', '/api/monitors', { json: monitorBody({ name }) }), 422);
    }
    for (const settings of [
      {},
      { https: { url: 'https://a.example' }, tcp: { url: 'tcp://a.example:1' } },
      { smtp: {} },
    ]) {
      expectCode(await call(a, 'POST', '/api/monitors', { json: monitorBody({ settings }) }), 422);
    }
    for (const [type, url] of [
      ['https', 'ftp://example.com'],
      ['tcp', 'tcp://example.com'],
      ['ping', 'http://example.com'],
    ] as const) {
      expectCode(await call(a, 'POST', '/api/monitors', { json: monitorBody({ settings: { [type]: { url } } }) }), 422);
    }
    expectCode(await call(a, 'POST', '/api/monitors', { json: monitorBody({ regions: [] }) }), 422);
    expectCode(await call(a, 'POST', '/api/monitors', { json: monitorBody({ contacts: [UNKNOWN_ID] }) }), 422);

    const readOnly = Object.entries<any>(create.properties).filter(([, s]) => s.readOnly);
    expect(readOnly.map(([field]) => field).sort()).toEqual(
      ['created_at', 'id', 'last_checked_at', 'last_status', 'last_status_change', 'updated_at'].sort(),
    );
    const echoed = await createMonitor(
      Object.fromEntries(readOnly.map(([field]) => [field, field === 'id' ? UNKNOWN_ID : 'down'])),
    );
    expect(echoed.id).not.toBe(UNKNOWN_ID);
    expect(echoed.last_status).toBe('pending');
  });

  it('monitors: list, get, update, pause, resume and delete', async () => {
    const monitor = await createMonitor({ name: 'Lifecycle' });
    const list = await call(
      a,
      'GET',
      '/api/monitors?per_page=2&page=1&sort=name&order=asc&active=true&monitor_type=https',
    );
    expectCode(list, 200);
    expect(list.body.data.monitors.length).toBeLessThanOrEqual(2);
    expectCode(await call(a, 'GET', '/api/monitors?page=100000'), 200);

    const got = await call(a, 'GET', `/api/monitors/${monitor.id}`);
    expectCode(got, 200);
    expect(got.body.data).toEqual(monitor);
    const stranger = (await coordinator.newAccount('stranger')).client;
    for (const id of [UNKNOWN_ID, 'nope', monitor.id.toUpperCase()]) {
      expectCode(await call(a, 'GET', `/api/monitors/${id}`), 404, 'MONITOR_NOT_FOUND');
    }
    expectCode(await call(stranger, 'GET', `/api/monitors/${monitor.id}`), 404, 'MONITOR_NOT_FOUND');

    const renamed = await call(a, 'PUT', `/api/monitors/${monitor.id}`, { json: { name: 'Renamed', timeout: 45 } });
    expectCode(renamed, 200);
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', timeout: 45, regions: monitor.regions });
    const roundTrip = await call(a, 'PUT', `/api/monitors/${monitor.id}`, { json: renamed.body.data });
    expectCode(roundTrip, 200);
    const retyped = await call(a, 'PUT', `/api/monitors/${monitor.id}`, {
      json: { settings: { tcp: { url: 'tcp://x.example:22' } } },
    });
    expectCode(retyped, 200);
    expect(retyped.body.data.settings).toEqual({ tcp: { url: 'tcp://x.example:22' } });
    expectCode(await call(a, 'PUT', `/api/monitors/${monitor.id}`, {}), 200);
    for (const json of [{ timeout: 0 }, { name: '' }, { regions: ['mars-1'] }, { unknown: true }, [1]]) {
      expectCode(await call(a, 'PUT', `/api/monitors/${monitor.id}`, { json }), 422, 'VALIDATION_ERROR');
    }
    expectCode(await call(a, 'PUT', `/api/monitors/${UNKNOWN_ID}`, { json: { name: 'x' } }), 404, 'MONITOR_NOT_FOUND');
    expectCode(await call(stranger, 'PUT', `/api/monitors/${monitor.id}`, { json: { name: 'x' } }), 404);

    const paused = await call(a, 'POST', `/api/monitors/${monitor.id}/pause`);
    expectCode(paused, 200);
    expect(paused.body.data).toMatchObject({ id: monitor.id, name: 'Renamed', active: false });
    const resumed = await call(a, 'POST', `/api/monitors/${monitor.id}/resume`);
    expectCode(resumed, 200);
    expect(resumed.body.data.active).toBe(true);
    for (const action of ['pause', 'resume']) {
      expectCode(await call(a, 'POST', `/api/monitors/${UNKNOWN_ID}/${action}`), 404, 'MONITOR_NOT_FOUND');
      expectCode(await call(stranger, 'POST', `/api/monitors/${monitor.id}/${action}`), 404, 'MONITOR_NOT_FOUND');
    }

    const accounts = coordinator.app.get(AccountsService);
    await accounts.setSubscription(owner.accountId, 'inactive');
    try {
      expectCode(await call(a, 'POST', `/api/monitors/${monitor.id}/pause`), 200);
      expectCode(await call(a, 'POST', `/api/monitors/${monitor.id}/resume`), 402, 'SUBSCRIPTION_NOT_ACTIVE');
      expectCode(
        await call(a, 'POST', '/api/monitors', { json: monitorBody({ name: 'Not while inactive' }) }),
        402,
        'SUBSCRIPTION_NOT_ACTIVE',
      );
      expect((await call(a, 'GET', `/api/monitors/${monitor.id}`)).body.data.active).toBe(false);
      const account = await call(a, 'GET', '/api/account');
      expect(account.body.data.subscription_status).toBe('inactive');
    } finally {
      await accounts.setSubscription(owner.accountId, 'active');
    }

    expectCode(await call(stranger, 'DELETE', `/api/monitors/${monitor.id}`), 404, 'MONITOR_NOT_FOUND');
    expectCode(await call(a, 'DELETE', `/api/monitors/${monitor.id}`), 204);
    expectCode(await call(a, 'DELETE', `/api/monitors/${monitor.id}`), 404, 'MONITOR_NOT_FOUND');
    expectCode(await call(a, 'GET', `/api/monitors/${monitor.id}`), 404, 'MONITOR_NOT_FOUND');
  });

  // ---- check history -------------------------------------------------------------------

  it('monitor history: check results and statistics of every kind of result', async () => {
    const monitor = await createMonitor({ name: 'History', regions: ['eu-west-1', 'us-east-1'] });
    const writer = coordinator.app.get(ResultsWriter);
    const down = probeResult(monitor.id, 'eu-west-1', 'down', 30_000);
    down.timings = { dns_ms: 3, total_ms: 30_000 };
    for (const result of [
      probeResult(monitor.id, 'eu-west-1', 'up', 120),
      probeResult(monitor.id, 'us-east-1', 'unknown', null),
      probeResult(monitor.id, 'ap-east-1', 'up', 80),
      down,
    ]) {
      writer.add(result);
    }
    await writer.flush();

    // The decided results set last_checked_at (a number where the schema allows null too).
    const checked = await call(a, 'GET', `/api/monitors/${monitor.id}`);
    expectCode(checked, 200);
    expect(checked.body.data.last_checked_at).toEqual(expect.any(Number));

    const list = await call(a, 'GET', `/api/monitors/${monitor.id}/checks?per_page=3`);
    expectCode(list, 200);
    expect(list.body.data.pagination).toMatchObject({ total: 4, total_pages: 2 });
    const all = await call(a, 'GET', `/api/monitors/${monitor.id}/checks?region=eu-west-1&order=asc`);
    expect(all.body.data.checks.map((check: any) => check.status)).toEqual(['up', 'down']);
    expect(all.body.data.checks[1].timings).toEqual({
      dns_ms: 3,
      connect_ms: null,
      tls_ms: null,
      first_byte_ms: null,
      total_ms: 30_000,
    });
    for (const period of schemaOf('MonitorStats').properties.period.enum) {
      const res = await call(a, 'GET', `/api/monitors/${monitor.id}/stats?period=${period}`);
      expectCode(res, 200);
      expect(res.body.data.regions.map((r: any) => r.region)).toEqual(['eu-west-1', 'us-east-1', 'ap-east-1']);
      expect(res.body.data.overall).toMatchObject({ checks: 4, failures: 1, unknowns: 1 });
    }

    const summary = await call(a, 'GET', '/api/monitor_summary');
    expectCode(summary, 200);
    expect(summary.body.data.monitors.find((m: any) => m.id === monitor.id)).toMatchObject({ uptime_24h: 66.6667 });
    expectCode(await call(a, 'GET', '/api/monitor_summary?page=1'), 422, 'VALIDATION_ERROR');

    const stranger = (await coordinator.newAccount('stranger')).client;
    for (const endpoint of ['checks', 'stats']) {
      const path = `/api/monitors/${monitor.id}/${endpoint}`;
      expectCode(await call(stranger, 'GET', path), 404, 'MONITOR_NOT_FOUND');
      expectCode(await call(a, 'GET', `/api/monitors/${UNKNOWN_ID}/${endpoint}`), 404, 'MONITOR_NOT_FOUND');
      expectCode(await call(a, 'GET', `${path}?period=1y&region=mars-1`), 422, 'VALIDATION_ERROR');
      expectCode(await call(await keyWith(['contacts:read']), 'GET', path), 403, 'FORBIDDEN');
      expectCode(await call(coordinator.client(), 'GET', path), 401, 'UNAUTHORIZED');
    }
  });

  it('heartbeats: a heartbeat monitor, its ping URL, pings, reported failures and its history', async () => {
    const monitor = await createMonitor({
      name: 'Nightly backup',
      settings: { heartbeat: { period: 3600, grace: 300 } },
      regions: [],
    });
    const pingUrl = monitor.settings.heartbeat.ping_url as string;
    expect(pingUrl).toMatch(/\/ping\/[A-Za-z0-9_-]{32}$/);
    const path = new URL(pingUrl).pathname;
    const anyone = coordinator.client();
    for (const [method, url] of [
      ['GET', path],
      ['POST', path],
      ['GET', `${path}/fail`],
      ['POST', `${path}/fail`],
    ] as const) {
      const res = await call(anyone, method, url);
      expectCode(res, 200);
      expect(res.text).toBe('OK');
    }
    await coordinator.app.get(ResultsWriter).flush();
    const checks = await call(a, 'GET', `/api/monitors/${monitor.id}/checks`);
    expectCode(checks, 200);
    expect(checks.body.data.checks.map((check: any) => check.region)).toEqual(Array(4).fill('heartbeat'));
    const stats = await call(a, 'GET', `/api/monitors/${monitor.id}/stats`);
    expectCode(stats, 200);
    expect(stats.body.data.regions.map((r: any) => r.region)).toEqual(['heartbeat']);
    const listed = await call(a, 'GET', '/api/monitors?monitor_type=heartbeat');
    expect(listed.body.data.monitors.map((m: any) => m.id)).toEqual([monitor.id]);
    const refused = await call(a, 'POST', '/api/monitors', {
      json: monitorBody({ settings: { heartbeat: { period: 3600, grace: 300 } }, regions: ['eu-west-1'] }),
    });
    expectCode(refused, 422, 'VALIDATION_ERROR');
  });

  // ---- contacts ------------------------------------------------------------------------

  it('contacts: every writable channel, with defaults filled in and secrets redacted', async () => {
    const channels: string[] = schemaOf('ContactCreate').properties.channel.enum;
    expect(Object.keys(CHANNEL_SAMPLES).sort()).toEqual([...channels].sort());
    for (const channel of channels) {
      const sample = CHANNEL_SAMPLES[channel]!;
      const input = createDetailsSchema(channel);
      const minimal = await call(a, 'POST', '/api/contacts', {
        json: { name: `${channel} min`, channel, details: sample.minimal },
      });
      expectCode(minimal, 201);
      const contact = minimal.body.contact;
      expect(contact).toMatchObject({ channel, active: true, down_alerts_only: false, error: null });
      for (const [field, schema] of Object.entries<any>(input.properties)) {
        if ('default' in schema)
          expect({ field, value: contact.details[field] }).toEqual({ field, value: schema.default });
      }
      const full = await call(a, 'POST', '/api/contacts', {
        json: { name: `${channel} full`, channel, details: sample.full, active: false, down_alerts_only: true },
      });
      expectCode(full, 201);
      expect(full.body.contact).toMatchObject({ active: false, down_alerts_only: true });

      for (const field of input.required) {
        const details = { ...sample.minimal, [field]: undefined };
        const res = await call(a, 'POST', '/api/contacts', { json: { name: 'x', channel, details } });
        expectCode(res, 422, 'VALIDATION_ERROR');
      }
      const secrets = Object.entries<any>(input.properties).filter(([, s]) =>
        JSON.stringify(s).includes('"not":{"const":"[REDACTED]"}'),
      );
      for (const [field] of secrets) {
        const details = { ...sample.minimal, [field]: '[REDACTED]' };
        expectCode(await call(a, 'POST', '/api/contacts', { json: { name: 'x', channel, details } }), 422);
      }
      const extra = { ...sample.minimal, surprise: true };
      expectCode(await call(a, 'POST', '/api/contacts', { json: { name: 'x', channel, details: extra } }), 422);
    }
    const base = { name: 'x', channel: 'email', details: CHANNEL_SAMPLES.email!.minimal };
    for (const field of schemaOf('ContactCreate').required) {
      expectCode(
        await call(a, 'POST', '/api/contacts', { json: { ...base, [field]: undefined } }),
        422,
        'VALIDATION_ERROR',
      );
    }
    for (const json of [
      { ...base, channel: 'push' },
      { ...base, channel: 'fax' },
      { ...base, name: '' },
      { ...base, x: 1 },
    ]) {
      expectCode(await call(a, 'POST', '/api/contacts', { json }), 422, 'VALIDATION_ERROR');
    }
    const echoed = await call(a, 'POST', '/api/contacts', {
      json: { ...base, id: UNKNOWN_ID, created_at: 1, error: { code: 'x' } },
    });
    expectCode(echoed, 201);
    expect(echoed.body.contact.id).not.toBe(UNKNOWN_ID);
  });

  it('contacts: list, get, update, reactivate and delete; push contacts are read-only', async () => {
    const contacts = coordinator.app.get(ContactsService);
    const push = await contacts.insert(
      owner.accountId,
      'Laptop browser',
      'push',
      completeDetails('push', {
        endpoint: 'https://push.example.net/send/abc',
        keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA', auth: 'tBHItJI5svbpez7KI4CCXg' },
      }),
    );
    const pushRead = await call(a, 'GET', `/api/contacts/${push.id}`);
    expectCode(pushRead, 200);
    expect(pushRead.body.contact.channel).toBe('push');
    expectCode(await call(a, 'PUT', `/api/contacts/${push.id}`, { json: { name: 'x' } }), 403, 'READONLY_CHANNEL');
    expectCode(await call(a, 'DELETE', `/api/contacts/${push.id}`), 403, 'READONLY_CHANNEL');
    expectCode(await call(a, 'POST', `/api/contacts/${push.id}/reactivate`), 200);

    const created = await call(a, 'POST', '/api/contacts', {
      json: { name: 'Pager', channel: 'paging', details: CHANNEL_SAMPLES.paging!.minimal },
    });
    const contact = created.body.contact;
    const list = await call(a, 'GET', '/api/contacts?search=PAG&channel=paging&sort=name&order=asc&per_page=5');
    expectCode(list, 200);
    expect(list.body.contacts.map((c: any) => c.id)).toContain(contact.id);
    expect((await call(a, 'GET', '/api/contacts?channel=push')).body.contacts.map((c: any) => c.id)).toEqual([push.id]);

    expectCode(await call(a, 'GET', `/api/contacts/${contact.id}`), 200);
    const stranger = (await coordinator.newAccount('stranger')).client;
    for (const id of [UNKNOWN_ID, 'nope']) {
      expectCode(await call(a, 'GET', `/api/contacts/${id}`), 404, 'CONTACT_NOT_FOUND');
    }
    expectCode(await call(stranger, 'GET', `/api/contacts/${contact.id}`), 404, 'CONTACT_NOT_FOUND');

    const merged = await call(a, 'PUT', `/api/contacts/${contact.id}`, {
      json: { details: { severity_mapping: { low: 'warning' } }, down_alerts_only: true },
    });
    expectCode(merged, 200);
    expect(merged.body.contact.details.severity_mapping).toMatchObject({ critical: 'critical', low: 'warning' });
    const roundTrip = await call(a, 'PUT', `/api/contacts/${contact.id}`, { json: merged.body.contact });
    expectCode(roundTrip, 200);
    expect(roundTrip.body.contact).toEqual(merged.body.contact);
    for (const json of [{ channel: 'email' }, { details: { integration_key: '' } }, { name: '' }, { x: 1 }]) {
      expectCode(await call(a, 'PUT', `/api/contacts/${contact.id}`, { json }), 422, 'VALIDATION_ERROR');
    }
    expectCode(await call(a, 'PUT', `/api/contacts/${UNKNOWN_ID}`, { json: { name: 'x' } }), 404, 'CONTACT_NOT_FOUND');
    expectCode(await call(stranger, 'PUT', `/api/contacts/${contact.id}`, { json: { name: 'x' } }), 404);

    const repository = coordinator.app.get(ContactsRepository);
    const entity = await repository.findOne(owner.accountId, contact.id);
    if (!entity) throw new Error('contact vanished');
    Object.assign(entity, {
      active: false,
      consecutiveFailures: 5,
      error: { code: 'DELIVERY_FAILED', message: 'HTTP 410 Gone', failed_at: 1_700_000_000, consecutive_failures: 5 },
    });
    await repository.save(entity);
    const failing = await call(a, 'GET', `/api/contacts/${contact.id}`);
    expect(failing.body.contact).toMatchObject({ active: false, error: { consecutive_failures: 5 } });
    const reactivated = await call(a, 'POST', `/api/contacts/${contact.id}/reactivate`);
    expectCode(reactivated, 200);
    expect(reactivated.body.data.contact).toMatchObject({ id: contact.id, active: true, channel: 'paging' });
    expect((await call(a, 'GET', `/api/contacts/${contact.id}`)).body.contact.error).toBeNull();
    expectCode(await call(a, 'POST', `/api/contacts/${UNKNOWN_ID}/reactivate`), 404, 'CONTACT_NOT_FOUND');

    expectCode(await call(stranger, 'DELETE', `/api/contacts/${contact.id}`), 404, 'CONTACT_NOT_FOUND');
    expectCode(await call(a, 'DELETE', `/api/contacts/${contact.id}`), 204);
    expectCode(await call(a, 'DELETE', `/api/contacts/${contact.id}`), 404, 'CONTACT_NOT_FOUND');
  });

  it('contacts: test delivers a real notification, or says with 422 why the destination refused it', async () => {
    const receiver = await new FakeReceiver((_, res) => reply(res, 200, { ok: true })).start({ https: false });
    try {
      const created = await call(a, 'POST', '/api/contacts', {
        json: { name: 'Test hook', channel: 'webhook', details: { url: `${receiver.baseUrl}/hook` } },
      });
      expectCode(created, 201);
      const id = created.body.contact.id as string;

      const delivered = await call(a, 'POST', `/api/contacts/${id}/test`);
      expectCode(delivered, 200);
      expect(delivered.body.data.message).toContain('Test hook');
      expect(receiver.requests.map((r) => (r.json as { event?: string }).event)).toEqual(['contact.test']);

      receiver.handler = (_, res) => reply(res, 410);
      const refused = await call(a, 'POST', `/api/contacts/${id}/test`);
      expectCode(refused, 422, 'CONTACT_TEST_FAILED');
      expect(refused.body.error.message).toMatch(/^Test notification not delivered: disable: /);
      expect(refused.body.error.details).toBeUndefined();

      // Tests are answered at once, not logged: the contact's delivery log stays empty.
      const log = await call(a, 'GET', `/api/contacts/${id}/deliveries`);
      expectCode(log, 200);
      expect(log.body.data.deliveries).toEqual([]);

      const stranger = (await coordinator.newAccount('stranger')).client;
      expectCode(await call(stranger, 'POST', `/api/contacts/${id}/test`), 404, 'CONTACT_NOT_FOUND');
      expectCode(await call(stranger, 'GET', `/api/contacts/${id}/deliveries`), 404, 'CONTACT_NOT_FOUND');
      for (const unknown of [UNKNOWN_ID, 'nope']) {
        expectCode(await call(a, 'POST', `/api/contacts/${unknown}/test`), 404, 'CONTACT_NOT_FOUND');
      }
      expect(receiver.requests).toHaveLength(2);
    } finally {
      await receiver.stop();
    }
  });

  // ---- status pages --------------------------------------------------------------------

  it('status pages: create, list, get, update with PUT and PATCH, delete', async () => {
    const monitor = await createMonitor({ name: 'On a page' });
    const missing = '/api/status_pages/0123456789abcdef01234567';
    expectCode(await call(a, 'POST', '/api/status_pages', { json: { name: 'No monitors', monitors: [] } }), 422);
    const created = await call(a, 'POST', '/api/status_pages', {
      json: {
        name: 'Public',
        monitors: [monitor.id],
        basic_auth: 'viewer:secret',
        custom_domain: 'status.example.test',
      },
    });
    expectCode(created, 201);
    expect(created.body.data).toMatchObject({ period: 30, basic_auth: '[REDACTED]', show_incident_reasons: false });
    const path = `/api/status_pages/${created.body.data.id as string}`;
    expectCode(await call(a, 'GET', '/api/status_pages'), 200);
    expectCode(await call(a, 'GET', path), 200);
    expectCode(await call(a, 'GET', missing), 404, 'STATUS_PAGE_NOT_FOUND');
    const put = await call(a, 'PUT', path, { json: { period: 7, basic_auth: '[REDACTED]' } });
    expectCode(put, 200);
    expect(put.body.data).toMatchObject({ period: 7, basic_auth: '[REDACTED]', name: 'Public' });
    expectCode(await call(a, 'PUT', path, { json: { period: 8 } }), 422);
    expectCode(await call(a, 'PUT', missing, { json: {} }), 404, 'STATUS_PAGE_NOT_FOUND');
    const patch = await call(a, 'PATCH', path, { json: { custom_domain: '', basic_auth: null } });
    expectCode(patch, 200);
    expect(patch.body.data).toMatchObject({ custom_domain: null, basic_auth: null, period: 7 });
    expectCode(await call(a, 'PATCH', path, { json: { monitors: ['0123456789abcdef01234567'] } }), 422);
    expectCode(await call(a, 'PATCH', missing, { json: {} }), 404, 'STATUS_PAGE_NOT_FOUND');
    expectCode(await call(a, 'DELETE', path), 204);
    expectCode(await call(a, 'DELETE', path), 404, 'STATUS_PAGE_NOT_FOUND');
  });

  // ---- maintenance windows ---------------------------------------------------------------

  it('maintenance windows: one-off and recurring, list, get, update, delete', async () => {
    const monitor = await createMonitor({ name: 'Maintained' });
    const missing = '/api/maintenance_windows/0123456789abcdef01234567';
    const now = Math.floor(Date.now() / 1000);
    expectCode(
      await call(a, 'POST', '/api/maintenance_windows', {
        json: {
          name: 'Bad zone',
          monitors: [],
          starts_at: now,
          rrule: 'FREQ=DAILY',
          duration: 60,
          timezone: 'Mars/Base',
        },
      }),
      422,
    );
    const oneOff = await call(a, 'POST', '/api/maintenance_windows', {
      json: { name: 'Deploy', monitors: [monitor.id], starts_at: now + 3600, ends_at: now + 7200 },
    });
    expectCode(oneOff, 201);
    expect(oneOff.body.data).toMatchObject({
      state: 'scheduled',
      next_start_at: now + 3600,
      timezone: 'UTC',
      active: true,
    });
    const recurring = await call(a, 'POST', '/api/maintenance_windows', {
      json: {
        name: 'Sundays',
        monitors: [],
        starts_at: now - 60,
        rrule: 'FREQ=WEEKLY;BYDAY=SU',
        duration: 3600,
        timezone: 'Europe/Berlin',
      },
    });
    expectCode(recurring, 201);
    const path = `/api/maintenance_windows/${oneOff.body.data.id as string}`;
    expectCode(await call(a, 'GET', '/api/maintenance_windows'), 200);
    expectCode(await call(a, 'GET', path), 200);
    expectCode(await call(a, 'GET', missing), 404, 'MAINTENANCE_WINDOW_NOT_FOUND');
    const put = await call(a, 'PUT', path, { json: { ...oneOff.body.data, name: 'Deploy v2', active: false } });
    expectCode(put, 200);
    expect(put.body.data).toMatchObject({ name: 'Deploy v2', active: false });
    expectCode(await call(a, 'PUT', path, { json: { ends_at: now } }), 422);
    expectCode(await call(a, 'PUT', missing, { json: {} }), 404, 'MAINTENANCE_WINDOW_NOT_FOUND');
    expectCode(await call(a, 'DELETE', path), 204);
    expectCode(await call(a, 'DELETE', path), 404, 'MAINTENANCE_WINDOW_NOT_FOUND');

    // The preview: a create's body, its next occurrences, nothing stored.
    const preview = await call(a, 'POST', '/api/maintenance_windows/preview', {
      json: { ...recurring.body.data, name: 'Preview' },
    });
    expectCode(preview, 200);
    expect(preview.body.data.occurrences).toHaveLength(10);
    expect(preview.body.data.occurrences).toContainEqual({
      starts_at: recurring.body.data.next_start_at,
      ends_at: recurring.body.data.next_start_at + 3600,
    });
    const previewOneOff = await call(a, 'POST', '/api/maintenance_windows/preview', {
      json: { name: 'Deploy', monitors: [monitor.id], starts_at: now + 3600, ends_at: now + 7200 },
    });
    expectCode(previewOneOff, 200);
    expect(previewOneOff.body.data.occurrences).toEqual([{ starts_at: now + 3600, ends_at: now + 7200 }]);
    const refused = await call(a, 'POST', '/api/maintenance_windows/preview', {
      json: { name: 'Bad', monitors: [], starts_at: now, ends_at: now - 1 },
    });
    expectCode(refused, 422, 'VALIDATION_ERROR');
    expect(refused.body.error.details).toEqual([{ field: 'ends_at', message: 'must be after starts_at' }]);
  });

  // ---- regions -----------------------------------------------------------------------------

  it('regions: list, create, get, in use, delete', async () => {
    expectCode(await call(a, 'GET', '/api/regions'), 200);
    expectCode(await call(a, 'POST', '/api/regions', { json: { id: 'eu-west-1', name: 'Public' } }), 422);
    const created = await call(a, 'POST', '/api/regions', { json: { id: 'spec-office', name: 'Office' } });
    expectCode(created, 201);
    expectCode(await call(a, 'GET', '/api/regions/spec-office'), 200);
    const monitor = await createMonitor({ name: 'Private', regions: ['spec-office'] });
    expectCode(await call(a, 'DELETE', '/api/regions/spec-office'), 409, 'REGION_IN_USE');
    expectCode(await call(a, 'DELETE', `/api/monitors/${monitor.id}`), 204);
    expectCode(await call(a, 'DELETE', '/api/regions/spec-office'), 204);
    expectCode(await call(a, 'GET', '/api/regions/spec-office'), 404, 'REGION_NOT_FOUND');
  });

  (JWT_NATS ? it : it.skip)('regions: enrollment tokens, enrolled agents, revocation', async () => {
    expectCode(await call(a, 'POST', '/api/regions', { json: { id: 'spec-lab', name: 'Lab' } }), 201);
    const token = await call(a, 'POST', '/api/regions/spec-lab/agent_tokens');
    expectCode(token, 201);
    expectCode(await call(a, 'POST', '/api/regions/nowhere/agent_tokens'), 404, 'REGION_NOT_FOUND');
    // What an agent's request over NATS does (test/e2e/agent-enrollment.spec.ts runs a real one).
    const enrolled = await coordinator.app.get(EnrollmentService).exchange({
      token: token.body.data.token,
      public_key: createUser().getPublicKey(),
      agent_id: 'spec-agent',
      account_id: token.body.data.account_id,
      region: 'spec-lab',
    });
    if (!enrolled.ok) throw new Error(enrolled.error);
    const agents = await call(a, 'GET', '/api/regions/spec-lab/agents');
    expectCode(agents, 200);
    expect(agents.body.data.agents.map((agent: { id: string }) => agent.id)).toEqual([enrolled.agent]);
    expectCode(await call(a, 'GET', '/api/regions/nowhere/agents'), 404, 'REGION_NOT_FOUND');
    expectCode(await call(a, 'DELETE', `/api/regions/spec-lab/agents/${enrolled.agent}`), 204);
    expectCode(await call(a, 'DELETE', `/api/regions/spec-lab/agents/${UNKNOWN_ID}`), 404, 'NOT_FOUND');
    expectCode(await call(a, 'DELETE', `/api/regions/nowhere/agents/${UNKNOWN_ID}`), 404, 'REGION_NOT_FOUND');
  });

  // ---- public status pages -------------------------------------------------------------

  /** A GET with these headers, Host included (fetch will not send another Host), from this loopback address. */
  function rawGet(path: string, headers: Record<string, string>, from = '127.0.0.1'): Promise<ApiResponse> {
    return rawRequest('GET', path, { headers, from });
  }

  /** A request from this loopback address (the server sees it as the client's), a JSON body if given. */
  function rawRequest(
    method: string,
    path: string,
    { headers = {}, json, from = '127.0.0.1' }: { headers?: Record<string, string>; json?: unknown; from?: string },
  ): Promise<ApiResponse> {
    const { port } = new URL(coordinator.baseUrl);
    const body = json === undefined ? undefined : JSON.stringify(json);
    const sent = body === undefined ? headers : { ...headers, 'content-type': 'application/json' };
    return new Promise((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path, method, headers: sent, localAddress: from }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const received = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            if (typeof value === 'string') received.set(name, value);
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: received, body: parsed, text });
        });
      })
        .on('error', reject)
        .end(body);
    });
  }

  it('public status pages: HTML and JSON, by id and by custom domain, with basic auth', async () => {
    const monitor = await createMonitor({ name: 'Shown' });
    const page = async (json: Record<string, unknown>) =>
      (await call(a, 'POST', '/api/status_pages', { json: { monitors: [monitor.id], ...json } })).body.data;
    const open = await page({ name: 'Open', custom_domain: 'status.openapi.example' });
    const locked = await page({ name: 'Locked', custom_domain: 'locked.openapi.example', basic_auth: 'viewer:s3cret' });
    const basic = { authorization: `Basic ${Buffer.from('viewer:s3cret').toString('base64')}` };
    const anonymous = coordinator.client();

    for (const suffix of ['', '.json']) {
      const got = await call(anonymous, 'GET', `/status/${open.id as string}${suffix}`);
      expectCode(got, 200);
      if (suffix) expect(got.body.data.monitors.map((m: any) => m.name)).toEqual(['Shown']);
      expectCode(await call(anonymous, 'GET', `/status/${locked.id as string}${suffix}`), 401);
      expectCode(await call(anonymous, 'GET', `/status/${locked.id as string}${suffix}`, { headers: basic }), 200);
      expectCode(await call(anonymous, 'GET', `/status/${UNKNOWN_ID}${suffix}`), 404);
    }
    for (const path of ['/', '/index.json']) {
      for (const [headers, status] of [
        [{ host: 'status.openapi.example' }, 200],
        [{ host: 'locked.openapi.example' }, 401],
        [{ host: 'locked.openapi.example', ...basic }, 200],
        // `/` elsewhere is the dashboard (200, or 503 where it is not built), `/index.json` is 404.
        [{ host: 'nowhere.openapi.example' }, path === '/' ? 200 : 404],
      ] as const) {
        const res = await rawGet(path, headers);
        conform('GET', path, res);
        expect(res.status).toBe(status);
      }
    }

    // Wrong credentials from one address until its failure budget is spent: then the documented 429.
    const guesser = '127.0.0.66';
    const wrong = { authorization: `Basic ${Buffer.from('viewer:guess').toString('base64')}` };
    let last: ApiResponse | null = null;
    for (let attempt = 0; attempt <= FAILURE_BUDGET && last?.status !== 429; attempt++) {
      last = await rawGet(`/status/${locked.id as string}.json`, wrong, guesser);
    }
    expect(last?.status).toBe(429);
    for (const path of [`/status/${locked.id as string}`, `/status/${locked.id as string}.json`]) {
      const res = await rawGet(path, basic, guesser);
      conform('GET', path, res);
      expect(res.status).toBe(429);
    }
    for (const path of ['/', '/index.json']) {
      const res = await rawGet(path, { host: 'locked.openapi.example', ...wrong }, guesser);
      conform('GET', path, res);
      expect(res.status).toBe(429);
    }
  }, 120_000);

  it('dashboard: its pages answer index.html, its assets the files, an unknown asset 404', async () => {
    const anonymous = coordinator.client();
    const pages = operations.filter((op) => op.spec.tags[0] === 'Dashboard' && !op.path.startsWith('/assets/'));
    expect(pages.length).toBeGreaterThan(10);
    let index = '';
    for (const op of pages) {
      const res = await call(anonymous, 'GET', op.path.replace('{ref}', UNKNOWN_ID));
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      index = res.text;
    }
    expectCode(await call(anonymous, 'GET', '/setup?token=abc'), 200);
    expectCode(await call(anonymous, 'GET', '/setup?token=abc&other=1'), 422, 'VALIDATION_ERROR');
    const assets = [...index.matchAll(/"\/assets\/([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const file of assets) expectCode(await call(anonymous, 'GET', `/assets/${file}`), 200);
    expect((await call(anonymous, 'GET', '/assets/missing-0000.js')).status).toBe(404);
  });

  // ---- incidents -----------------------------------------------------------------------

  it('incidents: list with every filter, get, and comment', async () => {
    const monitor = await createMonitor({ name: 'Incidents', regions: ['eu-west-1', 'us-east-1'] });
    const transitions = coordinator.app.get(TransitionWriter);
    const now = Math.floor(Date.now() / 1000);
    const evidence = (error: string | null) => ({
      'eu-west-1': {
        status: 'down' as const,
        response_time_ms: null,
        error,
        checked_at: now - 121,
        checker_ip: '192.0.2.10',
      },
      'us-east-1': {
        status: 'up' as const,
        response_time_ms: 87,
        error: null,
        checked_at: now - 125,
        checker_ip: null,
      },
    });
    await transitions.write({
      monitorId: monitor.id,
      status: 'down',
      changedAt: now - 120,
      reason: 'HTTP 503',
      evidence: evidence('HTTP 503'),
    });
    await transitions.write({
      monitorId: monitor.id,
      status: 'up',
      changedAt: now - 60,
      reason: null,
      evidence: {},
    });
    await transitions.write({
      monitorId: monitor.id,
      status: 'down',
      changedAt: now - 30,
      reason: 'connection refused',
      evidence: evidence('connection refused'),
    });

    const all = await call(a, 'GET', `/api/incidents?monitor_id=${monitor.id}`);
    expectCode(all, 200);
    const [open, resolved] = all.body.data.incidents;
    expect(all.body.data.incidents).toHaveLength(2);
    expect(open).toMatchObject({ is_resolved: false, resolved_at: null, reason: 'connection refused' });
    expect(resolved).toMatchObject({ is_resolved: true, duration: 60, reason: 'HTTP 503', user_comment: '' });
    const filtered = await call(
      a,
      'GET',
      `/api/incidents?monitor_id=${monitor.id}&resolved=true&order=asc&page=1&per_page=100`,
    );
    expectCode(filtered, 200);
    expect(filtered.body.data.incidents).toEqual([resolved]);

    const got = await call(a, 'GET', `/api/incidents/${resolved.id}`);
    expectCode(got, 200);
    expect(got.body.data).toEqual(resolved);
    expectCode(await call(a, 'GET', `/api/incidents/${open.id}`), 200);
    const stranger = (await coordinator.newAccount('stranger')).client;
    expectCode(await call(stranger, 'GET', `/api/incidents/${resolved.id}`), 404, 'INCIDENT_NOT_FOUND');
    expect((await call(stranger, 'GET', `/api/incidents?monitor_id=${monitor.id}`)).body.data.incidents).toEqual([]);
    for (const id of [UNKNOWN_ID, 'nope', resolved.id.toUpperCase()]) {
      expectCode(await call(a, 'GET', `/api/incidents/${id}`), 404, 'INCIDENT_NOT_FOUND');
    }

    const max = schemaOf('IncidentComment').properties.comment.maxLength as number;
    const lead = 'Upstream outage 🚑\nRestarted the load balancer.';
    const comment = lead + '.'.repeat(max - [...lead].length);
    expect([...comment]).toHaveLength(max);
    const commented = await call(a, 'PUT', `/api/incidents/${resolved.id}/comment`, { json: { comment } });
    expectCode(commented, 200);
    expect(commented.body.data).toEqual({ ...resolved, user_comment: comment });
    for (const json of [{}, { comment: `${comment}.` }, { comment: 5 }, { comment: 'x', extra: true }, ['x']]) {
      expectCode(await call(a, 'PUT', `/api/incidents/${resolved.id}/comment`, { json }), 422, 'VALIDATION_ERROR');
    }
    for (const [client, id] of [
      [a, UNKNOWN_ID],
      [stranger, resolved.id],
    ] as const) {
      const res = await call(client, 'PUT', `/api/incidents/${id}/comment`, { json: { comment: 5 } });
      expectCode(res, 404, 'INCIDENT_NOT_FOUND');
    }
    expect((await call(a, 'GET', `/api/incidents/${resolved.id}`)).body.data.user_comment).toBe(comment);
  });

  // ---- account -------------------------------------------------------------------------

  it("account: the key's account with its monitor counts", async () => {
    // A monitor never checked since long before three intervals: `unknown` in its answers and the counts.
    const blind = await createMonitor({ name: 'Blind', check_interval: 60 });
    const longAgo = Math.floor(Date.now() / 1000) - 3_600;
    await coordinator.app.get(Database).manager.update(MonitorEntity, { id: blind.id }, { createdAt: longAgo });
    const got = await call(a, 'GET', `/api/monitors/${blind.id}`);
    expectCode(got, 200);
    expect(got.body.data).toMatchObject({ last_status: 'unknown', last_checked_at: null });

    const res = await call(a, 'GET', '/api/account');
    expectCode(res, 200);
    expect(res.body.data.unknown_monitors).toBeGreaterThanOrEqual(1);
    expect(res.body.data.id).toBe(owner.accountId);
    const monitors = await call(a, 'GET', '/api/monitors?per_page=1');
    expect(res.body.data.monitors_count).toBe(monitors.body.data.pagination.total);
  });

  // ---- sessions, users and API keys ---------------------------------------------------

  it('sessions: sign in and out, set a password; refusals as documented', async () => {
    const anonymous = coordinator.client();
    const foreign = { headers: { origin: 'https://evil.example' } };
    const signIn = { email: 'admin@openapi.example', password: 'a long password' };
    expectCode(await call(anonymous, 'POST', '/auth/login', { json: { ...signIn, password: 'wrong one!' } }), 401);
    expectCode(await call(anonymous, 'POST', '/auth/login', { json: signIn, ...foreign }), 403, 'FORBIDDEN');
    const session = await sessionFrom(
      coordinator.baseUrl,
      await call(anonymous, 'POST', '/auth/login', { json: signIn }),
    );
    const me = await call(session.client, 'GET', '/api/me');
    expectCode(me, 200);
    expect(me.body.data.user.email).toBe('admin@openapi.example');
    expectCode(await call(session.client, 'POST', '/auth/logout', foreign), 403, 'FORBIDDEN');
    expectCode(await call(session.client, 'POST', '/auth/logout'), 204);
    expectCode(await call(session.client, 'GET', '/api/me'), 401, 'UNAUTHORIZED');

    const setup = { token: 'x'.repeat(43), email: 'eve@openapi.example', name: 'Eve', password: 'a long password' };
    expectCode(await call(anonymous, 'POST', '/auth/setup', { json: setup }), 401, 'UNAUTHORIZED');
    expectCode(await call(anonymous, 'POST', '/auth/setup', { json: setup, ...foreign }), 403, 'FORBIDDEN');
    const invited = await call(admin.client, 'POST', '/api/users', {
      json: { email: 'invited@openapi.example', name: 'Invited', role: 'viewer' },
    });
    expectCode(invited, 201);
    const password = { token: tokenOfUrl(invited.body.data.set_password_url), password: 'another long one' };
    expectCode(await call(anonymous, 'POST', '/auth/set-password', { json: { ...password, token: 'nope' } }), 401);
    expectCode(await call(anonymous, 'POST', '/auth/set-password', { json: password, ...foreign }), 403);
    expectCode(await call(anonymous, 'POST', '/auth/set-password', { json: { token: 'x' } }), 422, 'VALIDATION_ERROR');
    expectCode(await call(anonymous, 'POST', '/auth/set-password', { json: password }), 204);
  });

  it('users and API keys: list, create, change, delete', async () => {
    const created = await call(admin.client, 'POST', '/api/users', {
      json: { email: 'editor@openapi.example', name: 'Editor', role: 'editor' },
    });
    expectCode(created, 201);
    const path = `/api/users/${created.body.data.id as string}`;
    expectCode(await call(admin.client, 'GET', '/api/users'), 200);
    expectCode(await call(admin.client, 'PUT', path, { json: { role: 'viewer', disabled: true } }), 200);
    expectCode(await call(admin.client, 'PUT', path, { json: { role: 'root' } }), 422, 'VALIDATION_ERROR');
    expectCode(await call(admin.client, 'PUT', `/api/users/${UNKNOWN_ID}`, { json: {} }), 404, 'NOT_FOUND');
    expectCode(await call(admin.client, 'POST', '/api/users', { json: { email: 'x' } }), 422, 'VALIDATION_ERROR');
    const adminPath = `/api/users/${admin.me.user.id as string}`;
    expectCode(await call(admin.client, 'DELETE', adminPath), 422, 'VALIDATION_ERROR');
    expectCode(await call(admin.client, 'DELETE', path), 204);
    expectCode(await call(admin.client, 'DELETE', path), 404, 'NOT_FOUND');

    const key = await call(admin.client, 'POST', '/api/keys', {
      json: { name: 'Robot', permissions: ['account:read'] },
    });
    expectCode(key, 201);
    expectCode(await call(admin.client, 'POST', '/api/keys', { json: { name: '' } }), 422, 'VALIDATION_ERROR');
    expectCode(await call(admin.client, 'GET', '/api/keys'), 200);
    const robot = coordinator.client(key.body.data.key);
    expectCode(await call(robot, 'GET', '/api/account'), 200);
    expectCode(await call(admin.client, 'DELETE', `/api/keys/${key.body.data.id as string}`), 204);
    expectCode(await call(admin.client, 'DELETE', `/api/keys/${key.body.data.id as string}`), 404, 'NOT_FOUND');
    expectCode(await call(robot, 'GET', '/api/account'), 401, 'UNAUTHORIZED');
  });

  // ---- coverage ------------------------------------------------------------------------

  it('saw every documented status of every operation (500 and 503 aside)', () => {
    const unseen: string[] = [];
    for (const op of operations) {
      const seen = observed.get(`${op.method} ${op.path}`) ?? new Set();
      for (const status of Object.keys(op.spec.responses)) {
        if (!UNREACHABLE_STATUSES.has(status) && !seen.has(status)) unseen.push(`${op.method} ${op.path} ${status}`);
      }
    }
    if (!JWT_NATS) {
      console.warn(`skipped without nats-server: ${[...ENROLLMENT_SUCCESSES].join(', ')}`);
      expect(unseen.filter((status) => !ENROLLMENT_SUCCESSES.has(status))).toEqual([]);
    } else expect(unseen).toEqual([]);
  });
});
