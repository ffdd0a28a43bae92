import { classifyHost, hasUnsafeCharacters, MAX_URL_LENGTH, parseHttpUrl, schemePattern } from '#contracts';
import {
  arrayOf,
  boolean,
  type Checker,
  described,
  Field,
  integer,
  isPlainObject,
  oneOf,
  record,
  text,
} from '#validation';

/**
 * Contact channels (docs/decisions/0006-contacts.md): one details DTO per channel, its secret
 * fields, the defaults of its optional fields and what the API shows beside them, in one
 * compiler-checked table. A new channel is one details class (or an existing one) and one line in
 * CHANNEL_TABLE; its notifier is a folder under notify/channels/ and one line in
 * notify/notifiers.ts, whose table is a mapped type over Channel (a channel without a notifier, or
 * a notifier without a channel, does not compile).
 */

export const REDACTED = '[REDACTED]';

/** Bounds and vocabularies of the details fields, shared by the checkers and the OpenAPI document. */
export const DETAIL_LIMITS = {
  emailLength: 254,
  credentialLength: 512,
  credentialPattern: /^[\x21-\x7e]+$/,
  webhookSecretPattern: /^whsec_([A-Za-z0-9+/]+={0,2})$/,
  webhookSecretBytes: { min: 24, max: 64 },
  zendeskSubdomainPattern: /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
  tag: { length: 50, count: 20 },
  responders: { count: 50, idLength: 128, types: ['team', 'user', 'escalation', 'schedule'] },
  customFields: { count: 50, valueLength: 1000 },
  alertPriorities: ['P1', 'P2', 'P3', 'P4', 'P5'],
  ticketPriorities: ['low', 'normal', 'high', 'urgent'],
  severityLevels: ['critical', 'error', 'warning', 'info'],
} as const;

// ---- checkers --------------------------------------------------------------------------
// Each carries the JSON Schema of what it accepts (`described`): the OpenAPI document builds the
// details schemas from these DTOs (docs/decisions/0016-openapi-from-declarations.md).

export const emailAddress: Checker = described(
  (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (value.length > DETAIL_LIMITS.emailLength) return `must be at most ${DETAIL_LIMITS.emailLength} characters long`;
    const at = value.lastIndexOf('@');
    const local = value.slice(0, at);
    const domain = value.slice(at + 1);
    if (at <= 0 || local.length > 64 || hasUnsafeCharacters(local) || /[<>(),;:"[\]\\]/.test(local)) {
      return 'must be an email address';
    }
    const host = classifyHost(domain);
    if (!host.ok || host.value.kind !== 'name' || !domain.includes('.')) return 'must be an email address';
    return null;
  },
  { type: 'string', format: 'email', maxLength: DETAIL_LIMITS.emailLength, description: 'An email address.' },
);

const url = (httpsOnly: boolean): Checker =>
  described(
    (value) => {
      if (typeof value !== 'string') return 'must be a string';
      const parsed = parseHttpUrl(value);
      if (!parsed.ok) return parsed.problem;
      if (httpsOnly && parsed.value.protocol !== 'https:') return 'must be an https:// URL';
      return null;
    },
    {
      type: 'string',
      maxLength: MAX_URL_LENGTH,
      pattern: httpsOnly ? schemePattern('https') : schemePattern('http', true),
      description: httpsOnly ? 'An `https://` URL.' : 'An absolute `http://` or `https://` URL.',
    },
  );
export const httpsUrl = url(true);
export const httpOrHttpsUrl = url(false);

/**
 * An opaque credential: printable, no spaces, and not the redaction marker itself (the document
 * says so where a secret is written: openapi.schemas.ts, detailsRequest).
 */
export const secretToken: Checker = described(
  (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (value === REDACTED) return `must be the real value, not ${REDACTED}`;
    const { credentialLength, credentialPattern } = DETAIL_LIMITS;
    if (value.length === 0 || value.length > credentialLength || !credentialPattern.test(value)) {
      return `must be 1 to ${credentialLength} printable characters without spaces`;
    }
    return null;
  },
  {
    type: 'string',
    minLength: 1,
    maxLength: DETAIL_LIMITS.credentialLength,
    pattern: DETAIL_LIMITS.credentialPattern.source,
    description: 'A credential: printable ASCII, no spaces.',
  },
);

/** Standard Webhooks secret: `whsec_` + base64 of 24 to 64 random bytes. */
export const webhookSecret: Checker = described(
  (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (value === REDACTED) return `must be the real value, not ${REDACTED}`;
    const { webhookSecretPattern, webhookSecretBytes } = DETAIL_LIMITS;
    const m = webhookSecretPattern.exec(value);
    const bytes = m?.[1] ? Buffer.from(m[1], 'base64').length : 0;
    if (!m || bytes < webhookSecretBytes.min || bytes > webhookSecretBytes.max) {
      return `must be whsec_ followed by the base64 of ${webhookSecretBytes.min} to ${webhookSecretBytes.max} random bytes`;
    }
    return null;
  },
  {
    type: 'string',
    pattern: DETAIL_LIMITS.webhookSecretPattern.source,
    description: `\`whsec_\` + base64 of ${DETAIL_LIMITS.webhookSecretBytes.min} to ${DETAIL_LIMITS.webhookSecretBytes.max} random bytes; enables Standard Webhooks signing.`,
  },
);

const SEVERITY_KEYS = ['critical', 'high', 'medium', 'low'] as const;
const SEVERITY_VALUES = DETAIL_LIMITS.severityLevels;
export const DEFAULT_SEVERITY_MAPPING = { critical: 'critical', high: 'error', medium: 'warning', low: 'info' };

export const severityMapping: Checker = described(
  (value) => {
    if (!isPlainObject(value)) return 'must be an object';
    for (const [key, level] of Object.entries(value)) {
      if (!(SEVERITY_KEYS as readonly string[]).includes(key))
        return `has an unknown key "${key}" (${SEVERITY_KEYS.join(', ')})`;
      const problem = oneOf(SEVERITY_VALUES)(level);
      if (problem) return `${key} ${problem}`;
    }
    return null;
  },
  {
    type: 'object',
    properties: Object.fromEntries(SEVERITY_KEYS.map((key) => [key, { enum: [...SEVERITY_VALUES] }])),
    additionalProperties: false,
  },
);

const { tag: tagLimits, responders: responderLimits, customFields: customFieldLimits } = DETAIL_LIMITS;
const tag = text({ max: tagLimits.length, min: 1, notBlank: true });
const tags = arrayOf(tag, { max: tagLimits.count, unique: true });
const responders = arrayOf(
  record({
    type: oneOf(responderLimits.types),
    id: text({ max: responderLimits.idLength, min: 1, notBlank: true }),
  }),
  { max: responderLimits.count },
);
const customFields = arrayOf(
  record({
    id: integer(1, Number.MAX_SAFE_INTEGER),
    value: text({ max: customFieldLimits.valueLength, multiline: true }),
  }),
  { max: customFieldLimits.count },
);
const zendeskSubdomain: Checker = described(
  (value) =>
    typeof value === 'string' && DETAIL_LIMITS.zendeskSubdomainPattern.test(value)
      ? null
      : 'must be a Zendesk subdomain (lowercase letters, digits and hyphens)',
  {
    type: 'string',
    pattern: DETAIL_LIMITS.zendeskSubdomainPattern.source,
    description: 'Account subdomain: lowercase letters, digits and hyphens.',
  },
);

// ---- details DTOs ----------------------------------------------------------------------

export class EmailDetails {
  @Field(emailAddress) email!: string;
}

export class WebhookDetails {
  @Field(httpOrHttpsUrl) url!: string;
  @Field(webhookSecret, { optional: true, nullable: true }) secret?: string | null;
}

export class ChatWebhookDetails {
  @Field(httpsUrl) webhook_url!: string;
}

export class PagingDetails {
  @Field(secretToken) integration_key!: string;
  @Field(severityMapping, { optional: true }) severity_mapping?: Record<string, string>;
  @Field(boolean, { optional: true }) auto_resolve_incidents?: boolean;
}

export class IncidentMgmtDetails {
  @Field(httpsUrl) webhook_url!: string;
  @Field(secretToken) bearer_token!: string;
  @Field(boolean, { optional: true }) auto_resolve_incidents?: boolean;
}

export class AlertingDetails {
  @Field(secretToken) api_key!: string;
  @Field(oneOf(DETAIL_LIMITS.alertPriorities), { optional: true }) priority?: string;
  @Field(responders, { optional: true }) responders?: { type: string; id: string }[];
  @Field(tags, { optional: true }) tags?: string[];
  @Field(boolean, { optional: true }) auto_close_alerts?: boolean;
  @Field(boolean, { optional: true }) eu_instance?: boolean;
}

export class TicketingDetails {
  @Field(zendeskSubdomain) subdomain!: string;
  @Field(emailAddress) email!: string;
  @Field(secretToken) api_token!: string;
  @Field(oneOf(DETAIL_LIMITS.ticketPriorities), { optional: true }) priority?: string;
  @Field(customFields, { optional: true }) custom_fields?: { id: number; value: string }[];
  @Field(tags, { optional: true }) tags?: string[];
  @Field(boolean, { optional: true }) auto_solve_tickets?: boolean;
}

/** A browser's PushSubscription, registered through the admin CLI, never the API. */
export class PushDetails {
  @Field(httpsUrl) endpoint!: string;
  @Field(record({ p256dh: text({ max: 256, min: 1 }), auth: text({ max: 256, min: 1 }) })) keys!: {
    p256dh: string;
    auth: string;
  };
}

/** The optional fields of a details class. */
type OptionalKeys<D> = { [K in keyof D]-?: undefined extends D[K] ? K : never }[keyof D];

export interface ChannelDefinition {
  /** The DTO the whole details object is validated against. */
  details: new () => object;
  /** Fields returned as [REDACTED]; on PUT, [REDACTED] keeps the stored value. */
  secrets: readonly string[];
  /** Values of optional fields when left out; these are always returned. */
  defaults: Readonly<Record<string, unknown>>;
  /** Read-only channels are never created, changed or deleted through the API. */
  readOnly: boolean;
  /** Of a read-only channel: the 422 message when an API key tries to create one. */
  createRefusal?: string;
  /** Fields the API shows after the stored ones, derived from them (never a secret). */
  shown?: (details: Record<string, unknown>) => Record<string, unknown>;
}

/** One channel's line: secrets and defaults are checked against the fields of its details class. */
function defineChannel<D extends object>(
  details: new () => D,
  options: {
    secrets?: readonly (keyof D & string)[];
    defaults?: { readonly [K in OptionalKeys<D>]?: Exclude<D[K], undefined> } & {
      readonly [K in Exclude<keyof D, OptionalKeys<D>>]?: never;
    };
    readOnly?: { createRefusal: string };
    shown?: ChannelDefinition['shown'];
  } = {},
): Omit<ChannelDefinition, 'details'> & { details: new () => D } {
  const { secrets = [], defaults = {}, readOnly, shown } = options;
  return {
    details,
    secrets,
    defaults,
    readOnly: readOnly !== undefined,
    createRefusal: readOnly?.createRefusal,
    shown,
  };
}

const DEFINITIONS = {
  email: defineChannel(EmailDetails),
  webhook: defineChannel(WebhookDetails, { secrets: ['secret'], defaults: { secret: null } }),
  chatone: defineChannel(ChatWebhookDetails),
  chattwo: defineChannel(ChatWebhookDetails),
  chatthree: defineChannel(ChatWebhookDetails),
  paging: defineChannel(PagingDetails, {
    secrets: ['integration_key'],
    defaults: { severity_mapping: DEFAULT_SEVERITY_MAPPING, auto_resolve_incidents: true },
  }),
  incidentmgmt: defineChannel(IncidentMgmtDetails, {
    secrets: ['bearer_token'],
    defaults: { auto_resolve_incidents: true },
  }),
  alerting: defineChannel(AlertingDetails, {
    secrets: ['api_key'],
    defaults: { priority: 'P3', responders: [], tags: [], auto_close_alerts: true, eu_instance: false },
  }),
  ticketing: defineChannel(TicketingDetails, {
    secrets: ['api_token'],
    defaults: { priority: 'normal', custom_fields: [], tags: [], auto_solve_tickets: true },
  }),
  push: defineChannel(PushDetails, {
    secrets: ['endpoint', 'keys'],
    readOnly: { createRefusal: 'push contacts are registered by browsers and cannot be created with an API key' },
    shown: (details) => (typeof details.endpoint === 'string' ? { endpoint_host: new URL(details.endpoint).host } : {}),
  }),
};

export type Channel = keyof typeof DEFINITIONS;

export const CHANNEL_TABLE: { readonly [K in Channel]: ChannelDefinition } = DEFINITIONS;

/** The channels in table order (the order of every message and document that lists them). */
export const CHANNELS = Object.keys(CHANNEL_TABLE) as readonly Channel[];

/** Stored details per channel: every field present (defaults filled by completeDetails). */
export type ChannelDetails = { [K in Channel]: Required<InstanceType<(typeof DEFINITIONS)[K]['details']>> };

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && Object.hasOwn(CHANNEL_TABLE, value);
}

/**
 * The stored form of validated details: every field of the channel, in declaration order,
 * with defaults filled in and partial objects (severity_mapping) completed from defaults.
 */
export function completeDetails(channel: Channel, details: Record<string, unknown>): Record<string, unknown> {
  const { defaults } = CHANNEL_TABLE[channel];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) if (value !== undefined && value !== null) out[key] = value;
  for (const [key, fallback] of Object.entries(defaults)) {
    const given = out[key];
    if (given === undefined) out[key] = fallback;
    else if (isPlainObject(given) && isPlainObject(fallback)) out[key] = { ...fallback, ...given };
  }
  return out;
}

/** Details as the API shows them: secrets that are set become [REDACTED]. */
export function redactDetails(channel: Channel, details: Record<string, unknown>): Record<string, unknown> {
  const { secrets, shown } = CHANNEL_TABLE[channel];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
    out[key] = secrets.includes(key) && value !== null && value !== undefined ? REDACTED : value;
  }
  return shown ? Object.assign(out, shown(details)) : out;
}
