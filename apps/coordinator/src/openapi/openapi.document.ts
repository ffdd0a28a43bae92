/**
 * The OpenAPI 3.1 document of the coordinator's API, built by hand from the same constants,
 * DTO types and error table the code uses (no generator, no decorators). test/e2e/openapi.spec.ts
 * holds it against the running server: routes, statuses, bodies and permissions.
 */
import type { CheckerAddressesQuery } from '../agents/checker-addresses.controller.js';
import { DEFAULT_STATUS_PAGES_PER_PAGE, type ListStatusPagesQuery } from '../status-pages/status-page.dto.js';
import { MONITOR_TYPES, REGION_IDS } from '#contracts';
import { API_KEY_PATTERN } from '../auth/api-key.js';
import { PERMISSIONS, type Permission } from '../auth/permissions.js';
import { MAX_PAGE, MAX_PER_PAGE } from '../common/pagination.js';
import { CHANNELS, REDACTED } from '../contacts/channels.js';
import { CONTACT_NAME_MAX, CONTACT_SORTS, type ListContactsQuery } from '../contacts/contact.dto.js';
import { DEFAULT_CONTACTS_PER_PAGE } from '../contacts/contacts.service.js';
import { httpStatusOf, type ErrorCode } from '../errors.js';
import { MAX_BODY_BYTES } from '../http/json-body.js';
import type { ListChecksQuery, StatsQuery } from '../history/history.dto.js';
import { DEFAULT_CHECKS_PER_PAGE } from '../history/history.service.js';
import { STATS_PERIODS } from '../history/stats.js';
import { COMMENT_MAX, DEFAULT_INCIDENTS_PER_PAGE, type ListIncidentsQuery } from '../incidents/incident.dto.js';
import { MONITOR_SORTS, type ListMonitorsQuery } from '../monitors/monitor.dto.js';
import { DEFAULT_MONITORS_PER_PAGE } from '../monitors/monitors.service.js';
import { componentSchemas, ref, SORT_ORDERS, type FieldsOf, type Schema } from './openapi.schemas.js';

export const OPENAPI_PATH = '/api/openapi.json';

// ---- errors ----------------------------------------------------------------------------

/** Every error code with what it means (a Record over ErrorCode: none can be left out). */
const ERROR_CODES: { readonly [K in ErrorCode]: string } = {
  VALIDATION_ERROR: 'Missing, invalid or unknown body fields or query parameters; `details` lists every problem.',
  INVALID_JSON:
    'The request body could not be read: not valid JSON, not UTF-8, nesting deeper than 32, or a `__proto__` key.',
  UNSUPPORTED_MEDIA_TYPE: 'A body was sent without `Content-Type: application/json`.',
  PAYLOAD_TOO_LARGE: `The body is larger than ${MAX_BODY_BYTES / 1024} KiB.`,
  UNAUTHORIZED: 'The API key is missing, malformed, unknown or revoked.',
  FORBIDDEN: 'The API key lacks the permission the operation needs (see x-permission).',
  MONITOR_NOT_FOUND: 'No monitor with this id in the account (malformed ids included).',
  CONTACT_NOT_FOUND: 'No contact with this id in the account (malformed ids included).',
  INCIDENT_NOT_FOUND: 'No incident with this id in the account (malformed ids included).',
  STATUS_PAGE_NOT_FOUND: 'No status page with this id in the account.',
  NOT_FOUND: 'No such endpoint.',
  METHOD_NOT_ALLOWED: 'The path exists but not with this method; `Allow` lists the methods it has.',
  READONLY_CHANNEL: 'The contact belongs to a read-only channel (push) and cannot be changed or deleted.',
  SUBSCRIPTION_NOT_ACTIVE: 'The account subscription is not active; the monitor stays paused.',
  RATE_LIMIT_EXCEEDED: 'The rate-limit budget is spent.',
  SERVICE_UNAVAILABLE: 'A dependency (the database) is unavailable; retry after `Retry-After` seconds.',
  INTERNAL_ERROR: 'A bug on the server side; the body carries no internal detail.',
};

const ERROR_HEADERS: { readonly [K in ErrorCode]?: Readonly<Record<string, Schema>> } = {
  UNAUTHORIZED: { 'WWW-Authenticate': { required: true, schema: { const: 'Bearer' } } },
  METHOD_NOT_ALLOWED: {
    Allow: { required: true, description: 'The methods of this path.', schema: { type: 'string' } },
  },
  SERVICE_UNAVAILABLE: {
    'Retry-After': { required: true, description: 'Seconds to wait.', schema: { type: 'string', pattern: '^\\d+$' } },
  },
};

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
    const validation = codes.includes('VALIDATION_ERROR');
    const error: Schema = {
      properties: {
        code: codes.length === 1 ? { const: codes[0] } : { enum: codes },
        ...(validation ? {} : { details: false }),
      },
      ...(validation ? { required: ['details'] } : {}),
    };
    const headers = Object.assign({}, ...codes.map((code) => ERROR_HEADERS[code] ?? {})) as Record<string, Schema>;
    return {
      description: codes.map((code) => `${code}: ${ERROR_CODES[code]}`).join(' '),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: { 'application/json': { schema: { allOf: [ref('Error')], properties: { error } } } },
    };
  }
}

// ---- parameters ------------------------------------------------------------------------

const pathId = (resource: 'monitor' | 'contact' | 'incident' | 'status page'): Schema => ({
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
} as const;
const param = (name: keyof typeof PARAMETERS): Schema => ({ $ref: `#/components/parameters/${name}` });

const pageQuery = (defaultPerPage: number) => ({
  page: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE,
    default: 1,
    description: 'Page number; past the end gives an empty page.',
  },
  per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: defaultPerPage, description: 'Page size.' },
  order: { enum: [...SORT_ORDERS], default: 'desc', description: 'Sort direction.' },
});

const monitorQuery = {
  ...pageQuery(DEFAULT_MONITORS_PER_PAGE),
  sort: { enum: [...MONITOR_SORTS], default: 'created_at', description: 'Sort field.' },
  active: { type: 'boolean', description: 'Only active (`true`) or paused (`false`) monitors.' },
  monitor_type: { enum: [...MONITOR_TYPES], description: 'Only monitors of this type.' },
} satisfies FieldsOf<ListMonitorsQuery>;

const contactQuery = {
  ...pageQuery(DEFAULT_CONTACTS_PER_PAGE),
  search: { type: 'string', maxLength: CONTACT_NAME_MAX, description: 'Case-insensitive substring of the name.' },
  channel: { enum: [...CHANNELS], description: 'Only contacts of this channel.' },
  sort: { enum: [...CONTACT_SORTS], default: 'created_at', description: 'Sort field.' },
} satisfies FieldsOf<ListContactsQuery>;

const checksQuery = {
  ...pageQuery(DEFAULT_CHECKS_PER_PAGE),
  order: { enum: [...SORT_ORDERS], default: 'desc', description: 'By check time: `desc` is newest first.' },
  region: {
    enum: [...REGION_IDS],
    description: 'Only results from this region (any known region; one the monitor does not use gives an empty page).',
  },
} satisfies FieldsOf<ListChecksQuery>;

const statsQuery = {
  period: {
    enum: [...STATS_PERIODS],
    default: '24h',
    description:
      '24h: the last 86400 seconds, from raw results. 7d, 30d, 90d: that many UTC days ending today, from daily roll-ups.',
  },
} satisfies FieldsOf<StatsQuery>;

const incidentQuery = {
  ...pageQuery(DEFAULT_INCIDENTS_PER_PAGE),
  order: { enum: [...SORT_ORDERS], default: 'desc', description: 'By started_at: `desc` is newest first.' },
  monitor_id: {
    type: 'string',
    pattern: '^[0-9a-f]{24}$',
    description: "Only incidents of this monitor. An unknown id or another account's matches nothing (empty page).",
  },
  resolved: { type: 'boolean', description: 'Only resolved (`true`) or open (`false`) incidents.' },
} satisfies FieldsOf<ListIncidentsQuery>;

const statusPageQuery = {
  ...pageQuery(DEFAULT_STATUS_PAGES_PER_PAGE),
  order: { enum: [...SORT_ORDERS], default: 'desc', description: 'By created_at: `desc` is newest first.' },
} satisfies FieldsOf<ListStatusPagesQuery>;

const checkerQuery = {
  format: { enum: ['json', 'txt'], default: 'json', description: '`txt`: text/plain, one address per line.' },
} satisfies FieldsOf<CheckerAddressesQuery>;

/** Query parameters: each is given at most once, as plain text (booleans exactly true/false). */
function queryParameters(fields: Readonly<Record<string, Schema>>): Schema[] {
  return Object.entries(fields).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema,
  }));
}

// ---- operations ------------------------------------------------------------------------

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Tag = 'Monitors' | 'Contacts' | 'Incidents' | 'Status pages' | 'Account' | 'Meta';

interface OperationSpec {
  method: Method;
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** null: served without an API key. */
  permission: Permission | null;
  parameters?: readonly Schema[];
  body?: { schema: string; required: boolean; description: string };
  success: { status: 200 | 201 | 204; description: string; schema?: string; text?: string };
  /** The operation's own errors; those every operation of its kind has are added. */
  errors?: readonly ErrorCode[];
}

const OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/api/monitors',
    operationId: 'listMonitors',
    tag: 'Monitors',
    summary: 'List monitors',
    description: "A page of the account's monitors. Unknown or invalid query parameters get 422.",
    permission: 'monitors:read',
    parameters: queryParameters(monitorQuery),
    success: { status: 200, description: 'A page of monitors.', schema: 'MonitorListResponse' },
    errors: ['VALIDATION_ERROR'],
  },
  {
    method: 'post',
    path: '/api/monitors',
    operationId: 'createMonitor',
    tag: 'Monitors',
    summary: 'Create a monitor',
    permission: 'monitors:write',
    body: { schema: 'MonitorCreate', required: true, description: 'The new monitor.' },
    success: { status: 201, description: 'The created monitor, last_status pending.', schema: 'MonitorResponse' },
    errors: ['VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/api/monitors/{id}',
    operationId: 'getMonitor',
    tag: 'Monitors',
    summary: 'Get a monitor',
    permission: 'monitors:read',
    parameters: [param('MonitorId')],
    success: { status: 200, description: 'The monitor.', schema: 'MonitorResponse' },
    errors: ['MONITOR_NOT_FOUND'],
  },
  {
    method: 'put',
    path: '/api/monitors/{id}',
    operationId: 'updateMonitor',
    tag: 'Monitors',
    summary: 'Update a monitor (partial)',
    description: 'Only the supplied fields change. The monitor is looked up (404) before the body is judged (422).',
    permission: 'monitors:write',
    parameters: [param('MonitorId')],
    body: { schema: 'MonitorUpdate', required: false, description: 'The fields to change; no body changes nothing.' },
    success: { status: 200, description: 'The whole monitor after the change.', schema: 'MonitorResponse' },
    errors: ['MONITOR_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  {
    method: 'delete',
    path: '/api/monitors/{id}',
    operationId: 'deleteMonitor',
    tag: 'Monitors',
    summary: 'Delete a monitor',
    description: 'Removes the monitor with its check history, statistics and incidents. Cannot be undone.',
    permission: 'monitors:write',
    parameters: [param('MonitorId')],
    success: { status: 204, description: 'Deleted; no body.' },
    errors: ['MONITOR_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/api/monitors/{id}/pause',
    operationId: 'pauseMonitor',
    tag: 'Monitors',
    summary: 'Pause alerting',
    description: 'Sets active to false. Checks keep running; no notifications are sent. No body.',
    permission: 'monitors:write',
    parameters: [param('MonitorId')],
    success: { status: 200, description: 'The paused monitor.', schema: 'MonitorActivityResponse' },
    errors: ['MONITOR_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/api/monitors/{id}/resume',
    operationId: 'resumeMonitor',
    tag: 'Monitors',
    summary: 'Resume alerting',
    description: 'Sets active to true, if the account subscription is active. No body.',
    permission: 'monitors:write',
    parameters: [param('MonitorId')],
    success: { status: 200, description: 'The resumed monitor.', schema: 'MonitorActivityResponse' },
    errors: ['MONITOR_NOT_FOUND', 'SUBSCRIPTION_NOT_ACTIVE'],
  },
  {
    method: 'get',
    path: '/api/monitors/{id}/checks',
    operationId: 'listMonitorChecks',
    tag: 'Monitors',
    summary: "List a monitor's check results",
    description:
      'Recent check results from every region, newest first, kept for RESULTS_RETENTION_DAYS (default 30). ' +
      'Never includes response bodies. Unknown or invalid query parameters get 422.',
    permission: 'monitors:read',
    parameters: [param('MonitorId'), ...queryParameters(checksQuery)],
    success: { status: 200, description: 'A page of check results.', schema: 'CheckListResponse' },
    errors: ['MONITOR_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/api/monitors/{id}/stats',
    operationId: 'getMonitorStats',
    tag: 'Monitors',
    summary: "Get a monitor's uptime and response times",
    description:
      'Uptime % (unknown results excluded), mean and p95 response time over a period, overall and per region. ' +
      'Unknown or invalid query parameters get 422.',
    permission: 'monitors:read',
    parameters: [param('MonitorId'), ...queryParameters(statsQuery)],
    success: { status: 200, description: 'The statistics.', schema: 'MonitorStatsResponse' },
    errors: ['MONITOR_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/api/contacts',
    operationId: 'listContacts',
    tag: 'Contacts',
    summary: 'List contacts',
    description: "A page of the account's contacts, secrets redacted. Unknown or invalid query parameters get 422.",
    permission: 'contacts:read',
    parameters: queryParameters(contactQuery),
    success: { status: 200, description: 'A page of contacts.', schema: 'ContactListResponse' },
    errors: ['VALIDATION_ERROR'],
  },
  {
    method: 'post',
    path: '/api/contacts',
    operationId: 'createContact',
    tag: 'Contacts',
    summary: 'Create a contact',
    description:
      'Optional details fields get their defaults, which are always returned. Secrets come back as ' +
      `${REDACTED}. Read-only channels (push) cannot be created (422).`,
    permission: 'contacts:write',
    body: { schema: 'ContactCreate', required: true, description: 'The new contact.' },
    success: { status: 201, description: 'The created contact.', schema: 'ContactResponse' },
    errors: ['VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/api/contacts/{id}',
    operationId: 'getContact',
    tag: 'Contacts',
    summary: 'Get a contact',
    permission: 'contacts:read',
    parameters: [param('ContactId')],
    success: { status: 200, description: 'The contact, secrets redacted.', schema: 'ContactResponse' },
    errors: ['CONTACT_NOT_FOUND'],
  },
  {
    method: 'put',
    path: '/api/contacts/{id}',
    operationId: 'updateContact',
    tag: 'Contacts',
    summary: 'Update a contact (partial)',
    description:
      'Only the supplied fields change; details merge over the stored ones. Checked in this order: ' +
      '404, then 403 READONLY_CHANNEL, then the body (422).',
    permission: 'contacts:write',
    parameters: [param('ContactId')],
    body: { schema: 'ContactUpdate', required: false, description: 'The fields to change.' },
    success: { status: 200, description: 'The whole contact after the change.', schema: 'ContactResponse' },
    errors: ['CONTACT_NOT_FOUND', 'READONLY_CHANNEL', 'VALIDATION_ERROR'],
  },
  {
    method: 'delete',
    path: '/api/contacts/{id}',
    operationId: 'deleteContact',
    tag: 'Contacts',
    summary: 'Delete a contact',
    description: 'The contact also leaves every monitor that listed it.',
    permission: 'contacts:write',
    parameters: [param('ContactId')],
    success: { status: 204, description: 'Deleted; no body.' },
    errors: ['CONTACT_NOT_FOUND', 'READONLY_CHANNEL'],
  },
  {
    method: 'post',
    path: '/api/contacts/{id}/reactivate',
    operationId: 'reactivateContact',
    tag: 'Contacts',
    summary: 'Reactivate a contact',
    description: 'Turns an (automatically) deactivated contact back on and clears its error. No body.',
    permission: 'contacts:write',
    parameters: [param('ContactId')],
    success: { status: 200, description: 'The reactivated contact.', schema: 'ContactReactivateResponse' },
    errors: ['CONTACT_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/api/contacts/{id}/test',
    operationId: 'testContact',
    tag: 'Contacts',
    summary: 'Send a test notification',
    description:
      "Delivers a real `contact.test` notification through the contact's channel (any channel, push and inactive " +
      'contacts included) and waits for the answer. 200 when the destination accepted it; 422 VALIDATION_ERROR when ' +
      'it did not, with one `details` entry `{"field":"details","message":"<class>: <reason>"}` where the class is ' +
      '`retry` (temporary: network error, timeout, 5xx, 429), `disable` (destination gone or credentials rejected), ' +
      "`bug` (the destination rejected the message) or `config` (the server's own configuration, e.g. no SMTP relay). " +
      'Provider answers are never echoed. Does not change the contact. No body.',
    permission: 'contacts:write',
    parameters: [param('ContactId')],
    success: {
      status: 200,
      description: 'The destination accepted the test notification.',
      schema: 'ContactTestResponse',
    },
    errors: ['CONTACT_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/api/incidents',
    operationId: 'listIncidents',
    tag: 'Incidents',
    summary: 'List incidents',
    description:
      "A page of the account's incidents (one per outage of an active monitor), newest first. " +
      'Unknown or invalid query parameters get 422.',
    permission: 'incidents:read',
    parameters: queryParameters(incidentQuery),
    success: { status: 200, description: 'A page of incidents.', schema: 'IncidentListResponse' },
    errors: ['VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/api/incidents/{id}',
    operationId: 'getIncident',
    tag: 'Incidents',
    summary: 'Get an incident',
    permission: 'incidents:read',
    parameters: [param('IncidentId')],
    success: { status: 200, description: 'The incident.', schema: 'IncidentResponse' },
    errors: ['INCIDENT_NOT_FOUND'],
  },
  {
    method: 'put',
    path: '/api/incidents/{id}/comment',
    operationId: 'commentIncident',
    tag: 'Incidents',
    summary: "Set an incident's comment",
    description: `Replaces \`user_comment\` (at most ${COMMENT_MAX} code points; \`""\` clears it). The incident is looked up (404) before the body is judged (422).`,
    permission: 'incidents:write',
    parameters: [param('IncidentId')],
    body: { schema: 'IncidentComment', required: true, description: 'The new comment.' },
    success: { status: 200, description: 'The incident after the change.', schema: 'IncidentResponse' },
    errors: ['INCIDENT_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/api/status_pages',
    operationId: 'listStatusPages',
    tag: 'Status pages',
    summary: 'List status pages',
    description: 'Newest first unless order=asc.',
    permission: 'status_pages:read',
    parameters: queryParameters(statusPageQuery),
    success: { status: 200, description: 'A page of status pages.', schema: 'StatusPageListResponse' },
  },
  {
    method: 'post',
    path: '/api/status_pages',
    operationId: 'createStatusPage',
    tag: 'Status pages',
    summary: 'Create a status page',
    permission: 'status_pages:write',
    body: { schema: 'StatusPageCreate', required: true, description: 'The new page.' },
    success: { status: 201, description: 'The page as stored.', schema: 'StatusPageResponse' },
    errors: ['VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/api/status_pages/{id}',
    operationId: 'getStatusPage',
    tag: 'Status pages',
    summary: 'Get a status page',
    permission: 'status_pages:read',
    parameters: [param('StatusPageId')],
    success: { status: 200, description: 'The page.', schema: 'StatusPageResponse' },
    errors: ['STATUS_PAGE_NOT_FOUND'],
  },
  ...(['put', 'patch'] as const).map((method): OperationSpec => ({
    method,
    path: '/api/status_pages/{id}',
    operationId: method === 'put' ? 'updateStatusPage' : 'patchStatusPage',
    tag: 'Status pages',
    summary: `Update a status page (${method.toUpperCase()}, partial)`,
    description: 'Only the supplied fields change. The page is looked up (404) before the body is judged (422).',
    permission: 'status_pages:write',
    parameters: [param('StatusPageId')],
    body: { schema: 'StatusPageUpdate', required: false, description: 'The fields to change.' },
    success: { status: 200, description: 'The page after the change.', schema: 'StatusPageResponse' },
    errors: ['STATUS_PAGE_NOT_FOUND', 'VALIDATION_ERROR'],
  })),
  {
    method: 'delete',
    path: '/api/status_pages/{id}',
    operationId: 'deleteStatusPage',
    tag: 'Status pages',
    summary: 'Delete a status page',
    permission: 'status_pages:write',
    parameters: [param('StatusPageId')],
    success: { status: 204, description: 'Deleted; no body.' },
    errors: ['STATUS_PAGE_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/api/account',
    operationId: 'getAccount',
    tag: 'Account',
    summary: 'Get the account',
    description: 'The account the API key belongs to, with monitor counts.',
    permission: 'account:read',
    success: { status: 200, description: 'The account.', schema: 'AccountResponse' },
  },
  {
    method: 'get',
    path: OPENAPI_PATH,
    operationId: 'getOpenApiDocument',
    tag: 'Meta',
    summary: 'This OpenAPI document',
    description: 'Served without an API key.',
    permission: null,
    success: { status: 200, description: 'The OpenAPI 3.1 document.', schema: 'OpenApiDocument' },
  },
  {
    method: 'get',
    path: '/web_api/checker_ip_addresses',
    operationId: 'getCheckerAddresses',
    tag: 'Meta',
    summary: 'Checker IP addresses',
    description:
      'Every region with the addresses its checks come from (agents seen in the last 24 h plus CHECKER_ADDRESSES), ' +
      'for firewall allow-lists. Served without an API key. `?format=txt` answers text/plain, one address per line.',
    permission: null,
    parameters: queryParameters(checkerQuery),
    success: {
      status: 200,
      description: 'The regions and their addresses (JSON), or with `format=txt` the addresses (text/plain).',
      schema: 'CheckerAddressesResponse',
      text: 'text/plain',
    },
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tag: 'Meta',
    summary: 'Liveness',
    description:
      'Whether the process answers; never looks at the database or NATS, so an outage of either does not get a ' +
      'healthy process restarted. Served without an API key and without rate limit.',
    permission: null,
    success: { status: 200, description: 'The process is alive.', schema: 'Health' },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'Meta',
    summary: 'Readiness',
    description:
      'Whether this coordinator should get traffic: the database answers (probed at most once a second, 2 s ' +
      'timeout), migrations are applied, NATS is connected (with NATS_URL), and it is not shutting down. When one ' +
      'fails the answer is **503** with the same body, `failing` naming the part. `degraded` (200) means it serves ' +
      'while a database outage left results or status changes held in memory. No API key, no rate limit.',
    permission: null,
    success: {
      status: 200,
      description: 'Ready or degraded (503 with the same body when unavailable).',
      schema: 'Readiness',
    },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'Meta',
    summary: 'Prometheus metrics',
    description:
      "The coordinator's metrics in the Prometheus text format (checks, statuses, scheduler lateness, agents per " +
      'region, process). Served without an API key: restrict it at the network or the reverse proxy.',
    permission: null,
    success: { status: 200, description: 'Prometheus text exposition format 0.0.4.', text: 'text/plain' },
  },
];

const BODY_METHODS: readonly Method[] = ['post', 'put', 'patch', 'delete'];

/** The operation's own errors plus those of every operation of its kind, in status order. */
function errorCodesOf(spec: OperationSpec): ErrorCode[] {
  // Every route validates its query string: one without query parameters refuses any (422).
  const codes = new Set<ErrorCode>([...(spec.errors ?? []), 'VALIDATION_ERROR']);
  if (spec.permission !== null)
    ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE'].forEach((c) =>
      codes.add(c as ErrorCode),
    );
  if (BODY_METHODS.includes(spec.method)) {
    codes.add('INVALID_JSON');
    codes.add('UNSUPPORTED_MEDIA_TYPE');
    codes.add('PAYLOAD_TOO_LARGE');
  }
  codes.add('INTERNAL_ERROR');
  const order = Object.keys(ERROR_CODES);
  return [...codes].sort((a, b) => httpStatusOf(a) - httpStatusOf(b) || order.indexOf(a) - order.indexOf(b));
}

function operation(spec: OperationSpec, errors: ErrorResponses): Schema {
  const responses: Record<string, Schema> = {
    [spec.success.status]: {
      description: spec.success.description,
      ...(spec.success.schema || spec.success.text
        ? {
            content: {
              ...(spec.success.schema ? { 'application/json': { schema: ref(spec.success.schema) } } : {}),
              ...(spec.success.text ? { [spec.success.text]: { schema: { type: 'string' } } } : {}),
            },
          }
        : {}),
    },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(spec)) {
    const status = httpStatusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) responses[status] = errors.ref(codes);

  const permission = spec.permission === null ? 'No API key needed.' : `Needs the \`${spec.permission}\` permission.`;
  return {
    operationId: spec.operationId,
    tags: [spec.tag],
    summary: spec.summary,
    description: [spec.description, permission].filter(Boolean).join(' '),
    ...(spec.permission === null ? { security: [] } : { 'x-permission': spec.permission }),
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: spec.body.required,
            description: spec.body.description,
            content: { 'application/json': { schema: ref(spec.body.schema) } },
          },
        }
      : {}),
    responses,
  };
}

// ---- the document ----------------------------------------------------------------------

const DESCRIPTION = `
Picket's REST API: uptime monitors, the contacts they notify and the incidents they open, scoped to the account of the API key.

- Bodies are JSON (\`Content-Type: application/json\`, at most ${MAX_BODY_BYTES / 1024} KiB). Timestamps are integer Unix seconds. Ids are 24 lowercase hex characters.
- Success: \`{"status":"ok", ...}\`. Monitors and incidents answer under \`data\` (lists: \`data.monitors\` / \`data.incidents\` + \`data.pagination\`); contacts use top-level \`contacts\` + \`pagination\` or \`contact\` (reactivate: \`data.contact\`; test: \`data.message\`). Creates answer 201, deletes 204 with no body.
- Errors: \`{"status":"error","error":{"code","message","details"?}}\`; \`details\` comes with VALIDATION_ERROR only, listing every problem. An unknown path gets 404 NOT_FOUND; a known path with another method gets 405 METHOD_NOT_ALLOWED with \`Allow\` (responses NotFound and MethodNotAllowed).
- Request bodies refuse unknown fields (422) but ignore a resource's read-only fields, so a GET body can be sent back.
`.trim();

export type OpenApiDocument = Readonly<Record<string, unknown>>;

export function buildOpenApiDocument(): OpenApiDocument {
  const errors = new ErrorResponses();
  errors.ref(['NOT_FOUND']);
  errors.ref(['METHOD_NOT_ALLOWED']);

  const paths: Record<string, Record<string, Schema>> = {};
  for (const spec of OPERATIONS) {
    paths[spec.path] ??= {};
    paths[spec.path]![spec.method] = operation(spec, errors);
  }

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
      { name: 'Contacts', description: 'Where notifications go.' },
      { name: 'Incidents', description: 'Outages of active monitors: opened on down, resolved on up.' },
      { name: 'Status pages', description: 'Public pages showing the health of chosen monitors.' },
      { name: 'Account', description: 'The account of the API key.' },
      { name: 'Meta', description: 'About the API itself.' },
    ],
    security: [{ bearerAuth: [] }],
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
      },
      parameters: PARAMETERS,
      schemas,
      responses: errors.components,
    },
  };
}

/** Built once: the document only changes with the code. */
export const OPENAPI_DOCUMENT: OpenApiDocument = buildOpenApiDocument();
