/**
 * The OpenAPI 3.1 document of the coordinator's API, generated from the routes the app serves:
 * path, method, permission (or public), success status and query parameters from each route's
 * own metadata (`http/routes.ts`, the query DTO's `@Field` checkers), and the rest from the
 * `@ApiOperation` beside the handler; errors from the code table, schemas from openapi.schemas.ts
 * (docs/decisions/0016-openapi-from-declarations.md). test/e2e/openapi*.spec.ts hold it against
 * the running server.
 */
import { dtoSchema } from '#validation';
import { API_KEY_PATTERN } from '../auth/api-key.js';
import { PERMISSIONS } from '../auth/permissions.js';
import { httpStatusOf, type ErrorCode } from '../errors.js';
import { API_ALLOWED_HEADERS, API_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, corsPolicyOf } from '../http/cors.js';
import { MAX_BODY_BYTES } from '../http/json-body.js';
import type { DeclaredRoute, HttpMethod } from '../http/routes.js';
import { errorEnvelope, operationDeclarations, type OperationDeclaration, type Schema } from './api-operation.js';
import { componentSchemas, ref } from './openapi.schemas.js';

// ---- errors ----------------------------------------------------------------------------

/** Every error code with what it means (a Record over ErrorCode: none can be left out). */
const ERROR_CODES: { readonly [K in ErrorCode]: string } = {
  VALIDATION_ERROR: 'Missing, invalid or unknown body fields or query parameters; `details` lists every problem.',
  INVALID_JSON:
    'The request body could not be read: not valid JSON, not UTF-8, nesting deeper than 32, or a `__proto__` key.',
  UNSUPPORTED_MEDIA_TYPE: 'A body was sent without `Content-Type: application/json`.',
  PAYLOAD_TOO_LARGE: `The body is larger than ${MAX_BODY_BYTES / 1024} KiB.`,
  UNAUTHORIZED:
    'The API key is missing, malformed, unknown or revoked, or the session cookie has ended (expired, signed out, user disabled).',
  FORBIDDEN:
    'The API key or the signed-in user lacks what the operation needs (see x-permission), or a signed-in write failed the CSRF check (X-CSRF-Token, Origin).',
  MONITOR_NOT_FOUND: 'No monitor with this id in the account (malformed ids included).',
  CONTACT_NOT_FOUND: 'No contact with this id in the account (malformed ids included).',
  INCIDENT_NOT_FOUND: 'No incident with this id in the account (malformed ids included).',
  STATUS_PAGE_NOT_FOUND: 'No status page with this id in the account.',
  MAINTENANCE_WINDOW_NOT_FOUND: 'No maintenance window with this id in the account (malformed ids included).',
  REGION_NOT_FOUND: 'No private region with this id in the account (public and malformed ids included).',
  REGION_IN_USE: 'Monitors still list the region; remove it from them first.',
  NOT_FOUND: 'No such endpoint.',
  METHOD_NOT_ALLOWED: 'The path exists but not with this method; `Allow` lists the methods it has.',
  READONLY_CHANNEL: 'The contact belongs to a read-only channel (push) and cannot be changed or deleted.',
  CONTACT_TEST_FAILED:
    'The test notification was not delivered; `message` names the class (retry, disable, bug, config) and a short reason.',
  QUOTA_EXCEEDED: 'The account already has as many monitors or contacts as its quota allows.',
  SUBSCRIPTION_NOT_ACTIVE: 'The account subscription is not active: monitors can be neither created nor resumed.',
  RATE_LIMIT_EXCEEDED: 'The rate-limit budget is spent.',
  SERVICE_UNAVAILABLE: 'A dependency (the database) is unavailable; retry after `Retry-After` seconds.',
  INTERNAL_ERROR: 'A bug on the server side; the body carries no internal detail.',
};

const SECONDS: Schema = { type: 'string', pattern: '^\\d+$' };

/**
 * The rate-limit headers of every answer to a charged request (authenticated, then charged
 * before anything else is judged: docs/decisions/0003-auth-permissions-rate-limit.md).
 */
const rateLimitHeaders = (required: boolean): Record<string, Schema> => {
  const when = required ? '' : ' Sent when the request was charged (authenticated operations, past the key check).';
  return {
    'X-RateLimit-Limit': { required, description: `The account's budget of points per hour.${when}`, schema: SECONDS },
    'X-RateLimit-Remaining': { required, description: `Whole points left.${when}`, schema: SECONDS },
    'X-RateLimit-Reset': {
      required,
      description: `Unix seconds when the budget is full again.${when}`,
      schema: SECONDS,
    },
  };
};

/**
 * The CORS headers of a successful answer on a documented path (docs/decisions/0017-http-edge-hardening.md):
 * the public status JSON is readable from any origin, `/api` from CORS_ORIGINS only.
 */
function corsHeadersOf(path: string): Record<string, Schema> {
  const policy = corsPolicyOf(path);
  if (policy === 'public') {
    return {
      'Access-Control-Allow-Origin': {
        required: true,
        description: 'Any origin may read the page (never with credentials).',
        schema: { const: '*' },
      },
    };
  }
  if (policy !== 'api') return {};
  const when = " Sent when the request's `Origin` is one of CORS_ORIGINS (none by default).";
  return {
    'Access-Control-Allow-Origin': { description: `The request's own origin.${when}`, schema: { type: 'string' } },
    'Access-Control-Expose-Headers': {
      description: `The headers a cross-origin caller may read.${when}`,
      schema: { const: API_EXPOSED_HEADERS.join(', ') },
    },
  };
}

const ERROR_HEADERS: { readonly [K in ErrorCode]?: Readonly<Record<string, Schema>> } = {
  UNAUTHORIZED: { 'WWW-Authenticate': { required: true, schema: { const: 'Bearer' } } },
  METHOD_NOT_ALLOWED: {
    Allow: { required: true, description: 'The methods of this path.', schema: { type: 'string' } },
  },
  RATE_LIMIT_EXCEEDED: {
    ...rateLimitHeaders(true),
    'Retry-After': {
      required: true,
      description: "Whole seconds (at least 1) until this request's cost is earned back.",
      schema: SECONDS,
    },
  },
  SERVICE_UNAVAILABLE: {
    'Retry-After': { required: true, description: 'Seconds to wait.', schema: SECONDS },
  },
};

/** Codes answered before a request is charged: their answers never carry the rate-limit headers. */
const UNCHARGED: readonly ErrorCode[] = [
  'INVALID_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHORIZED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
];

const pascal = (code: string): string =>
  code
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** Reusable error responses in components.responses, one per combination of codes used. */
class ErrorResponses {
  readonly components: Record<string, Schema> = {};

  /** A $ref to the response for `codes`, which all share one HTTP status. */
  ref(codes: readonly ErrorCode[]): Schema {
    const name = codes.map(pascal).join('Or');
    if (!(name in this.components)) this.components[name] = this.build(codes);
    return { $ref: `#/components/responses/${name}` };
  }

  private build(codes: readonly ErrorCode[]): Schema {
    const charged = codes.some((code) => !UNCHARGED.includes(code)) ? rateLimitHeaders(false) : {};
    const headers = Object.assign(charged, ...codes.map((code) => ERROR_HEADERS[code] ?? {})) as Record<string, Schema>;
    return {
      description: codes.map((code) => `${code}: ${ERROR_CODES[code]}`).join(' '),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: { 'application/json': { schema: errorEnvelope(codes) } },
    };
  }
}

/** The error envelope with one of these codes (`details` with VALIDATION_ERROR only). */
// ---- parameters ------------------------------------------------------------------------

const pathId = (
  resource: 'monitor' | 'contact' | 'incident' | 'status page' | 'maintenance window' | 'user' | 'API key',
): Schema => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `The ${resource} id. A malformed id, an unknown one and another account's all get the same 404.`,
  schema: ref('ObjectId'),
});

const PARAMETERS = {
  MonitorId: pathId('monitor'),
  ContactId: pathId('contact'),
  IncidentId: pathId('incident'),
  StatusPageId: pathId('status page'),
  UserId: pathId('user'),
  ApiKeyId: pathId('API key'),
  MaintenanceWindowId: pathId('maintenance window'),
  RegionId: {
    name: 'id',
    in: 'path',
    required: true,
    description:
      "The private region's id. A public, malformed or unknown id and another account's all get the same 404.",
    schema: { type: 'string' },
  },
  RegionAgentId: {
    name: 'agentId',
    in: 'path',
    required: true,
    description:
      "An enrolled agent's id (`GET /api/regions/{id}/agents`). A malformed or unknown id, a revoked agent's once pushed, and another region's all get the same 404.",
    schema: ref('ObjectId'),
  },
  PublicStatusPageId: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The status page id. A malformed or unknown id is the same 404.',
    schema: { type: 'string' },
  },
  DashboardAsset: {
    name: 'file',
    in: 'path',
    required: true,
    description: "The file name under the build's assets/ (with its content hash).",
    schema: { type: 'string' },
  },
  DashboardRef: {
    name: 'ref',
    in: 'path',
    required: true,
    description: 'The id of the resource the dashboard page shows; the app, not the server, looks it up.',
    schema: { type: 'string' },
  },
  PingToken: {
    name: 'id',
    in: 'path',
    required: true,
    description:
      "A heartbeat monitor's ping token (the last segment of its `ping_url`). An unknown token, a malformed one and " +
      "a deleted monitor's all get the same 404.",
    schema: { type: 'string' },
  },
} as const;

/** Query parameters from the route's query DTO: each given at most once, as plain text (booleans exactly true/false). */
function queryParameters(route: DeclaredRoute, declaration: OperationDeclaration): Schema[] {
  if (!route.query) {
    if (declaration.query) throw new Error(`${route.method} ${route.path} documents a query it does not take`);
    return [];
  }
  const { properties } = dtoSchema(route.query, declaration.query);
  return Object.entries(properties).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema,
  }));
}

// ---- operations ------------------------------------------------------------------------

const BODY_METHODS: readonly HttpMethod[] = ['post', 'put', 'patch', 'delete'];

/** The operation's own errors plus those of every operation of its kind, in status order. */
function errorCodesOf(route: DeclaredRoute, declaration: OperationDeclaration): ErrorCode[] {
  // Every route validates its query string: one without query parameters refuses any (422).
  const codes = new Set<ErrorCode>([...(declaration.errors ?? []), 'VALIDATION_ERROR']);
  if (route.access !== 'public')
    ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE'].forEach((c) =>
      codes.add(c as ErrorCode),
    );
  if (BODY_METHODS.includes(route.method)) {
    codes.add('INVALID_JSON');
    codes.add('UNSUPPORTED_MEDIA_TYPE');
    codes.add('PAYLOAD_TOO_LARGE');
  }
  codes.add('INTERNAL_ERROR');
  const order = Object.keys(ERROR_CODES);
  return [...codes].sort((a, b) => httpStatusOf(a) - httpStatusOf(b) || order.indexOf(a) - order.indexOf(b));
}

/** What the description says of an access that is not a key permission (docs/decisions/0022-users-and-sessions.md). */
const ACCESS_TEXT: Readonly<Record<string, string>> = {
  public: 'No API key needed.',
  session: 'Needs a signed-in dashboard user (`x-permission: session`); API keys get 403.',
  admin: 'Needs a signed-in admin user (`x-permission: admin`); API keys and other roles get 403.',
};

/** `{name}` placeholders as a regular expression over concrete paths. */
const templatePattern = (template: string): RegExp =>
  new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`);

function operation(route: DeclaredRoute, declaration: OperationDeclaration, errors: ErrorResponses): Schema {
  const where = `${route.method.toUpperCase()} ${route.path}`;
  if (route.access === undefined) throw new Error(`${where} declares no permission`);
  const { success } = declaration;
  const headers = {
    ...(route.access === 'public' ? {} : rateLimitHeaders(true)),
    ...corsHeadersOf(declaration.path ?? route.path),
  };
  const responses: Record<string, Schema> = {
    [route.status]: {
      description: success.description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(success.schema || success.text
        ? {
            content: {
              ...(success.schema ? { 'application/json': { schema: ref(success.schema) } } : {}),
              ...(success.text ? { [success.text]: { schema: { type: 'string' } } } : {}),
            },
          }
        : {}),
    },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route, declaration)) {
    const status = httpStatusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) responses[status] = errors.ref(codes);
  Object.assign(responses, declaration.responses);

  const parameters = [
    ...(declaration.id ? [{ $ref: `#/components/parameters/${declaration.id}` }] : []),
    ...(declaration.alsoIds ?? []).map((id) => ({ $ref: `#/components/parameters/${id}` })),
    ...queryParameters(route, declaration),
  ];
  const permission =
    ACCESS_TEXT[route.access] ??
    `Needs the \`${route.access}\` permission (an API key, or a signed-in user whose role has it).`;
  return {
    operationId: declaration.operationId,
    tags: [declaration.tag],
    summary: declaration.summary,
    description: [declaration.description, permission].filter(Boolean).join(' '),
    ...(route.access === 'public'
      ? { security: [] }
      : route.access === 'session' || route.access === 'admin'
        ? { security: [{ sessionCookie: [] }], 'x-permission': route.access }
        : { 'x-permission': route.access }),
    ...(declaration.stream ? { 'x-stream': true } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(declaration.body
      ? {
          requestBody: {
            required: declaration.body.required,
            description: declaration.body.description,
            content: { 'application/json': { schema: ref(declaration.body.schema) } },
          },
        }
      : {}),
    responses,
  };
}

/** The documented operations of the routes, by path and method: every route documented, each path routed. */
function operations(routes: readonly DeclaredRoute[], errors: ErrorResponses): Record<string, Record<string, Schema>> {
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    const where = `${route.method.toUpperCase()} ${route.path}`;
    const declarations = operationDeclarations(route.handler);
    if (declarations.length === 0) throw new Error(`${where} has no @ApiOperation`);
    for (const declaration of declarations) {
      const path = declaration.path ?? route.path;
      if (!templatePattern(route.path).test(path.replace(/\{\w+\}/g, 'x'))) {
        throw new Error(`${where} cannot serve the documented path ${path}`);
      }
      paths[path] ??= {};
      if (paths[path][route.method]) throw new Error(`${route.method} ${path} is documented twice`);
      paths[path][route.method] = operation(route, declaration, errors);
    }
  }
  return paths;
}

// ---- the document ----------------------------------------------------------------------

const DESCRIPTION = `
Picket's REST API: uptime monitors, the contacts they notify and the incidents they open, scoped to the account of the API key.

- Bodies are JSON (\`Content-Type: application/json\`, at most ${MAX_BODY_BYTES / 1024} KiB). Timestamps are integer Unix seconds. Ids are 24 lowercase hex characters.
- Success: \`{"status":"ok", ...}\`. Monitors and incidents answer under \`data\` (lists: \`data.monitors\` / \`data.incidents\` + \`data.pagination\`); contacts use top-level \`contacts\` + \`pagination\` or \`contact\` (reactivate: \`data.contact\`; test: \`data.message\`). Creates answer 201, deletes 204 with no body.
- Errors: \`{"status":"error","error":{"code","message","details"?}}\`; \`details\` comes with VALIDATION_ERROR only, listing every problem. An unknown path gets 404 NOT_FOUND; a known path with another method gets 405 METHOD_NOT_ALLOWED with \`Allow\` (responses NotFound and MethodNotAllowed).
- Request bodies refuse unknown fields (422) but ignore a resource's read-only fields, so a GET body can be sent back.
- Cross-origin reads: the public status JSON from any origin; \`/api\` only from the origins of CORS_ORIGINS (none by default), never with credentials. A preflight (\`OPTIONS\` with \`Origin\` and \`Access-Control-Request-Method\`) on such a path is answered 204 with \`Access-Control-Allow-Methods\`, \`Access-Control-Allow-Headers\` (${API_ALLOWED_HEADERS.join(', ')} for \`/api\`) and \`Access-Control-Max-Age: ${CORS_MAX_AGE_SECONDS}\`.
`.trim();

export type OpenApiDocument = Readonly<Record<string, unknown>>;

/** The document of these routes (all the app serves). */
export function buildOpenApiDocument(routes: readonly DeclaredRoute[]): OpenApiDocument {
  const errors = new ErrorResponses();
  errors.ref(['NOT_FOUND']);
  errors.ref(['METHOD_NOT_ALLOWED']);

  const paths = operations(routes, errors);

  const schemas = componentSchemas(Object.keys(ERROR_CODES));
  schemas.OpenApiDocument = {
    type: 'object',
    required: ['openapi', 'info', 'paths', 'components'],
    properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' } },
    description: 'An OpenAPI 3.1 document.',
  };

  return {
    openapi: '3.1.0',
    info: { title: 'Picket API', version: '1', description: DESCRIPTION },
    servers: [{ url: '/', description: 'This coordinator.' }],
    tags: [
      { name: 'Monitors', description: 'What is checked, how and from where.' },
      {
        name: 'Heartbeats',
        description: "Pings from the jobs heartbeat monitors watch: no API key, the monitor's token in the path.",
      },
      { name: 'Contacts', description: 'Where notifications go.' },
      { name: 'Incidents', description: 'Outages of active monitors: opened on down, resolved on up.' },
      { name: 'Status pages', description: 'Public pages showing the health of chosen monitors.' },
      {
        name: 'Maintenance windows',
        description: 'Times when monitors are checked but open no incident and notify nobody.',
      },
      {
        name: 'Regions',
        description: "Where checks run from: the public regions and the account's private ones (its own agents).",
      },
      { name: 'Public status pages', description: 'The status pages themselves, as people and scripts read them.' },
      { name: 'Account', description: 'The account of the API key.' },
      {
        name: 'Sessions',
        description:
          "The dashboard's sign-in: a `picket_session` cookie. A signed-in request that changes something sends the session's `X-CSRF-Token` (GET /api/me) and, when its browser sends an Origin, this server's.",
      },
      { name: 'Users', description: "The account's dashboard users (admins only)." },
      { name: 'API keys', description: "The account's API keys (admins only; never with a key)." },
      { name: 'Meta', description: 'About the API itself.' },
      { name: 'Dashboard', description: 'The web dashboard served by the coordinator: its pages and files.' },
    ],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: `pkt_ + 64 lowercase hex characters (${API_KEY_PATTERN.source})`,
          description:
            `Send \`Authorization: Bearer <key>\`. A key belongs to one account and carries permissions (${PERMISSIONS.join(', ')}); ` +
            'each operation names the one it needs in `x-permission`. Any key problem gets the same 401.',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'picket_session',
          description:
            "The dashboard's session (POST /auth/login). Roles: admin (every key permission, users and keys), editor (every key permission), " +
            "viewer (the `:read` ones and account:read). Writes also need `X-CSRF-Token` (GET /api/me's csrf_token). " +
            'A Bearer key, when sent too, is used instead.',
        },
      },
      parameters: PARAMETERS,
      schemas,
      responses: errors.components,
    },
  };
}
