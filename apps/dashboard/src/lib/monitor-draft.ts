import { monitorType, monitorUrl, type Monitor, type MonitorType } from './monitors.ts';

/** The dashboard's defaults (they differ from the API's on purpose). */
export const DASHBOARD_DEFAULTS = { fail_threshold: 2, timeout: 10, check_interval: 300 } as const;

export interface MonitorDraft {
  name: string;
  type: MonitorType;
  url: string;
  regions: string[];
  check_interval: string;
  timeout: string;
  fail_threshold: string;
  contacts: string[];
  check_certificate_expiration: boolean;
  http_method: string;
  http_statuses: string;
  follow_redirect: boolean;
  request_headers: string;
  request_body: string;
  response_body: string;
}

export function emptyDraft(): MonitorDraft {
  return {
    name: '',
    type: 'https',
    url: '',
    regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'],
    check_interval: String(DASHBOARD_DEFAULTS.check_interval),
    timeout: String(DASHBOARD_DEFAULTS.timeout),
    fail_threshold: String(DASHBOARD_DEFAULTS.fail_threshold),
    contacts: [],
    check_certificate_expiration: true,
    http_method: 'GET',
    http_statuses: '',
    follow_redirect: true,
    request_headers: '',
    request_body: '',
    response_body: '',
  };
}

export function draftOf(m: Monitor): MonitorDraft {
  const https = m.settings.https;
  return {
    ...emptyDraft(),
    name: m.name,
    type: monitorType(m),
    url: monitorUrl(m),
    regions: m.regions,
    check_interval: String(m.check_interval),
    timeout: String(m.timeout),
    fail_threshold: String(m.fail_threshold),
    contacts: m.contacts,
    check_certificate_expiration: https?.check_certificate_expiration ?? false,
    http_method: https?.http_method ?? 'GET',
    http_statuses: https?.http_statuses ?? '',
    follow_redirect: https?.follow_redirect ?? true,
    request_headers: https?.request_headers ?? '',
    request_body: https?.request_body ?? '',
    response_body: https?.response_body ?? '',
  };
}

/** The API body of a draft: numbers as numbers (a non-number is sent as is, for the API to name), optional fields only when set. */
export function bodyOf(draft: MonitorDraft): Record<string, unknown> {
  const number = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text);
  const settings: Record<string, unknown> = { url: draft.url.trim() };
  if (draft.type === 'https') {
    settings.check_certificate_expiration = draft.check_certificate_expiration;
    settings.http_method = draft.http_method;
    settings.follow_redirect = draft.follow_redirect;
    if (draft.http_statuses.trim()) settings.http_statuses = draft.http_statuses.trim();
    if (draft.request_headers.trim()) settings.request_headers = draft.request_headers;
    if (draft.request_body) settings.request_body = draft.request_body;
    if (draft.response_body) settings.response_body = draft.response_body;
  }
  return {
    name: draft.name,
    settings: { [draft.type]: settings },
    regions: draft.regions,
    check_interval: number(draft.check_interval),
    timeout: number(draft.timeout),
    fail_threshold: number(draft.fail_threshold),
    contacts: draft.contacts,
  };
}

/** The form fields that show an error of the API's `details`. */
export function shownFields(type: MonitorType): string[] {
  const base = ['name', 'regions', 'check_interval', 'timeout', 'fail_threshold', 'contacts', `settings.${type}.url`];
  if (type !== 'https') return base;
  return [
    ...base,
    ...[
      'check_certificate_expiration',
      'http_method',
      'http_statuses',
      'follow_redirect',
      'request_headers',
      'request_body',
      'response_body',
    ].map((f) => `settings.https.${f}`),
  ];
}
