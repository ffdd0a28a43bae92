import { describe, expect, it } from '@jest/globals';
import { checkInput } from '#validation';
import { typeKeyedSettingsDto, splitSettings } from './monitor-settings.js';
import { HTTPS_OPTIONAL_FIELDS, keepSendableHeaderLines } from './monitor-types/https.js';
import { toWireRequest, WireProbeRequestDto } from './probe.js';
import {
  isMonitorType,
  isProbedType,
  literalAddressOf,
  MONITOR_TYPE_TABLE,
  MONITOR_TYPES,
  PROBED_TYPE_TABLE,
  PROBED_TYPES,
  type ProbedType,
  type SettingsByType,
} from './monitor-types.js';

interface Example<K extends ProbedType> {
  /** The least `settings.<type>` the API accepts. */
  minimal: Record<string, unknown>;
  /** What that is stored as. */
  stored: SettingsByType[K];
  /** A target of this type written as an IP literal and the address it names; or one the type refuses. */
  literal: [url: string, address: string] | { refused: string };
  /** A target of this type written as a host name. */
  named: string;
}

/** One row per probed monitor type (a mapped type: a new type does not compile until it has its row). */
const EXAMPLES: { readonly [K in ProbedType]: Example<K> } = {
  https: {
    minimal: { url: 'https://example.com/health' },
    stored: { url: 'https://example.com/health', check_certificate_expiration: false },
    literal: ['https://[2001:db8::1]:8443/x', '2001:db8::1'],
    named: 'http://example.com',
  },
  tcp: {
    minimal: { url: 'tcp://db.internal:5432' },
    stored: { url: 'tcp://db.internal:5432' },
    literal: ['tcp://192.0.2.1:22', '192.0.2.1'],
    named: 'tcp://db.internal:5432',
  },
  ping: {
    minimal: { url: 'ping://[::1]' },
    stored: { url: 'ping://[::1]' },
    literal: ['ping://169.254.169.254', '169.254.169.254'],
    named: 'ping://example.com',
  },
  dns: {
    minimal: { url: 'dns://example.com' },
    stored: { url: 'dns://example.com', record_type: 'A' },
    literal: { refused: 'dns://192.0.2.1' },
    named: 'dns://example.com',
  },
};

const SettingsDto = typeKeyedSettingsDto('TestSettingsDto');

describe('the monitor type table', () => {
  it('lists the types in table order, the probed ones first', () => {
    expect(MONITOR_TYPES).toEqual(['https', 'tcp', 'ping', 'dns', 'heartbeat']);
    expect(PROBED_TYPES).toEqual(['https', 'tcp', 'ping', 'dns']);
    expect(MONITOR_TYPES.every(isMonitorType)).toBe(true);
    expect(MONITOR_TYPES.filter(isProbedType)).toEqual(PROBED_TYPES);
    expect(['cron', 'toString', '__proto__', 'HTTPS', 1].some(isMonitorType)).toBe(false);
  });

  describe.each(PROBED_TYPES.map((type) => [type]))('%s', (type) => {
    const example = EXAMPLES[type];

    it('stores validated settings in their stored form, which validates again unchanged (the probe wire)', () => {
      const split = (input: unknown) => {
        const { value, problems } = checkInput(SettingsDto, { [type]: input });
        expect(problems).toEqual([]);
        return splitSettings(value!);
      };
      const first = split(example.minimal);
      expect(first.type).toBe(type);
      expect(Object.entries(first.settings)).toEqual(Object.entries(example.stored));
      expect(split(first.settings)).toEqual(first);
    });

    it.each(PROBED_TYPES.filter((other) => other !== type).map((other) => [other]))(
      'refuses a %s target with the message of its own parser',
      (other) => {
        const wrong = EXAMPLES[other].minimal.url as string;
        const parsed = PROBED_TYPE_TABLE[type].parseTarget(wrong);
        expect(parsed.ok).toBe(false);
        const { problems } = checkInput(SettingsDto, { [type]: { url: wrong } }, 'settings');
        expect(problems).toEqual([{ field: `settings.${type}.url`, message: parsed.ok ? '' : parsed.problem }]);
      },
    );

    it('refuses a url that is not a string, and a missing one', () => {
      const { dto } = PROBED_TYPE_TABLE[type];
      expect(checkInput(dto, { url: 42 }).problems).toEqual([{ field: 'url', message: 'must be a string' }]);
      expect(checkInput(dto, {}).problems).toEqual([{ field: 'url', message: 'is required' }]);
    });

    it('names the IP literal of a target (or refuses one), and none for a host name', () => {
      if (Array.isArray(example.literal)) {
        const [url, address] = example.literal;
        expect(literalAddressOf(url)).toBe(address);
      } else {
        expect(PROBED_TYPE_TABLE[type].parseTarget(example.literal.refused).ok).toBe(false);
      }
      expect(literalAddressOf(example.named)).toBeNull();
    });
  });
});

describe('https settings', () => {
  const store = (input: Record<string, unknown>) => {
    const { value, problems } = checkInput(MONITOR_TYPE_TABLE.https.dto, input);
    expect(problems).toEqual([]);
    return MONITOR_TYPE_TABLE.https.toSettings(value!);
  };

  it('keeps check_certificate_expiration when given and every optional field that is set, in a fixed order', () => {
    const stored = store({
      ignore_tls_errors: true,
      json_assertions: [{ path: '$.ok', op: 'eq', value: true }],
      response_body_absent: 'error',
      follow_redirect: true,
      response_body: 'ok',
      request_body: '{}',
      request_headers: 'X-A: 1',
      http_statuses: '200',
      http_method: 'POST',
      check_certificate_expiration: true,
      url: 'https://example.com',
    });
    expect(Object.keys(stored)).toEqual(['url', 'check_certificate_expiration', ...HTTPS_OPTIONAL_FIELDS]);
    expect(stored.check_certificate_expiration).toBe(true);
  });

  it('leaves out optional fields that were not set (false is set)', () => {
    expect(store({ url: 'https://example.com', follow_redirect: false })).toEqual({
      url: 'https://example.com',
      check_certificate_expiration: false,
      follow_redirect: false,
    });
  });
});

describe('keepSendableHeaderLines (monitors saved before the header rules)', () => {
  it.each([
    ['X-A: 1\nAccept: text/plain', 'X-A: 1\nAccept: text/plain'],
    ['X-A: 1\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\nX-B: 2', 'X-A: 1\nX-B: 2'],
    ['Connection: close\nKeep-Alive: 5\nTE: trailers\nUpgrade: h2c\nExpect: 100-continue', undefined],
    [':authority: evil.example\nX-A: 1', 'X-A: 1'],
    ['Host: a.example\nhost: b.example', 'Host: a.example'],
    ['Host: [:::]\nHost: b.example:8080', 'Host: b.example:8080'],
    ['Bad Name: x\nno colon\nX-A: ok', 'X-A: ok'],
    ['\n\nX-A: 1\n\n', 'X-A: 1'],
  ])('%j keeps %j', (stored, kept) => {
    expect(keepSendableHeaderLines(stored)).toBe(kept);
    if (kept !== undefined) {
      const { problems } = checkInput(SettingsDto, { https: { url: 'https://e.example', request_headers: kept } });
      expect(problems).toEqual([]);
    }
  });
});

describe('https json_assertions', () => {
  const problemsOf = (json_assertions: unknown) =>
    checkInput(SettingsDto, { https: { url: 'https://example.com', json_assertions } }, 'settings').problems;
  const field = 'settings.https.json_assertions';

  it('takes up to ten assertions with an RFC 9535 path, an operator and a value of the right kind', () => {
    expect(
      problemsOf([
        { path: '$.status', op: 'eq', value: 'ok' },
        { path: '$.items[*].price', op: 'lt', value: 10.5 },
        { path: "$..[?@.name == 'db'].healthy", op: 'eq', value: true },
        { path: '$.tags', op: 'contains', value: { nested: [1, null] } },
        { path: '$.a', op: 'ne', value: null },
        { path: '$.a', op: 'exists' },
        { path: '$.a', op: 'exists', value: false },
        { path: '$["odd key"]', op: 'gt', value: -1 },
      ]),
    ).toEqual([]);
  });

  it.each([
    [{ path: '$.a', op: 'eq' }, 'item 0: value is required with eq'],
    [{ path: '$.a', op: 'lt', value: '10' }, 'item 0: value of lt must be a number'],
    [{ path: '$.a', op: 'exists', value: 'yes' }, 'item 0: value of exists must be true or false'],
    [{ path: '$.a', op: 'matches', value: 'x' }, 'item 0: op must be one of: eq, ne, contains, lt, gt, exists'],
    [{ path: 5, op: 'eq', value: 1 }, 'item 0: path must be a string'],
    [{ path: '$.a', op: 'eq', value: 1, extra: true }, 'item 0: has an unknown field "extra"'],
    [{ path: '$.a', op: 'eq', value: 'x'.repeat(1001) }, 'item 0: value must be at most 1000 characters as JSON'],
    [{ path: `$.${'a'.repeat(500)}`, op: 'exists' }, 'item 0: path must be at most 500 characters long'],
    ['$.a', 'item 0: must be an object with path, op and value'],
  ])('refuses %j', (assertion, message) => {
    expect(problemsOf([assertion])).toEqual([{ field, message }]);
  });

  it.each(['a.b', '$.', '$[?@.a >]', '$..', "$['unclosed", '$.a[01]'])('refuses the JSONPath %j', (path) => {
    const [problem] = problemsOf([{ path, op: 'exists' }]);
    expect(problem?.field).toBe(field);
    expect(problem?.message).toMatch(/^item 0: path is not a valid JSONPath \(RFC 9535\): /);
  });

  it('takes at most ten', () => {
    const eleven = Array.from({ length: 11 }, () => ({ path: '$.a', op: 'exists' }));
    expect(problemsOf(eleven)).toEqual([{ field, message: 'must contain at most 10 items' }]);
  });
});

describe('https request_headers: framing, hop-by-hop and pseudo-headers', () => {
  const problemsOf = (request_headers: string) =>
    checkInput(SettingsDto, { https: { url: 'https://example.com', request_headers } }, 'settings').problems;
  const field = 'settings.https.request_headers';

  it.each([
    ['Content-Length: 0', 1, 'Content-Length'],
    ['X-A: 1\nTransfer-Encoding: chunked', 2, 'Transfer-Encoding'],
    ['X-A: 1\r\nX-B: 2\r\nconnection: keep-alive', 3, 'connection'],
    ['Keep-Alive: timeout=5', 1, 'Keep-Alive'],
    ['Proxy-Connection: keep-alive', 1, 'Proxy-Connection'],
    ['TE: trailers', 1, 'TE'],
    ['Trailer: X-Sum', 1, 'Trailer'],
    ['UPGRADE: h2c', 1, 'UPGRADE'],
    ['HTTP2-Settings: AAMAAABkAAQAAP__', 1, 'HTTP2-Settings'],
    ['Expect: 100-continue', 1, 'Expect'],
  ])('refuses %j, naming line %i and %s', (lines, line, name) => {
    expect(problemsOf(lines)).toEqual([
      { field, message: `line ${line}: ${name} may not be set (Picket frames the request and manages the connection)` },
    ]);
  });

  it.each([
    [':authority: other.example', 1, ':authority'],
    ['X-A: 1\n:method: POST', 2, ':method'],
    [':path: /admin', 1, ':path'],
  ])('refuses the HTTP/2 pseudo-header in %j', (lines, line, name) => {
    expect(problemsOf(lines)).toEqual([{ field, message: `line ${line}: ${name} is an HTTP/2 pseudo-header` }]);
  });

  it('takes one Host naming a host, with an optional port, and refuses a second or a malformed one', () => {
    for (const host of [
      'status.example.com',
      'api.example.com:8443',
      '203.0.113.7',
      '[2001:db8::1]:80',
      '[::1]',
      'intranet',
      'example.com.',
    ]) {
      expect(problemsOf(`Host: ${host}`)).toEqual([]);
    }
    expect(problemsOf('Host: a.example\nX-A: 1\nhost: b.example')).toEqual([
      { field, message: 'line 3: Host may be given only once' },
    ]);
    for (const host of [
      'a.example, b.example',
      'a.example/path',
      'a.example,b.example',
      'user@a.example',
      'a.example:99999',
      'a.example:0',
      '',
      'a b',
      '[:::]',
      '[::1',
      '999.1.1.1',
      'bücher.example',
      '-a.example',
    ]) {
      expect(problemsOf(`Host: ${host}`)).toEqual([
        { field, message: 'line 1: Host must be a host name or IP address with an optional port' },
      ]);
    }
  });

  it('accepts names that merely resemble them', () => {
    expect(problemsOf('X-Content-Length: 1\nContent-Type: text/plain\nConnection-Id: 7\nX-Upgrade: no')).toEqual([]);
  });

  it('is refused on the probe wire too (the agent validates with the same checker)', () => {
    const monitorId = '0123456789abcdef01234567';
    const wire = toWireRequest({
      check_id: `${monitorId}:1700000000000:eu-west-1`,
      monitor_id: monitorId,
      region: 'eu-west-1',
      scheduled_at: 1_700_000_000_000,
      type: 'https',
      settings: {
        url: 'https://example.com',
        check_certificate_expiration: false,
        request_headers: 'Content-Length: 0',
      },
      timeout_ms: 5000,
    });
    expect(checkInput(WireProbeRequestDto, wire).problems).toEqual([
      {
        field: 'settings.https.request_headers',
        message: 'line 1: Content-Length may not be set (Picket frames the request and manages the connection)',
      },
    ]);
  });
});

describe('type-keyed settings', () => {
  it('checks each type key as an object and refuses keys that are no type', () => {
    const { problems } = checkInput(SettingsDto, { https: 5, tcp: null, gopher: {} }, 'settings');
    expect(problems).toEqual([
      { field: 'settings.gopher', message: 'is not a known field' },
      { field: 'settings.https', message: 'must be an object' },
      { field: 'settings.tcp', message: 'must not be null' },
    ]);
  });

  it('refuses to split settings that were not validated', () => {
    expect(() => splitSettings({})).toThrow(/unvalidated/);
  });
});

describe('literalAddressOf', () => {
  it.each(['', 'gopher://10.0.0.1', 'tcp://10.0.0.1', 'ping://10.0.0.1:80', 'https://user@10.0.0.1/'])(
    '%j names no address (no type reads it)',
    (url) => {
      expect(literalAddressOf(url)).toBeNull();
    },
  );
});

describe('heartbeat settings (a passive type: no target, never on the probe wire)', () => {
  const problemsOf = (input: unknown) => checkInput(SettingsDto, { heartbeat: input }, 'settings').problems;

  it.each([
    [
      { period: 60, grace: 60 },
      { period: 60, grace: 60 },
    ],
    [
      { period: 2_592_000, grace: 86_400 },
      { period: 2_592_000, grace: 86_400 },
    ],
    [
      { grace: 300, period: 3600 },
      { period: 3600, grace: 300 },
    ],
    // The read-only ping_url of a GET, sent back unchanged, is ignored (the token is the monitor's own).
    [
      { period: 60, grace: 60, ping_url: 'https://example.com/ping/abc' },
      { period: 60, grace: 60 },
    ],
  ])('stores %j as %j', (input, stored) => {
    const { value, problems } = checkInput(SettingsDto, { heartbeat: input });
    expect(problems).toEqual([]);
    const split = splitSettings(value!);
    expect(split).toEqual({ type: 'heartbeat', settings: stored });
    expect(Object.keys(split.settings)).toEqual(['period', 'grace']);
  });

  it.each([
    [{ period: 59, grace: 60 }, 'settings.heartbeat.period', 'must be between 60 and 2592000'],
    [{ period: 2_592_001, grace: 60 }, 'settings.heartbeat.period', 'must be between 60 and 2592000'],
    [{ period: 60, grace: 59 }, 'settings.heartbeat.grace', 'must be between 60 and 86400'],
    [{ period: 60, grace: 86_401 }, 'settings.heartbeat.grace', 'must be between 60 and 86400'],
    [{ period: 60.5, grace: 60 }, 'settings.heartbeat.period', 'must be an integer'],
    [{ period: '60', grace: 60 }, 'settings.heartbeat.period', 'must be an integer'],
    [{ grace: 60 }, 'settings.heartbeat.period', 'is required'],
    [{ period: 60 }, 'settings.heartbeat.grace', 'is required'],
    [{ period: 60, grace: 60, url: 'https://example.com' }, 'settings.heartbeat.url', 'is not a known field'],
    [{ period: 60, grace: 60, ping_url: 7 }, 'settings.heartbeat.ping_url', 'must be a string'],
  ])('refuses %j (%s %s)', (input, field, message) => {
    expect(problemsOf(input)).toEqual([{ field, message }]);
  });

  it('is no probed type: the probe wire refuses it', () => {
    const monitorId = '0123456789abcdef01234567';
    const wire = {
      check_id: `${monitorId}:1700000000000:eu-west-1`,
      monitor_id: monitorId,
      region: 'eu-west-1',
      scheduled_at: 1_700_000_000_000,
      type: 'heartbeat',
      settings: { heartbeat: { period: 60, grace: 60 } },
      timeout_ms: 5000,
    };
    const fields = checkInput(WireProbeRequestDto, wire).problems.map((p) => p.field);
    expect(fields).toEqual(expect.arrayContaining(['type', 'settings.heartbeat']));
    expect(isProbedType('heartbeat')).toBe(false);
    expect(Object.keys(MONITOR_TYPE_TABLE.heartbeat)).toEqual(['dto', 'toSettings']);
  });
});
