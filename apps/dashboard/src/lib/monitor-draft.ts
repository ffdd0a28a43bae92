import { monitorType, type Monitor, type MonitorType } from './monitors.ts';

/** The dashboard's defaults (they differ from the API's on purpose). */
export const DASHBOARD_DEFAULTS = { fail_threshold: 2, timeout: 10, check_interval: 300 } as const;

/** What a settings field holds in the form: text (numbers and lists too, as typed) or a checkbox. */
export type SettingValue = string | boolean;

/**
 * One key of a type's `settings` as the form shows and sends it. `kind` decides the control and
 * the conversion between the API's value and the form's:
 * - `text` / `textarea`: a string, left out when empty (`text` is trimmed);
 * - `checkbox`: a boolean; left out when it equals `absent` (what the API does without the key)
 *   and the key was not stored;
 * - `select`: one of `options`, always sent;
 * - `number`: an integer (text that is not a number is sent as typed, for the API to name);
 * - `lines`: a list of strings, one a line, left out when empty;
 * - `json`: any JSON value, edited as JSON text (text that does not parse is sent as typed).
 */
export interface SettingField {
  key: string;
  label: string;
  kind: 'text' | 'textarea' | 'checkbox' | 'select' | 'number' | 'lines' | 'json';
  /** The value of a new monitor's field. */
  initial: SettingValue;
  options?: readonly string[];
  /** A checkbox: what the API does when the key is missing (default false). */
  absent?: boolean;
  hint?: string;
  placeholder?: string;
}

const url = (placeholder: string, hint?: string): SettingField => ({
  key: 'url',
  label: 'Address',
  kind: 'text',
  initial: '',
  placeholder,
  hint: hint ?? `For example ${placeholder}`,
});

/**
 * Every settings key of every type the API takes (docs/api.md, the monitor types), in the
 * order the form shows them. A key missing here would still survive an edit (`bodyOf` sends
 * back the stored keys the form does not know), but could not be set from the dashboard.
 */
export const SETTINGS_FIELDS: Record<MonitorType, readonly SettingField[]> = {
  https: [
    url('https://example.com/health'),
    {
      key: 'http_method',
      label: 'Method',
      kind: 'select',
      initial: 'GET',
      options: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    },
    {
      key: 'http_statuses',
      label: 'Accepted statuses',
      kind: 'text',
      initial: '',
      placeholder: '200-399',
      hint: 'Default 200-399',
    },
    {
      key: 'check_certificate_expiration',
      label: 'Warn before the TLS certificate expires',
      kind: 'checkbox',
      initial: true,
    },
    { key: 'follow_redirect', label: 'Follow redirects', kind: 'checkbox', initial: true, absent: true },
    {
      key: 'ignore_tls_errors',
      label: 'Accept an invalid or self-signed certificate',
      kind: 'checkbox',
      initial: false,
    },
    {
      key: 'request_headers',
      label: 'Request headers',
      kind: 'textarea',
      initial: '',
      hint: 'One “Name: value” a line',
    },
    { key: 'request_body', label: 'Request body', kind: 'textarea', initial: '' },
    { key: 'response_body', label: 'Response must contain', kind: 'text', initial: '' },
    { key: 'response_body_absent', label: 'Response must not contain', kind: 'text', initial: '' },
    {
      key: 'json_assertions',
      label: 'JSON assertions',
      kind: 'json',
      initial: '',
      placeholder: '[{"path": "$.status", "op": "eq", "value": "ok"}]',
      hint: 'A JSON list of {"path", "op", "value"}: op is eq, ne, contains, lt, gt or exists; at most 10',
    },
  ],
  tcp: [url('tcp://db.example.com:5432')],
  ping: [url('ping://example.com')],
  dns: [
    url('dns://example.com'),
    {
      key: 'record_type',
      label: 'Record type',
      kind: 'select',
      initial: 'A',
      options: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'CAA', 'SOA'],
    },
    {
      key: 'resolver',
      label: 'Resolver',
      kind: 'text',
      initial: '',
      placeholder: '9.9.9.9',
      hint: 'An IP address with an optional port; empty: the agent’s own resolver',
    },
    {
      key: 'expected',
      label: 'Expected values',
      kind: 'lines',
      initial: '',
      hint: 'One a line; each must be among the answers. Empty: any answer will do',
    },
  ],
  heartbeat: [
    {
      key: 'period',
      label: 'Expect a ping every (seconds)',
      kind: 'number',
      initial: '3600',
      hint: '60 to 2592000 (30 days): how often the job runs',
    },
    {
      key: 'grace',
      label: 'Grace (seconds)',
      kind: 'number',
      initial: '300',
      hint: '60 to 86400: how late a ping may be before the monitor is down',
    },
  ],
};

/** Read-only settings keys the API adds; never sent. */
const READ_ONLY_SETTINGS = new Set(['ping_url']);

export const isProbed = (type: MonitorType) => type !== 'heartbeat';

export interface MonitorDraft {
  name: string;
  type: MonitorType;
  regions: string[];
  check_interval: string;
  timeout: string;
  fail_threshold: string;
  contacts: string[];
  /** Each type's settings fields by key, so switching the type and back keeps what was typed. */
  settings: Record<MonitorType, Record<string, SettingValue>>;
  /** The settings as stored (editing): keys the form does not show are sent back unchanged. */
  stored: { type: MonitorType; settings: Record<string, unknown> } | null;
}

function initialSettings(): Record<MonitorType, Record<string, SettingValue>> {
  const entries = (Object.keys(SETTINGS_FIELDS) as MonitorType[]).map(
    (type) => [type, Object.fromEntries(SETTINGS_FIELDS[type].map((f) => [f.key, f.initial]))] as const,
  );
  return Object.fromEntries(entries) as Record<MonitorType, Record<string, SettingValue>>;
}

export function emptyDraft(): MonitorDraft {
  return {
    name: '',
    type: 'https',
    regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'],
    check_interval: String(DASHBOARD_DEFAULTS.check_interval),
    timeout: String(DASHBOARD_DEFAULTS.timeout),
    fail_threshold: String(DASHBOARD_DEFAULTS.fail_threshold),
    contacts: [],
    settings: initialSettings(),
    stored: null,
  };
}

/** The form's value of a stored setting (absent: what a field left empty or unticked means). */
function toValue(field: SettingField, value: unknown): SettingValue {
  switch (field.kind) {
    case 'checkbox':
      return typeof value === 'boolean' ? value : (field.absent ?? false);
    case 'number':
      return typeof value === 'number' ? String(value) : '';
    case 'lines':
      return Array.isArray(value) ? value.join('\n') : '';
    case 'json':
      return value === undefined ? '' : JSON.stringify(value, null, 1);
    case 'select':
      return typeof value === 'string' ? value : field.initial;
    default:
      return typeof value === 'string' ? value : '';
  }
}

/** The API's value of a form field; undefined when the field is left out of the body. */
function fromValue(field: SettingField, value: SettingValue, wasStored: boolean): unknown {
  if (typeof value === 'boolean') return value === (field.absent ?? false) && !wasStored ? undefined : value;
  switch (field.kind) {
    case 'text':
      return field.key === 'url' || value.trim() !== '' ? value.trim() : undefined;
    case 'textarea':
      return value.trim() === '' ? undefined : value;
    case 'select':
      return value;
    case 'number':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    case 'lines': {
      const lines = value
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      return lines.length === 0 ? undefined : lines;
    }
    case 'json':
      if (value.trim() === '') return undefined;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    case 'checkbox':
      return undefined;
  }
}

export function draftOf(m: Monitor): MonitorDraft {
  const type = monitorType(m);
  const stored = (m.settings[type] ?? {}) as Record<string, unknown>;
  const draft = emptyDraft();
  draft.settings[type] = Object.fromEntries(SETTINGS_FIELDS[type].map((f) => [f.key, toValue(f, stored[f.key])]));
  return {
    ...draft,
    name: m.name,
    type,
    regions: m.regions.length > 0 ? m.regions : draft.regions,
    check_interval: String(m.check_interval),
    timeout: String(m.timeout),
    fail_threshold: String(m.fail_threshold),
    contacts: m.contacts,
    stored: { type, settings: stored },
  };
}

/** The `settings` of a draft: the stored keys the form does not know (same type), then every field the form shows. */
export function settingsOf(draft: MonitorDraft): Record<string, unknown> {
  const fields = SETTINGS_FIELDS[draft.type];
  const known = new Set(fields.map((f) => f.key));
  const stored = draft.stored?.type === draft.type ? draft.stored.settings : {};
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored))
    if (!known.has(key) && !READ_ONLY_SETTINGS.has(key)) settings[key] = value;
  for (const field of fields) {
    const value = fromValue(
      field,
      draft.settings[draft.type][field.key] ?? field.initial,
      Object.hasOwn(stored, field.key),
    );
    if (value !== undefined) settings[field.key] = value;
  }
  return settings;
}

/** The API body of a draft: numbers as numbers (a non-number is sent as is, for the API to name), optional fields only when set. */
export function bodyOf(draft: MonitorDraft): Record<string, unknown> {
  const number = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);
  const body: Record<string, unknown> = {
    name: draft.name,
    settings: { [draft.type]: settingsOf(draft) },
    regions: isProbed(draft.type) ? draft.regions : [],
    contacts: draft.contacts,
  };
  // A heartbeat has no checks to time: the API keeps (or defaults) these, the form hides them.
  if (isProbed(draft.type)) {
    body.check_interval = number(draft.check_interval);
    body.timeout = number(draft.timeout);
    body.fail_threshold = number(draft.fail_threshold);
  }
  return body;
}

/** The form fields that show an error of the API's `details`. */
export function shownFields(type: MonitorType): string[] {
  const base = ['name', 'contacts', ...SETTINGS_FIELDS[type].map((f) => `settings.${type}.${f.key}`)];
  return isProbed(type) ? [...base, 'regions', 'check_interval', 'timeout', 'fail_threshold'] : base;
}
