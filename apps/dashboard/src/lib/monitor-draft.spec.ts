import { describe, expect, it } from '@jest/globals';
import {
  bodyOf,
  DASHBOARD_DEFAULTS,
  draftOf,
  emptyDraft,
  SETTINGS_FIELDS,
  shownFields,
  type MonitorDraft,
} from './monitor-draft.ts';
import { MONITOR_TYPES, type Monitor, type MonitorType } from './monitors.ts';

/** A draft of `type` with some of its settings fields filled in. */
function draft(type: MonitorType, values: Record<string, string | boolean>, rest: Partial<MonitorDraft> = {}) {
  const d = emptyDraft();
  return { ...d, ...rest, type, settings: { ...d.settings, [type]: { ...d.settings[type], ...values } } };
}

const monitor = (settings: Monitor['settings'], regions = ['eu-west-1', 'us-east-1']): Monitor => ({
  id: 'a'.repeat(24),
  name: 'API',
  active: true,
  check_interval: 60,
  timeout: 30,
  fail_threshold: 3,
  regions,
  settings,
  contacts: ['b'.repeat(24)],
  last_status: 'up',
  last_status_change: 1,
  last_checked_at: 1,
  created_at: 1,
  updated_at: 1,
});

/** Every settings key of every type (docs/api.md), set to something other than its default. */
const EVERY_SETTING: Record<MonitorType, Monitor['settings']> = {
  https: {
    https: {
      url: 'https://api.example.com/health',
      check_certificate_expiration: false,
      http_method: 'POST',
      http_statuses: '200-299,301',
      request_headers: 'Accept: application/json\nX-Probe: picket',
      request_body: '{"ping": true}',
      response_body: 'ok',
      follow_redirect: false,
      response_body_absent: 'error',
      json_assertions: [
        { path: '$.status', op: 'eq', value: 'ok' },
        { path: '$.items', op: 'exists' },
        { path: '$.load', op: 'lt', value: 0.8 },
      ],
      ignore_tls_errors: true,
    },
  },
  tcp: { tcp: { url: 'tcp://db.example.com:5432' } },
  ping: { ping: { url: 'ping://example.com' } },
  dns: {
    dns: { url: 'dns://example.com', record_type: 'MX', resolver: '9.9.9.9:53', expected: ['10 mx.example.com'] },
  },
  heartbeat: { heartbeat: { period: 86_400, grace: 3600, ping_url: 'http://127.0.0.1/ping/abc' } },
};

describe('the monitor form', () => {
  it("starts from the dashboard's defaults, not the API's (fail_threshold 2, timeout 10, check_interval 300)", () => {
    expect(DASHBOARD_DEFAULTS).toEqual({ fail_threshold: 2, timeout: 10, check_interval: 300 });
    const body = bodyOf({ ...draft('https', { url: 'https://shop.example.com/' }), name: 'Shop' });
    expect(body).toMatchObject({ fail_threshold: 2, timeout: 10, check_interval: 300 });
    // What a new HTTPS monitor sends: what differs from the API's defaults, and the method.
    expect(body.settings).toEqual({
      https: { url: 'https://shop.example.com/', http_method: 'GET', check_certificate_expiration: true },
    });
  });

  it('sends one settings key, with only what that type takes (what was typed for another type stays out)', () => {
    const d = draft('https', { url: 'https://x.example/', http_statuses: '200', ignore_tls_errors: true });
    const tcp = bodyOf({ ...d, type: 'tcp', settings: { ...d.settings, tcp: { url: ' tcp://db.example.com:5432 ' } } });
    expect(tcp.settings).toEqual({ tcp: { url: 'tcp://db.example.com:5432' } });
    expect(bodyOf(d).settings).toEqual({
      https: {
        url: 'https://x.example/',
        http_method: 'GET',
        http_statuses: '200',
        check_certificate_expiration: true,
        ignore_tls_errors: true,
      },
    });
  });

  it('sends DNS lists one a line and JSON assertions as JSON; text that is not JSON as typed, for the API to name', () => {
    expect(bodyOf(draft('dns', { url: 'dns://example.com', expected: ' a.example\n\n b.example ' })).settings).toEqual({
      dns: { url: 'dns://example.com', record_type: 'A', expected: ['a.example', 'b.example'] },
    });
    const json = draft('https', { url: 'https://x.example/', json_assertions: '[{"path":"$.a","op":"exists"}]' });
    expect(bodyOf(json).settings).toMatchObject({ https: { json_assertions: [{ path: '$.a', op: 'exists' }] } });
    const broken = draft('https', { url: 'https://x.example/', json_assertions: '[{path: 1' });
    expect(bodyOf(broken).settings).toMatchObject({ https: { json_assertions: '[{path: 1' } });
  });

  it('sends a number field that is not a number as typed, for the API to name it', () => {
    expect(bodyOf({ ...emptyDraft(), timeout: 'ten', check_interval: '' })).toMatchObject({
      timeout: 'ten',
      check_interval: '',
    });
    expect(bodyOf({ ...emptyDraft(), timeout: '15' })).toMatchObject({ timeout: 15 });
    expect(bodyOf(draft('heartbeat', { period: '1 h', grace: '600' })).settings).toEqual({
      heartbeat: { period: '1 h', grace: 600 },
    });
  });

  it('sends a heartbeat with no regions and without the check timings that do not apply to it', () => {
    const body = bodyOf({ ...draft('heartbeat', { period: '86400', grace: '3600' }), name: 'Backup' });
    expect(body).toEqual({
      name: 'Backup',
      settings: { heartbeat: { period: 86_400, grace: 3600 } },
      regions: [],
      contacts: [],
    });
  });

  it.each(MONITOR_TYPES)('edits a %s monitor with every setting set and sends every setting back unchanged', (type) => {
    const m = monitor(EVERY_SETTING[type], type === 'heartbeat' ? [] : undefined);
    const { ping_url: _readOnly, ...sent } = EVERY_SETTING[type][type] as Record<string, unknown>;
    const edited = { ...draftOf(m), name: 'Renamed' };
    expect(bodyOf(edited)).toMatchObject({ name: 'Renamed', settings: { [type]: sent } });
    expect(bodyOf(edited).settings).toEqual({ [type]: sent });
  });

  it('has a form field for every settings key of every type', () => {
    for (const type of MONITOR_TYPES) {
      const keys = Object.keys(EVERY_SETTING[type][type]!).filter((k) => k !== 'ping_url');
      expect(SETTINGS_FIELDS[type].map((f) => f.key).sort()).toEqual(keys.sort());
    }
  });

  it('sends back a stored key the form does not know, but not when the type changed', () => {
    const m = monitor({
      https: { url: 'https://x.example/', check_certificate_expiration: true, future_key: 7 } as never,
    });
    expect(bodyOf(draftOf(m)).settings).toEqual({
      https: { url: 'https://x.example/', check_certificate_expiration: true, http_method: 'GET', future_key: 7 },
    });
    const d = draftOf(m);
    const asTcp = { ...d, type: 'tcp' as const, settings: { ...d.settings, tcp: { url: 'tcp://x.example:1' } } };
    expect(bodyOf(asTcp).settings).toEqual({ tcp: { url: 'tcp://x.example:1' } });
  });

  it('leaves out a field the user emptied, and an optional checkbox unticked that was never stored', () => {
    const d = draftOf(monitor(EVERY_SETTING.https));
    const emptied = {
      ...d,
      settings: { ...d.settings, https: { ...d.settings.https, response_body: '', json_assertions: ' ' } },
    };
    const sent = bodyOf(emptied).settings as { https: Record<string, unknown> };
    expect(sent.https).not.toHaveProperty('response_body');
    expect(sent.https).not.toHaveProperty('json_assertions');
    expect(bodyOf(draft('https', { url: 'https://x/' })).settings).not.toHaveProperty('https.ignore_tls_errors');
  });

  it("shows the API's errors on the fields of the chosen type", () => {
    expect(shownFields('ping')).toContain('settings.ping.url');
    expect(shownFields('ping')).not.toContain('settings.https.http_method');
    expect(shownFields('https')).toContain('settings.https.json_assertions');
    expect(shownFields('dns')).toContain('settings.dns.expected');
    expect(shownFields('heartbeat')).toEqual(
      expect.arrayContaining(['settings.heartbeat.period', 'settings.heartbeat.grace']),
    );
    expect(shownFields('heartbeat')).not.toContain('regions');
  });
});
