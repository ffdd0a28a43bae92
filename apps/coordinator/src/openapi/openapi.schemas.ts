/**
 * The JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the API's resources, built from
 * the constants and types the code itself validates and answers with. Request bodies whose DTO
 * checkers carry their schema are built from the DTO (`dtoSchema`), with only descriptions and
 * create defaults added here (docs/decisions/0016-openapi-from-declarations.md). Field maps are
 * typed `FieldsOf<Dto>`, so a field added to or removed from a DTO or response type does not
 * compile until it is documented here; enums and bounds are imported, never retyped.
 */
import {
  CHECK_STATUSES,
  FAILURE_PHASES,
  DEFAULT_HTTP_STATUSES,
  HTTPS_LIMITS,
  MAX_ERROR_LENGTH,
  MONITOR_TYPE_TABLE,
  MONITOR_TYPES,
  PRIVATE_REGION_ID_PATTERN,
  REGION_IDS,
  RESULT_REGIONS,
  requestHeaders,
  type MonitorType,
  type SettingsDtoByType,
} from '#contracts';
import { declaredFields, dtoSchema } from '#validation';
import type { Schema } from './api-operation.js';
import { SUBSCRIPTION_STATUSES } from '../auth/account.entity.js';
import type { AccountJson } from '../account/account.service.js';
import type { PageQuery, Pagination } from '../common/pagination.js';
import {
  AlertingDetails,
  CHANNEL_TABLE,
  CHANNELS,
  ChatWebhookDetails,
  EmailDetails,
  IncidentMgmtDetails,
  PagingDetails,
  PushDetails,
  REDACTED,
  TicketingDetails,
  WebhookDetails,
  type Channel,
} from '../contacts/channels.js';
import { CONTACT_NAME_MAX, type CreateContactDto, type UpdateContactDto } from '../contacts/contact.dto.js';
import type { ContactError } from '../contacts/contact.entity.js';
import type { ContactJson, toContactStateJson } from '../contacts/contact.mapper.js';
import type { FieldProblem } from '../errors.js';
import type { CheckJson, CheckTimingsJson } from '../history/history.mapper.js';
import {
  MIN_ROLLUP_DAYS,
  STATS_PERIODS,
  type MonitorStatsJson,
  type RegionStatsJson,
  type StatsFiguresJson,
} from '../history/stats.js';
import { COMMENT_MAX, IncidentCommentDto } from '../incidents/incident.dto.js';
import type { RegionEvidence } from '../incidents/incident.entity.js';
import type { IncidentJson } from '../incidents/incident.mapper.js';
import { UNKNOWN_AFTER_INTERVALS, type EffectiveStatus } from '../monitors/monitor-status.js';
import type { MonitorJson, toMonitorActivityJson } from '../monitors/monitor.mapper.js';
import { CreateMonitorDto, MONITOR_LIMITS, UpdateMonitorDto } from '../monitors/monitor.dto.js';
import { DEFAULT_NOTIFICATION_RULES } from '../monitors/notification-rules.js';
import type { ContactTestService } from '../notify/contact-test.service.js';
import type { DeliveryJson } from '../notify/deliveries.service.js';
import { NOTIFICATION_EVENTS } from '../notify/notification-event.js';
import type { DeliveryClass } from '../notify/notifier.js';
import {
  CreateMaintenanceWindowDto,
  MAINTENANCE_LIMITS,
  UpdateMaintenanceWindowDto,
} from '../maintenance/maintenance-window.dto.js';
import type { MaintenanceWindowJson, OccurrenceJson } from '../maintenance/maintenance-windows.service.js';
import { PREVIEW_COUNT, WINDOW_STATES } from '../maintenance/windows.js';
import { CreateStatusPageDto, STATUS_PAGE_LIMITS, UpdateStatusPageDto } from '../status-pages/status-page.dto.js';
import type { ApiKeyJson } from '../users/api-keys.service.js';
import { CreateRegionDto } from '../regions/region.dto.js';
import type { AgentTokenJson, EnrolledAgentJson } from '../regions/enrollment.service.js';
import type { PrivateRegionJson, PublicRegionJson } from '../regions/regions.service.js';
import { ROLES } from '../users/roles.js';
import { CreateKeyDto, CreateUserDto, SetPasswordDto, SetupDto, SignInDto, UpdateUserDto } from '../users/users.dto.js';
import type { UserJson } from '../users/users.service.js';
import { PERMISSIONS } from '../auth/permissions.js';
import {
  SHOWN_STATUSES,
  type MonitorSummaryJson,
  type MonitorSummaryPageJson,
  type SummaryCounts,
} from '../summary/monitor-summary.js';
import { SPARKLINE_HOURS } from '../summary/summary-window.js';
import {
  OVERALL_TEXT,
  type PublicDay,
  type PublicIncident,
  type PublicMaintenance,
  type PublicMonitor,
  type PublicPage,
} from '../status-pages/public-page.js';

// ---- helpers ---------------------------------------------------------------------------

export type { Schema };

/** One schema per field of T: no field left out, none invented. */
export type FieldsOf<T> = { readonly [K in keyof T]-?: Schema };

/** Every member of a string union, checked by the compiler in both directions. */
export function everyOf<T extends string>() {
  return <const L extends readonly T[]>(
    list: L & ([Exclude<T, L[number]>] extends [never] ? unknown : { missing: Exclude<T, L[number]> }),
  ): L => list;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A closed object: the listed properties, `required` all of them unless told otherwise. */
export function object(
  properties: Readonly<Record<string, Schema>>,
  required: readonly string[] = Object.keys(properties),
  extra: Schema = {},
): Schema {
  return { type: 'object', properties, required: [...required], additionalProperties: false, ...extra };
}

export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });

const count = (description: string): Schema => ({ type: 'integer', minimum: 0, description });

const bool = (description: string, fallback?: boolean): Schema => ({
  type: 'boolean',
  ...(fallback === undefined ? {} : { default: fallback }),
  description,
});

const displayNameText = (max: number): string =>
  `1 to ${max} Unicode code points (any script, emoji included); not blank; no control or bidirectional-override characters.`;

/** A name as `displayName` checks it. */
const displayName = (max: number): Schema => ({
  type: 'string',
  minLength: 1,
  maxLength: max,
  description: displayNameText(max),
});

/** What a DTO's checkers do not say of some of its fields (descriptions, defaults): none invented. */
type DocsOf<T> = { readonly [K in keyof T]?: Schema };

/**
 * The schemas of a DTO's fields as their checkers state them, with `docs` added; a field whose
 * checker carries no schema stops the start (every field must be documented by its checker).
 */
function checkedFields(
  cls: abstract new () => unknown,
  docs: Readonly<Record<string, Schema | undefined>>,
): Record<string, Schema> {
  return Object.fromEntries(
    declaredFields(cls).map((field) => {
      if (!field.checker.schema) throw new Error(`the checker of ${cls.name}.${field.name} carries no schema`);
      return [field.name, { ...field.checker.schema, ...docs[field.name] }];
    }),
  );
}

/**
 * The fields of a partial update: the create fields without their defaults, which only a
 * create applies (a left-out field of an update keeps its stored value).
 */
function withoutDefaults(fields: Readonly<Record<string, Schema>>): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(fields).map(([key, field]) => {
      const { default: _applied, ...rest } = field;
      return [key, rest];
    }),
  );
}

/** The names of `all`'s properties that `writable` lacks: what a request may send back and is ignored. */
function readOnlyFields(all: Readonly<Record<string, Schema>>, writable: Readonly<Record<string, Schema>>) {
  return Object.fromEntries(
    Object.keys(all)
      .filter((key) => !(key in writable))
      .map((key) => [
        key,
        { readOnly: true, description: 'Read-only: accepted and ignored, so a GET body can be sent back.' },
      ]),
  );
}

// ---- shared ----------------------------------------------------------------------------

export const LAST_STATUSES = everyOf<EffectiveStatus>()(['pending', 'up', 'down', 'unknown']);
export const SORT_ORDERS = everyOf<NonNullable<PageQuery['order']>>()(['asc', 'desc']);

const objectId: Schema = {
  type: 'string',
  pattern: '^[0-9a-f]{24}$',
  description: '24-character lowercase hexadecimal object id.',
  example: '6650f0c2a1b2c3d4e5f60718',
};

const timestamp: Schema = { type: 'integer', minimum: 0, description: 'Unix time in seconds.' };

const paginationFields = {
  page: { type: 'integer', minimum: 1, description: 'This page (1-based).' },
  per_page: { type: 'integer', minimum: 1, description: 'Page size.' },
  total: count('Items over all pages.'),
  total_pages: count('Number of pages (0 when there are no items).'),
  has_next: bool('A later page exists.'),
  has_prev: bool('An earlier page exists.'),
} satisfies FieldsOf<Pagination>;

const fieldProblem = {
  field: { type: 'string', description: 'Dotted path of the offending input, e.g. `settings.https.url`.' },
  message: { type: 'string', description: 'What is wrong with it.' },
} satisfies FieldsOf<FieldProblem>;

// ---- monitors --------------------------------------------------------------------------

/**
 * Per monitor type, what its settings DTO's checkers do not say: the schema's description, the
 * defaults a create applies, and field descriptions beyond the checker's. A mapped type over
 * MonitorType: a type added to MONITOR_TYPE_TABLE does not compile until it is described here.
 */
const SETTINGS_DOCS: {
  readonly [K in MonitorType]: { description: string; fields: DocsOf<SettingsDtoByType[K]> };
} = {
  https: {
    description: 'HTTP(S) check. The optional assertion fields are returned only when set.',
    fields: {
      check_certificate_expiration: bool(
        'Report the TLS certificate expiry and alert 14 days and 1 day before it. Always returned.',
        false,
      ),
      http_method: { default: 'GET', description: 'Request method. Returned only when set.' },
      http_statuses: {
        default: DEFAULT_HTTP_STATUSES,
        description: 'Accepted status codes and ranges, e.g. `200-299,301`. Returned only when set.',
      },
      request_headers: { description: `${requestHeadersText()} Returned only when set.` },
      request_body: { description: 'Request body to send. Returned only when set.' },
      response_body: { description: 'Text the response body must contain. Returned only when set.' },
      follow_redirect: bool(`Follow up to ${HTTPS_LIMITS.redirects} redirects. Returned only when set.`, true),
      response_body_absent: { description: 'Text the response body must not contain. Returned only when set.' },
      json_assertions: {
        description:
          `Up to ${HTTPS_LIMITS.jsonAssertions} assertions on the JSON response body: each holds when its RFC 9535 ` +
          'JSONPath selects at least one value and every value selected passes `op` (`exists` with `false`: the ' +
          'path selects nothing). A failed one turns the check DOWN with phase `assertion`, its error naming the ' +
          'path, the expected and the found value. Returned only when set.',
      },
      ignore_tls_errors: bool(
        'Accept any certificate (self-signed, private CA, expired, other name); its expiry is still reported. ' +
          'Returned only when set.',
        false,
      ),
    },
  },
  tcp: { description: 'TCP connect check.', fields: {} },
  ping: { description: 'ICMP ping check.', fields: {} },
  heartbeat: {
    description:
      'Heartbeat (passive): the watched job (a backup, a cron job) requests `ping_url` on every run; the monitor is ' +
      'down when no ping arrived within `period + grace` of the last one (or of creation), or at once on ' +
      '`ping_url/fail`. Checked from no region: `regions` must be omitted or empty; `check_interval`, `timeout` and ' +
      '`fail_threshold` do not apply (returned with their defaults).',
    fields: {},
  },
  dns: {
    description: "DNS check: one query for the name's records of one type, from each region.",
    fields: {
      record_type: { default: 'A', description: 'The record type asked for. Always returned.' },
      resolver: {
        description: "The resolver to ask; the agent's system resolver when absent. Returned only when set.",
      },
      expected: {
        description:
          'Values that must all be among the answers (names without case or trailing dot; MX, CAA and SOA ' +
          'answers also match by exchange, value and primary name server). Returned only when set.',
      },
    },
  },
};

/** The request_headers checker's own description (the headers it refuses). */
function requestHeadersText(): string {
  const description = requestHeaders.schema?.description;
  return typeof description === 'string' ? description : '';
}

/** The component name of a type's settings schema: `https` → HttpsSettings. */
export const settingsSchemaName = (type: MonitorType): string =>
  `${type.charAt(0).toUpperCase()}${type.slice(1)}Settings`;

/** The settings schema of each monitor type, from its DTO in MONITOR_TYPE_TABLE. */
function settingsSchemas(): Record<string, Schema> {
  return Object.fromEntries(
    MONITOR_TYPES.map((type) => {
      const { description, fields } = SETTINGS_DOCS[type];
      const { properties, required } = dtoSchema(MONITOR_TYPE_TABLE[type].dto, fields);
      return [settingsSchemaName(type), object(properties, required, { description })];
    }),
  );
}

/** What the monitor DTOs' checkers do not say: descriptions, and the defaults a create applies. */
const monitorDocs = {
  name: { description: displayNameText(MONITOR_LIMITS.name) },
  settings: ref('MonitorSettings'),
  active: { default: true, description: 'Alerting on (true) or paused (false).' },
  check_interval: {
    default: MONITOR_LIMITS.checkInterval.default,
    description: 'Seconds between checks from each region.',
  },
  timeout: { default: MONITOR_LIMITS.timeout.default, description: 'Seconds before a check counts as failed.' },
  fail_threshold: {
    default: MONITOR_LIMITS.failThreshold.default,
    description: 'Consecutive failed checks (across regions) before the monitor is down.',
  },
  regions: {
    description:
      'Regions to check from, in rotation order: at least one for a probed type; omitted or empty for a heartbeat.',
  },
  contacts: {
    default: [],
    description: 'Ids of contacts of this account to notify; a supplied list replaces the stored one.',
  },
  notification_rules: {
    default: DEFAULT_NOTIFICATION_RULES,
    description:
      "Delay, reminders and escalation of this monitor's outage notifications. A supplied object replaces the " +
      'stored one; a key left out takes its default: delay_seconds 0 (notify when the outage opens; a shorter ' +
      'outage notifies nobody but is still an incident), repeat_interval_seconds 0 (no reminders; else ' +
      'monitor.down.reminder every that many seconds to every contact told, until the monitor is up), ' +
      'escalation [] (each step sends monitor.down to its contacts once the outage has lasted after_seconds; ' +
      'steps strictly increasing, contacts of this account).',
  },
} satisfies FieldsOf<CreateMonitorDto> & FieldsOf<UpdateMonitorDto>;

/** The body of POST, from the DTO that validates it. */
const monitorCreate = dtoSchema(CreateMonitorDto, monitorDocs);
/** Writable monitor fields: the body of POST (some required) and PUT (all optional); the DTO's fields, as monitorDocs checks. */
const monitorWritable = monitorCreate.properties as FieldsOf<CreateMonitorDto>;

const monitorFields = {
  id: ref('ObjectId'),
  ...monitorWritable,
  settings: {
    allOf: [ref('MonitorSettings')],
    properties: { https: { required: ['url', 'check_certificate_expiration'] } },
  },
  contacts: { type: 'array', items: ref('ObjectId'), description: 'Ids of the contacts notified.' },
  notification_rules: {
    ...monitorWritable.notification_rules,
    required: ['delay_seconds', 'repeat_interval_seconds', 'escalation'],
    description: 'Delay, reminders and escalation of outage notifications, with the defaults filled in.',
  },
  last_status: {
    enum: [...LAST_STATUSES],
    description:
      '`pending` until the first check result, then `up` or `down`. Paused monitors keep checking. ' +
      `\`unknown\` while Picket has had no UP or DOWN result for more than ${UNKNOWN_AFTER_INTERVALS} × check_interval seconds ` +
      '(counted from last_checked_at, or from created_at before the first): computed when read, it opens no incident, ' +
      'notifies nobody and leaves last_status_change alone; the stored status shows again with the next decided result.',
  },
  last_status_change: {
    ...timestamp,
    description: 'When the stored status last changed (starts at created_at); `unknown` does not change it.',
  },
  last_checked_at: nullable({
    ...timestamp,
    description:
      'When the newest UP or DOWN check result was taken; null before the first. UNKNOWN and BLOCKED results do not set it.',
  }),
  created_at: timestamp,
  updated_at: { ...timestamp, description: 'Last change through the API (PUT, pause, resume).' },
} satisfies FieldsOf<MonitorJson>;

const monitorActivityFields = {
  id: ref('ObjectId'),
  name: { type: 'string' },
  active: { type: 'boolean', description: 'false after pause, true after resume.' },
  updated_at: timestamp,
} satisfies FieldsOf<ReturnType<typeof toMonitorActivityJson>>;

// ---- contacts: channel details ---------------------------------------------------------

type DetailsClass = new () => object;

interface DetailsSpec {
  cls: DetailsClass;
  description: string;
  /** The schema of each field, from its checker (plus `docs`). */
  fields: Readonly<Record<string, Schema>>;
  /** Fields the response adds to the stored ones. */
  responseExtra?: Readonly<Record<string, Schema>>;
}

/** A details class, its fields' schemas from their checkers, and what the checkers do not say. */
function details<T extends object>(
  cls: new () => T,
  description: string,
  docs: DocsOf<T> = {},
  responseExtra?: Readonly<Record<string, Schema>>,
): DetailsSpec {
  return { cls, description, fields: checkedFields(cls, docs), responseExtra };
}

const onRecovery = (what: string): Schema => ({ description: `${what} on recovery.` });

/** One line per details class of CHANNEL_TABLE: its description and the field docs its checkers lack. */
const DETAILS: readonly DetailsSpec[] = [
  details(EmailDetails, 'Email delivery.'),
  details(WebhookDetails, 'HTTP POST of a JSON event to a custom endpoint.'),
  details(ChatWebhookDetails, 'Team chat through an incoming webhook (https only).'),
  details(PagingDetails, 'Incidents in a paging service, with severity mapping and auto-resolution.', {
    severity_mapping: { description: 'Severity sent per event class; keys left out keep their defaults.' },
    auto_resolve_incidents: onRecovery('Resolve the incident'),
  }),
  details(IncidentMgmtDetails, 'Incidents in an incident-management service via webhook.', {
    auto_resolve_incidents: onRecovery('Resolve the incident'),
  }),
  details(AlertingDetails, 'Alerts in an alerting service.', {
    auto_close_alerts: onRecovery('Close the alert'),
    eu_instance: { description: 'Use the EU instance of the service.' },
  }),
  details(TicketingDetails, 'Support tickets.', { auto_solve_tickets: onRecovery('Solve the ticket') }),
  details(
    PushDetails,
    'A browser push subscription. Registered by browsers (admin CLI), never created, changed or deleted through the API.',
    {},
    { endpoint_host: { type: 'string', description: 'Host of the push endpoint, for telling subscriptions apart.' } },
  ),
];

/** Channels grouped by the details class that validates them, in CHANNELS order. */
interface ChannelGroup {
  spec: DetailsSpec;
  name: string;
  channels: Channel[];
  secrets: readonly string[];
  defaults: Readonly<Record<string, unknown>>;
  readOnly: boolean;
}

function channelGroups(): ChannelGroup[] {
  const groups: ChannelGroup[] = [];
  for (const channel of CHANNELS) {
    const definition = CHANNEL_TABLE[channel];
    const existing = groups.find((g) => g.spec.cls === definition.details);
    if (existing) {
      const same =
        existing.readOnly === definition.readOnly &&
        JSON.stringify(existing.secrets) === JSON.stringify(definition.secrets) &&
        JSON.stringify(existing.defaults) === JSON.stringify(definition.defaults);
      if (!same) throw new Error(`channels sharing ${definition.details.name} differ in secrets or defaults`);
      existing.channels.push(channel);
      continue;
    }
    const spec = DETAILS.find((d) => d.cls === definition.details);
    if (!spec) throw new Error(`the OpenAPI document has no details schema for channel ${channel}`);
    groups.push({
      spec,
      name: definition.details.name,
      channels: [channel],
      secrets: definition.secrets,
      defaults: definition.defaults,
      readOnly: definition.readOnly,
    });
  }
  return groups;
}

export const CHANNEL_GROUPS = channelGroups();

const REDACTED_VALUE: Schema = { const: REDACTED, description: `A secret: always returned as ${REDACTED}.` };

/** Details as returned: every field (defaults filled in), secrets redacted. */
function detailsResponse(group: ChannelGroup): Schema {
  const properties: Record<string, Schema> = {};
  for (const [key, field] of Object.entries(group.spec.fields)) {
    const fallback = group.defaults[key];
    let schema: Schema = group.secrets.includes(key) ? REDACTED_VALUE : field;
    if (fallback !== null && typeof fallback === 'object' && !Array.isArray(fallback)) {
      schema = { ...schema, required: Object.keys(fallback) };
    }
    properties[key] = fallback === null ? nullable(schema) : schema;
  }
  Object.assign(properties, group.spec.responseExtra);
  return object(properties, Object.keys(properties), { description: group.spec.description });
}

/** Details as accepted on create (`patch` false) or merged over the stored ones on PUT. */
function detailsRequest(group: ChannelGroup, patch: boolean): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(group.spec.fields)) {
    const fallback = group.defaults[key];
    let schema = field;
    if (group.secrets.includes(key)) {
      schema = patch
        ? { anyOf: [field, { const: REDACTED }], description: `${REDACTED} keeps the stored secret.` }
        : { ...field, not: { const: REDACTED } };
    }
    if (fallback === null) schema = nullable(schema);
    if (fallback === undefined) required.push(key);
    else if (!patch) schema = { ...schema, default: fallback };
    properties[key] = schema;
  }
  const description = patch
    ? `Merged field by field over the stored details (objects merge too); the result must satisfy ${group.name}Input.`
    : group.spec.description;
  return object(properties, patch ? [] : required, { description });
}

const WRITABLE_CHANNELS = CHANNELS.filter((channel) => !CHANNEL_TABLE[channel].readOnly);

// ---- contacts --------------------------------------------------------------------------

const contactErrorFields = {
  code: {
    type: 'string',
    description:
      'Why the last delivery failed: DESTINATION_REJECTED (destination gone or credentials refused), ' +
      'DELIVERY_REJECTED (the message was refused), DELIVERY_EXPIRED (retried for 24 h without success), ' +
      "DELIVERY_RETRYING (the latest attempt failed, retries continue) or SERVER_CONFIGURATION (the server's own " +
      'configuration, never held against the contact).',
  },
  message: { type: 'string', description: 'The short reason of the latest failed attempt; never a provider body.' },
  failed_at: timestamp,
  consecutive_failures: count('Failed deliveries in a row (5 deactivate the contact); 0 while the first is retried.'),
} satisfies FieldsOf<ContactError>;

const contactWritable = {
  name: displayName(CONTACT_NAME_MAX),
  channel: ref('Channel'),
  details: { type: 'object', description: 'Channel-specific configuration; see the schema of each channel.' },
  active: bool('Notifications on; set to false automatically after 5 consecutive failed deliveries.', true),
  down_alerts_only: bool('Send only down alerts, no recovery alerts.', false),
} satisfies FieldsOf<CreateContactDto> & FieldsOf<UpdateContactDto>;

const contactFields = {
  id: ref('ObjectId'),
  ...contactWritable,
  created_at: timestamp,
  error: {
    anyOf: [ref('ContactError'), { type: 'null' }],
    description: 'The last delivery problem, or null. Reactivate clears it.',
  },
} satisfies FieldsOf<ContactJson>;

const contactStateFields = {
  id: contactFields.id,
  name: contactFields.name,
  channel: contactFields.channel,
  active: contactFields.active,
  down_alerts_only: contactFields.down_alerts_only,
} satisfies FieldsOf<ReturnType<typeof toContactStateJson>>;

/** `channel` decides the schema of `details`: one branch per details class. */
function byChannel(groups: readonly ChannelGroup[], schemaName: (group: ChannelGroup) => string): Schema[] {
  return groups.map((group) => ({
    required: ['channel', 'details'],
    properties: { channel: { enum: group.channels }, details: ref(schemaName(group)) },
  }));
}

const writableGroups = CHANNEL_GROUPS.filter((group) => !group.readOnly);

const contactTestFields = {
  message: { type: 'string', description: 'Says which contact the test notification was delivered to.' },
} satisfies FieldsOf<Awaited<ReturnType<ContactTestService['send']>>>;

export const DELIVERY_CLASSES = everyOf<DeliveryClass>()(['ok', 'retry', 'disable', 'bug', 'config']);

const deliveryFields = {
  id: ref('ObjectId'),
  notification_id: { ...objectId, description: 'The notification this attempt delivers: retries share it.' },
  event: { enum: [...NOTIFICATION_EVENTS], description: 'What the notification announces.' },
  monitor_id: ref('ObjectId'),
  attempted_at: { ...timestamp, description: 'When the attempt started.' },
  outcome: {
    enum: [...DELIVERY_CLASSES],
    description:
      '`ok` accepted; `retry` transient, tried again; `disable` destination gone or credentials refused; ' +
      "`bug` the destination refused the message; `config` the server's own configuration.",
  },
  status_code: nullable({
    type: 'integer',
    description: 'The HTTP (or SMTP) status of the answer, when there was one.',
  }),
  reason: { type: 'string', description: 'Short and safe: never a provider body, a URL or a secret.' },
  duration_ms: count('How long the attempt took, in ms.'),
} satisfies FieldsOf<DeliveryJson>;

// ---- account ---------------------------------------------------------------------------

const accountFields = {
  id: ref('ObjectId'),
  name: { type: 'string' },
  subscription_status: {
    enum: [...SUBSCRIPTION_STATUSES],
    description: 'An inactive subscription cannot resume monitors.',
  },
  monitors_count: count('All monitors of the account.'),
  up_monitors: count('Monitors whose last_status is up (not unknown), paused ones included.'),
  down_monitors: count('Monitors whose last_status is down (not unknown), paused ones included.'),
  unknown_monitors: count(
    `Monitors whose last_status is unknown: no UP or DOWN result for more than ${UNKNOWN_AFTER_INTERVALS} check intervals.`,
  ),
  paused_monitors: count('Monitors with active false.'),
  created_at: timestamp,
} satisfies FieldsOf<AccountJson>;

// ---- monitor summary -------------------------------------------------------------------

const uptime = (description: string): Schema => nullable({ type: 'number', minimum: 0, maximum: 100, description });

const monitorSummaryFields = {
  id: ref('ObjectId'),
  name: { type: 'string' },
  type: { enum: [...MONITOR_TYPES], description: "The key of the monitor's `settings`." },
  target: nullable({ type: 'string', description: 'The probed target (`settings.<type>.url`); null for a heartbeat.' }),
  active: { type: 'boolean', description: 'false: paused.' },
  last_status: { enum: [...LAST_STATUSES], description: 'As in GET /api/monitors/{id}, `unknown` overlay included.' },
  in_maintenance: { type: 'boolean', description: 'A maintenance window covers the monitor now.' },
  status: {
    enum: [...SHOWN_STATUSES],
    description:
      '`paused` when not active, else `maintenance` when in maintenance, else last_status: what `counts` counts.',
  },
  last_status_change: timestamp,
  last_checked_at: nullable(timestamp),
  created_at: timestamp,
  uptime_24h: uptime('Equal to `/stats?period=24h` `overall.uptime_percent`; null without an up or down result.'),
  uptime_30d: uptime('Equal to `/stats?period=30d` `overall.uptime_percent`; null without an up or down result.'),
  response_ms: {
    type: 'array',
    items: nullable({ type: 'integer', minimum: 0 }),
    minItems: SPARKLINE_HOURS,
    maxItems: SPARKLINE_HOURS,
    description:
      `Mean response time (ms) of the up results of each UTC hour, the current one and the ${SPARKLINE_HOURS - 1} before it, ` +
      'oldest first (hour i starts at sparkline_from + i × 3600); null for an hour without one. Maintenance results excluded.',
  },
} satisfies FieldsOf<MonitorSummaryJson>;

const summaryCountsFields = {
  total: count('All monitors of the account.'),
  up: count('Active, not in maintenance, last_status up.'),
  down: count('Active, not in maintenance, last_status down.'),
  unknown: count('Active, not in maintenance, last_status unknown.'),
  pending: count('Active, not in maintenance, not checked yet.'),
  paused: count('Not active.'),
  maintenance: count('Active and covered by a maintenance window now.'),
} satisfies FieldsOf<SummaryCounts>;

const monitorSummaryPageFields = {
  generated_at: { ...timestamp, description: 'Now: the end of both uptime windows and of the sparkline.' },
  sparkline_from: {
    ...timestamp,
    description: "The start of the sparkline's first hour: the UTC hour 23 hours before the one generated_at falls in.",
  },
  counts: object(summaryCountsFields, undefined, { description: 'Each monitor counted once, by `status`.' }),
  monitors: { type: 'array', items: ref('MonitorSummary'), description: 'Every monitor of the account, in id order.' },
} satisfies FieldsOf<MonitorSummaryPageJson>;

// ---- check history ---------------------------------------------------------------------

const milliseconds = (description: string): Schema => ({ type: 'integer', minimum: 0, description });
const phaseTime = (description: string): Schema => nullable(milliseconds(description));

const checkTimingsFields = {
  dns_ms: phaseTime('Name resolution; null when the check did not resolve a name.'),
  connect_ms: phaseTime('TCP connection set-up; null when not reached.'),
  tls_ms: phaseTime('TLS handshake; null without TLS or when not reached.'),
  first_byte_ms: phaseTime('Request sent until the first response byte (HTTP); null otherwise.'),
  total_ms: milliseconds('The whole check.'),
} satisfies FieldsOf<CheckTimingsJson>;

const checkFields = {
  id: ref('ObjectId'),
  region: ref('ResultRegion'),
  status: {
    enum: [...CHECK_STATUSES],
    description:
      '`unknown`: Picket could not tell (no agent for the region, an internal error); `blocked`: the egress policy refused the address. Neither counts as up or down.',
  },
  response_time_ms: phaseTime('Total time of the check when it reached a verdict, else null.'),
  timings: ref('CheckTimings'),
  http_status: nullable({ type: 'integer', minimum: 100, maximum: 999, description: 'HTTP status (https checks).' }),
  error: nullable({
    type: 'string',
    maxLength: MAX_ERROR_LENGTH,
    description: 'Why the check was not up, in short; never a response body.',
  }),
  phase: nullable({ enum: [...FAILURE_PHASES], description: 'Where a check that was not up failed.' }),
  checked_at: { ...timestamp, description: 'When the result was recorded.' },
  checker_ip: nullable({ type: 'string', description: 'The address the check left from, when known.' }),
  in_maintenance: bool(
    'Taken while a maintenance window covered the monitor: kept, but it opened no incident and counts in no uptime or statistics.',
  ),
} satisfies FieldsOf<CheckJson>;

const statsFiguresFields = {
  checks: count('Results in the period: up, down and unknown.'),
  failures: count('Down results.'),
  unknowns: count('Unknown and blocked results (excluded from the uptime).'),
  uptime_percent: nullable({
    type: 'number',
    minimum: 0,
    maximum: 100,
    description: 'up / (up + down) × 100, rounded to 4 decimals; null when there is no up or down result.',
  }),
  mean_response_ms: nullable({
    type: 'integer',
    minimum: 0,
    description: 'Mean response time of up results, rounded to whole ms; null without any.',
  }),
  p95_response_ms: nullable({
    type: 'integer',
    minimum: 0,
    description:
      '95th percentile (nearest rank) of the response times of up results; null without any. Exact for 24h; ' +
      'longer periods combine the daily values, weighted by their number of results.',
  }),
} satisfies FieldsOf<StatsFiguresJson>;

const regionStatsFields = {
  region: ref('ResultRegion'),
  ...statsFiguresFields,
} satisfies FieldsOf<RegionStatsJson>;

const monitorStatsFields = {
  period: { enum: [...STATS_PERIODS] },
  from: {
    ...timestamp,
    description:
      '24h: 86400 seconds before `to`. 7d/30d/90d: the start (00:00 UTC) of the first of that many UTC days ending today.',
  },
  to: { ...timestamp, description: 'Now.' },
  overall: ref('StatsFigures'),
  regions: {
    type: 'array',
    items: ref('RegionStats'),
    description:
      "The monitor's regions in its order (with zero figures when they have no results), then any other region " +
      'with results in the period (since removed from the monitor), alphabetically.',
  },
} satisfies FieldsOf<MonitorStatsJson>;

// ---- incidents -------------------------------------------------------------------------

const regionEvidenceFields = {
  status: { enum: [...CHECK_STATUSES], description: 'The latest result of the region when the incident opened.' },
  response_time_ms: phaseTime('Total time of that check when it reached a verdict, else null.'),
  error: nullable({ type: 'string', maxLength: MAX_ERROR_LENGTH, description: 'Why that check was not up.' }),
  checked_at: { ...timestamp, description: 'When that check ran.' },
  checker_ip: nullable({ type: 'string', description: 'The address the check left from, when known.' }),
} satisfies FieldsOf<RegionEvidence>;

const incidentFields = {
  id: ref('ObjectId'),
  monitor_id: ref('ObjectId'),
  monitor_name: { type: 'string', description: 'The name of the monitor when the incident opened.' },
  is_resolved: bool('The monitor is up again.'),
  started_at: { ...timestamp, description: 'When the monitor went down.' },
  resolved_at: nullable({ ...timestamp, description: 'When the monitor came back up; null while open.' }),
  duration: count('Seconds from started_at to resolved_at, or to now while open.'),
  reason: { type: 'string', description: 'Short cause, e.g. `HTTP 503` or `connection refused`.' },
  user_comment: {
    type: 'string',
    maxLength: COMMENT_MAX,
    description: 'Set with PUT /api/incidents/{id}/comment; `""` until then.',
  },
  check_results: {
    type: 'object',
    propertyNames: ref('ResultRegion'),
    additionalProperties: ref('RegionEvidence'),
    description: 'The evidence that opened the incident: the latest result of each region, keyed by region.',
  },
} satisfies FieldsOf<IncidentJson>;

/** The body of PUT /api/incidents/{id}/comment, from its DTO. */
const incidentComment = dtoSchema(IncidentCommentDto, {
  comment: {
    description: `At most ${COMMENT_MAX} Unicode code points; line breaks and tabs allowed, other control characters refused; \`""\` clears the comment.`,
  },
} satisfies FieldsOf<IncidentCommentDto>);

// ---- envelopes -------------------------------------------------------------------------

const ok = (fields: Readonly<Record<string, Schema>>, description: string): Schema =>
  object({ status: { const: 'ok' }, ...fields }, undefined, { description });

/** What the status page DTOs' checkers do not say: descriptions, and the defaults a create applies. */
const statusPageDocs = {
  name: { description: displayNameText(STATUS_PAGE_LIMITS.name) },
  monitors: { description: 'Monitors of the account, in display order (1 to 20).' },
  period: { default: STATUS_PAGE_LIMITS.defaultPeriod, description: 'Days the page covers.' },
  custom_domain: {
    description: 'A host name served this page at `/`; unique across accounts. `""` or null clears it.',
  },
  show_incident_reasons: { default: false, description: 'Show why incidents happened.' },
  basic_auth: {
    description: '`user:password` to protect the page; `""` or null clears it; `[REDACTED]` keeps it.',
  },
} satisfies FieldsOf<CreateStatusPageDto> & FieldsOf<UpdateStatusPageDto>;

const statusPageCreate = dtoSchema(CreateStatusPageDto, statusPageDocs);
const statusPageUpdate = dtoSchema(UpdateStatusPageDto, withoutDefaults(statusPageDocs));
const statusPageWritable = statusPageCreate.properties as FieldsOf<CreateStatusPageDto>;
const statusPageFields = {
  id: ref('ObjectId'),
  ...statusPageWritable,
  basic_auth: nullable({ const: '[REDACTED]', description: '`[REDACTED]` when set, null otherwise.' }),
  url: { type: 'string', description: 'Where the public page is: PUBLIC_URL + /status/{id} (a path when unset).' },
  created_at: timestamp,
  updated_at: timestamp,
};

/** What the maintenance window DTOs' checkers do not say (docs/decisions/0026-maintenance-windows.md). */
const maintenanceDocs = {
  name: { description: displayNameText(MAINTENANCE_LIMITS.name) },
  monitors: { description: 'Monitors of the account the window covers; `[]` covers every monitor of the account.' },
  starts_at: {
    description: 'Unix seconds: the start of a one-off window, or the first occurrence of a recurring one.',
  },
  ends_at: { description: 'One-off windows: Unix seconds, after `starts_at`. Not with `rrule`; null clears it.' },
  rrule: {
    description:
      'Recurring windows: an RFC 5545 RRULE without `RRULE:` (FREQ YEARLY to HOURLY), e.g. `FREQ=WEEKLY;BYDAY=SU`; occurrences keep the local time of `starts_at` in `timezone`. null clears it.',
  },
  duration: { description: 'Recurring windows: seconds each occurrence lasts (60 to 604800). null clears it.' },
  timezone: {
    default: MAINTENANCE_LIMITS.defaultTimezone,
    description: 'IANA time zone the rule is computed in, e.g. `Europe/Berlin`.',
  },
  active: { default: true, description: 'An inactive window covers nothing.' },
} satisfies FieldsOf<CreateMaintenanceWindowDto> & FieldsOf<UpdateMaintenanceWindowDto>;

const maintenanceCreate = dtoSchema(CreateMaintenanceWindowDto, maintenanceDocs);
const maintenanceUpdate = dtoSchema(UpdateMaintenanceWindowDto, withoutDefaults(maintenanceDocs));
const maintenanceWritable = maintenanceCreate.properties as FieldsOf<CreateMaintenanceWindowDto>;
const maintenanceFields = {
  id: ref('ObjectId'),
  ...maintenanceWritable,
  ends_at: nullable({ ...timestamp, description: 'The end of a one-off window; null for a recurring one.' }),
  rrule: nullable({ type: 'string', description: 'The rule of a recurring window; null for a one-off one.' }),
  duration: nullable({ type: 'integer', description: 'Seconds each occurrence lasts; null for a one-off window.' }),
  timezone: { type: 'string', description: 'IANA time zone of the rule.' },
  active: { type: 'boolean', description: 'An inactive window covers nothing.' },
  state: {
    enum: [...WINDOW_STATES],
    description:
      'Now: `in_progress` while an occurrence covers its monitors, `scheduled` while one is still to come, `ended` when none is left (an inactive window is never `in_progress`).',
  },
  next_start_at: nullable({ ...timestamp, description: 'The next start after now, or null when none is left.' }),
  created_at: timestamp,
  updated_at: timestamp,
} satisfies FieldsOf<MaintenanceWindowJson>;
const occurrenceFields = {
  starts_at: { ...timestamp, description: 'Unix seconds: when the occurrence starts (inclusive).' },
  ends_at: { ...timestamp, description: 'Unix seconds: when it ends (exclusive).' },
} satisfies FieldsOf<OccurrenceJson>;

// ---- regions ---------------------------------------------------------------------------

const regionCreate = dtoSchema(CreateRegionDto, {
  id: { description: 'What monitors list in `regions`: 3 to 32 of a-z, 0-9 and `-`, a letter first; not a public id.' },
  name: { description: displayNameText(100) },
});
const regionWritable = regionCreate.properties as FieldsOf<CreateRegionDto>;
const privateRegionFields = {
  ...regionWritable,
  type: { const: 'private' },
  agents_online: count("The region's agents that sent a heartbeat in the last 30 s."),
  created_at: { type: 'integer', description: 'Unix seconds.' },
} satisfies FieldsOf<PrivateRegionJson>;
const agentTokenFields = {
  token: {
    type: 'string',
    description:
      'The enrollment token (a NATS bearer JWT allowed nothing but enrollment), shown this once: give it to the agent as `AGENT_ENROLL_TOKEN`. Works once, until `expires_at`.',
  },
  account_id: {
    type: 'string',
    description: "The account's id: the agent's `AGENT_PRIVATE_REGION` is `<account_id>/<region>`.",
  },
  region: { type: 'string' },
  created_at: { type: 'integer', description: 'Unix seconds.' },
  expires_at: { type: 'integer', description: 'Unix seconds: 24 hours after creation.' },
} satisfies FieldsOf<AgentTokenJson>;
const enrolledAgentFields = {
  id: { type: 'string', description: 'The enrolled agent id (what revocation takes).' },
  name: { type: 'string', description: 'The AGENT_ID it enrolled with.' },
  public_key: { type: 'string', description: "Its NATS user's public key (the NATS server logs name it)." },
  enrolled_at: { type: 'integer', description: 'Unix seconds.' },
  online: { type: 'boolean', description: 'An agent of this name sent a heartbeat in the last 30 s.' },
} satisfies FieldsOf<EnrolledAgentJson>;
const publicRegionFields = {
  id: { enum: [...REGION_IDS] },
  name: { type: 'string' },
  continent: { type: 'string' },
  type: { const: 'public' },
} satisfies FieldsOf<PublicRegionJson>;

const page = (items: string, of: string): Readonly<Record<string, Schema>> => ({
  [items]: { type: 'array', items: ref(of) },
  pagination: ref('Pagination'),
});

// ---- public status pages ---------------------------------------------------------------

const publicDayFields = {
  date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'The day (UTC), YYYY-MM-DD.' },
  uptime_percent: uptime('Of the decided checks of the day; null without any.'),
  checks: count('Every check of the day, unknown ones included.'),
  avg_response_ms: nullable({
    type: 'number',
    minimum: 0,
    description: "Mean response time of the day's answered checks, ms; null without any.",
  }),
} satisfies FieldsOf<PublicDay>;

const publicMonitorFields = {
  name: { type: 'string', description: "The monitor's name: never its URL, host or any setting." },
  status: {
    enum: ['up', 'down', 'pending', 'unknown', 'paused', 'maintenance'],
    description:
      '`unknown` is shown as "No data", never as operational; `paused`: alerting paused by the owner; `maintenance`: a maintenance window covers it now ("Under maintenance").',
  },
  uptime_percent: uptime("Over the page's period; null without decided (UP or DOWN) checks."),
  days: { type: 'array', items: ref('PublicDay'), description: 'One per day of the period, oldest first.' },
} satisfies FieldsOf<PublicMonitor>;

const publicIncidentFields = {
  monitor: { type: 'string', description: "The monitor's name." },
  started_at: timestamp,
  resolved_at: nullable({ ...timestamp, description: 'Null while the outage lasts.' }),
  reason: { type: 'string', description: 'Only when the page shows incident reasons.' },
} satisfies FieldsOf<PublicIncident>;

const publicPageFields = {
  name: { type: 'string' },
  period: { enum: [7, 30, 90], description: 'Days the page covers.' },
  overall: {
    enum: Object.keys(OVERALL_TEXT),
    description: 'Over the watched monitors (paused, pending and maintenance ones aside).',
  },
  monitors: { type: 'array', items: ref('PublicMonitor') },
  incidents: {
    type: 'array',
    items: ref('PublicIncident'),
    description: 'Newest first: those that started in the period, and any still open.',
  },
  maintenance: {
    type: 'array',
    items: ref('PublicMaintenance'),
    description: "Maintenance of the page's monitors under way or starting within 7 days, soonest first.",
  },
  generated_at: { ...timestamp, description: 'When the figures were gathered.' },
} satisfies FieldsOf<PublicPage>;

// ---- users, sessions and API keys --------------------------------------------------------

const userFields = {
  id: ref('ObjectId'),
  email: { type: 'string', description: 'As typed; unique across Picket, ignoring case.' },
  name: { type: 'string' },
  role: {
    enum: [...ROLES],
    description:
      'admin: every key permission, users and API keys; editor: every key permission; viewer: the `:read` ones.',
  },
  disabled: { type: 'boolean', description: 'A disabled user cannot sign in; their sessions ended when disabled.' },
  created_at: timestamp,
  last_login_at: nullable({ ...timestamp, description: 'Last successful sign-in; null before the first.' }),
} satisfies FieldsOf<UserJson>;

const { disabled: _disabled, ...meUserFields } = userFields;

const apiKeyFields = {
  id: ref('ObjectId'),
  name: { type: 'string' },
  permissions: { type: 'array', items: { enum: [...PERMISSIONS] } },
  created_at: timestamp,
  last_used_at: nullable({
    ...timestamp,
    description: 'Last use, recorded at most every 5 minutes; null before the first.',
  }),
  prefix: { type: 'string', description: 'The first characters of the key (`pkt_` and 8 hex), to tell keys apart.' },
} satisfies FieldsOf<ApiKeyJson>;

const passwordText = { description: '10 to 256 Unicode code points.' };

const publicMaintenanceFields = {
  name: { type: 'string', description: "The window's name." },
  monitors: { type: 'array', items: { type: 'string' }, description: "Names of the page's monitors it covers." },
  starts_at: { ...timestamp, description: 'Start of the occurrence shown (now when under way).' },
  ends_at: { ...timestamp, description: 'End of the occurrence shown.' },
  in_progress: { type: 'boolean', description: 'The occurrence is under way.' },
} satisfies FieldsOf<PublicMaintenance>;

// ---- the components --------------------------------------------------------------------

export function componentSchemas(errorCodes: readonly string[]): Record<string, Schema> {
  const schemas: Record<string, Schema> = {
    ObjectId: objectId,
    Timestamp: timestamp,
    Region: {
      anyOf: [{ enum: [...REGION_IDS] }, { type: 'string', pattern: PRIVATE_REGION_ID_PATTERN.source }],
      description: "A check region: a public one, or one of the account's private regions.",
    },
    ResultRegion: {
      anyOf: [{ enum: [...RESULT_REGIONS] }, { type: 'string', pattern: PRIVATE_REGION_ID_PATTERN.source }],
      description:
        'Where a result came from: a check region (public or private), or `heartbeat` for the pings, reported failures and missed ' +
        'deadlines of a heartbeat monitor (recorded by the coordinator, not checked from a region).',
    },
    Pagination: object(paginationFields),
    FieldProblem: object(fieldProblem),
    Error: object(
      {
        status: { const: 'error' },
        error: object(
          {
            code: { enum: errorCodes },
            message: { type: 'string', description: 'Human-readable; never carries internals.' },
            details: {
              type: 'array',
              items: ref('FieldProblem'),
              description: 'VALIDATION_ERROR only: every problem of the request at once.',
            },
          },
          ['code', 'message'],
        ),
      },
      undefined,
      { description: 'The error envelope of every failed request.' },
    ),

    ...settingsSchemas(),
    MonitorSettings: object(
      Object.fromEntries(MONITOR_TYPES.map((type) => [type, ref(settingsSchemaName(type))])),
      [],
      {
        minProperties: 1,
        maxProperties: 1,
        description: `Exactly one key, which is the monitor type (${MONITOR_TYPES.join(', ')}). A supplied settings object replaces the stored one whole (the type may change).`,
      },
    ),
    Monitor: object(monitorFields),
    MonitorCreate: object(
      { ...monitorWritable, ...readOnlyFields(monitorFields, monitorWritable) },
      monitorCreate.required,
      {
        description: 'Unknown fields are refused (422); read-only fields are ignored.',
      },
    ),
    MonitorUpdate: object(
      {
        ...dtoSchema(UpdateMonitorDto, withoutDefaults(monitorDocs)).properties,
        ...readOnlyFields(monitorFields, monitorWritable),
      },
      dtoSchema(UpdateMonitorDto).required,
      {
        description:
          'Any subset of the create fields; only supplied fields change; supplied arrays and settings replace.',
      },
    ),
    MonitorActivity: object(monitorActivityFields),

    Channel: {
      enum: [...CHANNELS],
      description: `Channel of a contact. Read-only (never created, changed or deleted with an API key): ${CHANNELS.filter((c) => CHANNEL_TABLE[c].readOnly).join(', ')}.`,
    },
    ContactError: object(contactErrorFields),
  };
  for (const group of CHANNEL_GROUPS) {
    schemas[group.name] = detailsResponse(group);
    if (group.readOnly) continue;
    schemas[`${group.name}Input`] = detailsRequest(group, false);
    schemas[`${group.name}Patch`] = detailsRequest(group, true);
  }
  Object.assign(schemas, {
    Contact: object(contactFields, undefined, { oneOf: byChannel(CHANNEL_GROUPS, (g) => g.name) }),
    ContactCreate: object(
      {
        ...contactWritable,
        channel: { enum: WRITABLE_CHANNELS, description: 'Set at creation; cannot change later.' },
        ...readOnlyFields(contactFields, contactWritable),
      },
      ['name', 'channel', 'details'],
      {
        oneOf: byChannel(writableGroups, (g) => `${g.name}Input`),
        description: 'Unknown fields are refused (422); read-only fields are ignored.',
      },
    ),
    ContactUpdate: object(
      {
        ...withoutDefaults(contactWritable),
        channel: { ...ref('Channel'), description: 'Accepted only when equal to the stored channel (422 otherwise).' },
        details: { anyOf: writableGroups.map((g) => ref(`${g.name}Patch`)) },
        ...readOnlyFields(contactFields, contactWritable),
      },
      [],
      { description: 'Any subset of the fields; only supplied fields change.' },
    ),
    ContactState: object(contactStateFields),
    Account: object(accountFields),

    MonitorListResponse: ok({ data: object(page('monitors', 'Monitor')) }, 'A page of monitors.'),
    MonitorResponse: ok({ data: ref('Monitor') }, 'One monitor.'),
    MonitorSummary: object(monitorSummaryFields, undefined, { description: 'One monitor in the summary.' }),
    MonitorSummaryResponse: ok({ data: object(monitorSummaryPageFields) }, 'Every monitor of the account, summarised.'),
    MonitorActivityResponse: ok({ data: ref('MonitorActivity') }, 'The monitor after pause or resume.'),
    ContactListResponse: ok(page('contacts', 'Contact'), 'A page of contacts (top-level keys).'),
    ContactResponse: ok({ contact: ref('Contact') }, 'One contact (top-level key).'),
    ContactReactivateResponse: ok({ data: object({ contact: ref('ContactState') }) }, 'The reactivated contact.'),
    AccountResponse: ok({ data: ref('Account') }, 'The account of the API key.'),
    CheckerRegion: object(
      {
        id: { enum: [...REGION_IDS] },
        name: { type: 'string' },
        continent: { type: 'string' },
        ipv4: {
          type: 'array',
          items: { type: 'string' },
          description: 'IPv4 addresses checks of this region come from.',
        },
        ipv6: {
          type: 'array',
          items: { type: 'string' },
          description: 'IPv6 addresses checks of this region come from.',
        },
      },
      undefined,
      { description: 'One region and the addresses its agents check from.' },
    ),
    Health: object({ status: { const: 'ok' } }, undefined, {
      description: 'The process answers. Never looks at a dependency (docs/operations.md, "Health and readiness").',
    }),
    Readiness: object(
      {
        status: {
          enum: ['ready', 'degraded', 'unavailable'],
          description:
            '`ready`: serve traffic. `degraded`: serve, but something is held back (a database outage left ' +
            'results or status changes in memory). `unavailable` (HTTP 503): do not send traffic.',
        },
        failing: {
          type: 'array',
          items: { type: 'string' },
          description: 'The parts that make the process unavailable, e.g. `database`, `nats`, `shutdown`.',
        },
        checks: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description:
            'Every part (`shutdown`, `database`, `migrations`, `nats` with NATS_URL, `outage_buffers`): `ok` or what is wrong.',
        },
      },
      undefined,
      { description: 'Readiness, also the body of the 503 answer.' },
    ),
    CheckerAddressesResponse: ok(
      { data: object({ regions: { type: 'array', items: ref('CheckerRegion'), minItems: 15, maxItems: 15 } }) },
      'All fifteen regions, in order.',
    ),

    CheckTimings: object(checkTimingsFields, undefined, { description: 'Phase timings of a check, in ms.' }),
    Check: object(checkFields, undefined, { description: 'One check result from one region.' }),
    StatsFigures: object(statsFiguresFields),
    RegionStats: object(regionStatsFields),
    MonitorStats: object(monitorStatsFields, undefined, {
      description: `Uptime and response times. Daily figures are kept at least ${MIN_ROLLUP_DAYS} days.`,
    }),
    CheckListResponse: ok({ data: object(page('checks', 'Check')) }, 'A page of check results.'),
    MonitorStatsResponse: ok({ data: ref('MonitorStats') }, "A monitor's statistics over a period."),
    ContactTestResponse: ok({ data: object(contactTestFields) }, 'The test notification was delivered.'),
    Delivery: object(deliveryFields, undefined, { description: 'One attempt to deliver a notification to a contact.' }),
    DeliveryListResponse: ok({ data: object(page('deliveries', 'Delivery')) }, 'A page of delivery attempts.'),

    RegionEvidence: object(regionEvidenceFields, undefined, { description: "One region's evidence of an incident." }),
    Incident: object(incidentFields, undefined, { description: 'One outage of an active monitor.' }),
    IncidentComment: { ...incidentComment, description: 'Unknown fields are refused (422).' },
    IncidentListResponse: ok({ data: object(page('incidents', 'Incident')) }, 'A page of incidents.'),
    IncidentResponse: ok({ data: ref('Incident') }, 'One incident.'),
    StatusPage: object(statusPageFields, undefined, { description: 'A public status page.' }),
    StatusPageCreate: object(
      { ...statusPageWritable, ...readOnlyFields(statusPageFields, statusPageWritable) },
      statusPageCreate.required,
    ),
    StatusPageUpdate: object(
      { ...statusPageUpdate.properties, ...readOnlyFields(statusPageFields, statusPageWritable) },
      statusPageUpdate.required,
      {
        description: 'Any subset of the fields (PUT and PATCH alike); only supplied fields change.',
      },
    ),
    StatusPageResponse: ok({ data: ref('StatusPage') }, 'One status page.'),
    StatusPageListResponse: ok({ data: object(page('status_pages', 'StatusPage')) }, 'A page of status pages.'),
    MaintenanceWindow: object(maintenanceFields, undefined, {
      description: 'A maintenance window: one-off or recurring.',
    }),
    MaintenanceWindowCreate: object(
      { ...maintenanceWritable, ...readOnlyFields(maintenanceFields, maintenanceWritable) },
      maintenanceCreate.required,
      { description: 'One-off: `ends_at`. Recurring: `rrule` and `duration`. Unknown fields are refused (422).' },
    ),
    MaintenanceWindowUpdate: object(
      { ...maintenanceUpdate.properties, ...readOnlyFields(maintenanceFields, maintenanceWritable) },
      maintenanceUpdate.required,
      { description: 'Any subset of the fields; only supplied fields change, then the window is judged whole.' },
    ),
    MaintenanceWindowResponse: ok({ data: ref('MaintenanceWindow') }, 'One maintenance window.'),
    MaintenanceWindowListResponse: ok(
      { data: object(page('maintenance_windows', 'MaintenanceWindow')) },
      'A page of maintenance windows.',
    ),
    MaintenanceOccurrence: object(occurrenceFields, undefined, { description: 'One occurrence of a window.' }),
    MaintenanceWindowPreviewResponse: ok(
      {
        data: object({
          occurrences: {
            type: 'array',
            items: ref('MaintenanceOccurrence'),
            maxItems: PREVIEW_COUNT,
            description: `The next ${PREVIEW_COUNT} occurrences from now (fewer when the schedule ends), by start; one under way first.`,
          },
        }),
      },
      'The occurrences a window would have; nothing is stored.',
    ),
    PublicRegion: object(publicRegionFields, undefined, { description: 'One of the 15 public regions.' }),
    PrivateRegion: object(privateRegionFields, undefined, {
      description: "One of the account's private regions, checked only by its own agents.",
    }),
    PrivateRegionCreate: object(
      { ...regionWritable, ...readOnlyFields(privateRegionFields, regionWritable) },
      regionCreate.required,
      { description: 'Unknown fields are refused (422).' },
    ),
    PrivateRegionResponse: ok({ data: ref('PrivateRegion') }, 'One private region.'),
    AgentToken: object(agentTokenFields, undefined, {
      description: 'A one-time enrollment token of a private region.',
    }),
    AgentTokenResponse: ok({ data: ref('AgentToken') }, 'A new enrollment token.'),
    RegionAgent: object(enrolledAgentFields, undefined, { description: 'An agent enrolled in a private region.' }),
    RegionAgentListResponse: ok(
      { data: object({ agents: { type: 'array', items: ref('RegionAgent') } }) },
      "The region's enrolled agents.",
    ),
    RegionListResponse: ok(
      {
        data: object({
          regions: { type: 'array', items: { oneOf: [ref('PublicRegion'), ref('PrivateRegion')] } },
        }),
      },
      'The public regions, then the private ones.',
    ),
    PublicDay: object(publicDayFields),
    PublicMonitor: object(publicMonitorFields),
    PublicIncident: object(publicIncidentFields, ['monitor', 'started_at', 'resolved_at']),
    PublicMaintenance: object(publicMaintenanceFields),
    PublicStatusPage: object(publicPageFields, undefined, { description: 'What a public status page shows.' }),
    PublicStatusPageResponse: ok({ data: ref('PublicStatusPage') }, 'A public status page.'),

    SignIn: dtoSchema(SignInDto, { email: { description: 'The email of the user (any case).' } }),
    Setup: dtoSchema(SetupDto, {
      token: { description: 'The token of the setup URL.' },
      email: { description: "The first admin's email." },
      password: passwordText,
    }),
    SetPassword: dtoSchema(SetPasswordDto, {
      token: { description: 'The token of the set-password URL.' },
      password: passwordText,
    }),
    User: object(userFields, undefined, { description: 'A dashboard user. Never carries a password or its hash.' }),
    UserCreate: { ...dtoSchema(CreateUserDto), description: 'Unknown fields are refused (422).' },
    UserUpdate: { ...dtoSchema(UpdateUserDto), description: 'Any subset; only supplied fields change.' },
    UserResponse: ok({ data: ref('User') }, 'One user.'),
    UserCreatedResponse: ok(
      {
        data: object(
          {
            ...userFields,
            set_password_url: {
              type: 'string',
              description: 'One-time URL (valid 24 h) where the user sets their password: hand it to them.',
            },
          },
          undefined,
        ),
      },
      'The new user and their set-password URL.',
    ),
    UserListResponse: ok({ data: object(page('users', 'User')) }, 'A page of users.'),
    Me: object(
      {
        user: object(meUserFields),
        account_id: ref('ObjectId'),
        permissions: {
          type: 'array',
          items: { type: 'string' },
          description: "The role's permissions; admins also `users:manage` and `keys:manage`.",
        },
        csrf_token: {
          type: 'string',
          description: 'Send it as `X-CSRF-Token` with every POST, PUT, PATCH and DELETE of this session.',
        },
      },
      undefined,
      { description: 'The signed-in user.' },
    ),
    MeResponse: ok({ data: ref('Me') }, 'The signed-in user.'),
    ApiKey: object(apiKeyFields, undefined, { description: 'An API key, without the key.' }),
    ApiKeyCreate: dtoSchema(CreateKeyDto, {
      name: { description: 'What the key is for.' },
      permissions: { description: 'Without it, all nine.' },
    }),
    ApiKeyCreatedResponse: ok(
      {
        data: object(
          { ...apiKeyFields, key: { type: 'string', description: 'The whole key: shown this once, never again.' } },
          undefined,
        ),
      },
      'The new key.',
    ),
    ApiKeyListResponse: ok({ data: object(page('keys', 'ApiKey')) }, 'A page of API keys.'),
  });
  return schemas;
}
