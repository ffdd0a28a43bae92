import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { validateHeaderValue } from 'node:http';
import {
  barClass,
  basicAuthChallenge,
  dayLabel,
  escapeHtml,
  overallOf,
  publicReason,
  renderPublicPage,
  renderTrend,
  type PublicDay,
  type PublicMonitor,
  type PublicPage,
} from './public-page.js';
import { basicAuthMatches, domainOfHost } from './public-pages.service.js';
import { hashPassword } from '../secrets/password-hash.js';

const day = (date: string, uptime: number | null, checks = 100, avg: number | null = 120): PublicDay => ({
  date,
  uptime_percent: uptime,
  checks,
  avg_response_ms: avg,
});

const monitor = (overrides: Partial<PublicMonitor> = {}): PublicMonitor => ({
  name: 'API',
  status: 'up',
  uptime_percent: 99.95,
  days: [day('2026-01-01', 100), day('2026-01-02', 99.5, 200, 150), day('2026-01-03', 97, 50, 300)],
  ...overrides,
});

const page = (overrides: Partial<PublicPage> = {}): PublicPage => ({
  name: 'Acme',
  period: 7,
  overall: 'operational',
  monitors: [monitor()],
  incidents: [],
  maintenance: [],
  generated_at: 1_767_225_600 + 2 * 86_400 + 3600, // 2026-01-03 01:00 UTC
  ...overrides,
});

describe('overall status', () => {
  it.each([
    [[], 'unknown'],
    [['pending'], 'unknown'],
    [['paused', 'pending'], 'unknown'],
    [['up'], 'operational'],
    [['up', 'paused', 'pending'], 'operational'],
    [['up', 'down'], 'partial_outage'],
    [['down', 'paused'], 'major_outage'],
    [['down', 'down'], 'major_outage'],
    // Monitors Picket cannot see (docs/decisions/0001-truth-when-blind.md): never operational.
    [['up', 'unknown'], 'partial_data'],
    [['up', 'unknown', 'paused', 'pending'], 'partial_data'],
    [['unknown'], 'no_data'],
    [['unknown', 'unknown', 'paused', 'pending'], 'no_data'],
    [['down', 'unknown'], 'partial_outage'],
    // Maintenance (docs/decisions/0026-maintenance-windows.md): not watched; alone, said as such.
    [['maintenance'], 'maintenance'],
    [['maintenance', 'paused'], 'maintenance'],
    [['up', 'maintenance'], 'operational'],
    [['down', 'maintenance'], 'major_outage'],
    [['down', 'up', 'unknown'], 'partial_outage'],
    [['paused', 'up'], 'operational'],
  ] as const)('of %j is %s', (statuses, expected) => {
    expect(overallOf(statuses.map((status) => ({ status })))).toBe(expected);
  });
});

describe('day bars', () => {
  it.each([
    [null, 'none'],
    [100, 'ok'],
    [99.9, 'ok'],
    [99.89, 'minor'],
    [99, 'minor'],
    [98.99, 'bad'],
    [0, 'bad'],
  ] as const)('a day at %s %% is %s', (uptime, expected) => {
    expect(barClass(uptime)).toBe(expected);
  });

  it.each([
    [day('2026-01-02', 99.5, 200), '2026-01-02: 99.50% uptime, 200 checks'],
    [day('2026-01-02', 100, 1), '2026-01-02: 100.00% uptime, 1 check'],
    [day('2026-01-02', null, 0), '2026-01-02: no data, 0 checks'],
  ])('label %#', (d, label) => {
    expect(dayLabel(d)).toBe(label);
  });
});

describe('escaping', () => {
  it.each([
    ['plain', 'plain'],
    ['<script>alert(1)</script>', '&#60;script&#62;alert(1)&#60;/script&#62;'],
    [`"quoted" & 'single'`, '&#34;quoted&#34; &#38; &#39;single&#39;'],
    ['Ünïcødé 🚦', 'Ünïcødé 🚦'],
  ])('%s', (text, escaped) => {
    expect(escapeHtml(text)).toBe(escaped);
  });
});

describe('response-time trend', () => {
  it('is an SVG line with a text alternative', () => {
    const svg = renderTrend([day('a', 100, 1, 100), day('b', 100, 1, null), day('c', 100, 1, 200)]);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('aria-label="Response time, daily mean: from 100 to 200 ms');
    expect(svg).toContain('<title>Response time');
    // Two points: the first day at the left bottom (lowest), the third at the right top (highest); the gap day is skipped.
    expect(svg).toContain('points="0.0,38.0 300.0,2.0"');
    expect(svg).toContain('latest 200 ms; 100 to 200 ms over the period.');
  });

  it('draws a flat series through the middle', () => {
    expect(renderTrend([day('a', 100, 1, 80), day('b', 100, 1, 80)])).toContain('points="0.0,20.0 300.0,20.0"');
  });

  it.each([[[]], [[day('a', 100, 1, 100)]], [[day('a', null, 0, null), day('b', null, 0, null)]]])(
    'says there is not enough data with fewer than two points (%#)',
    (days) => {
      expect(renderTrend(days)).toBe('<p class="muted">Not enough data for a response-time trend yet.</p>');
    },
  );
});

describe('the page as HTML', () => {
  it('is a whole, script-free document, good on a phone and in dark mode', () => {
    const html = renderPublicPage(page());
    expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(html).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
    expect(html).toContain('@media (prefers-color-scheme:dark)');
    expect(html).not.toMatch(/<script|javascript:|\son\w+=/i);
    for (const landmark of ['<header>', '<main>', '<footer>', '<h1>Acme</h1>', '<h2 id="services">']) {
      expect(html).toContain(landmark);
    }
  });

  it('says every colour in words: overall, status, each bar', () => {
    const html = renderPublicPage(
      page({ overall: 'partial_outage', monitors: [monitor(), monitor({ status: 'down' })] }),
    );
    expect(html).toContain('data-overall="partial_outage">Partial outage</p>');
    expect(html).toContain('data-status="up">Operational</strong>');
    expect(html).toContain('data-status="down">Down</strong>');
    expect(html).toContain(
      '<li class="minor" title="2026-01-02: 99.50% uptime, 200 checks"><span class="sr">2026-01-02: 99.50% uptime, 200 checks</span></li>',
    );
    expect(html.match(/<li class="(ok|minor|bad|none)"/g)).toEqual([
      '<li class="ok"',
      '<li class="minor"',
      '<li class="bad"',
      '<li class="ok"',
      '<li class="minor"',
      '<li class="bad"',
    ]);
    expect(html).toContain('<span class="uptime">99.95%</span>');
  });

  it('shows a monitor Picket cannot see as grey "No data", never as operational', () => {
    const html = renderPublicPage(
      page({
        overall: 'partial_data',
        monitors: [monitor(), monitor({ name: 'Blind', status: 'unknown', uptime_percent: null })],
      }),
    );
    expect(html).toContain('data-overall="partial_data">Some services have no current data</p>');
    expect(html).toContain('<strong class="status status-unknown" data-status="unknown">No data</strong>');
    expect(html.match(/data-status="\w+">[^<]*</g)).toEqual([
      'data-status="up">Operational<',
      'data-status="unknown">No data<',
    ]);
    // Grey: the muted text colour, and the overall line's default (grey) border.
    expect(html).toMatch(
      /\.status-pending,\.status-unknown,\.status-paused,\.status-maintenance\{color:var\(--muted\)\}/,
    );
    expect(html).not.toMatch(/\.overall\.(partial_data|no_data)\{/);
    const blind = renderPublicPage(page({ overall: 'no_data', monitors: [monitor({ status: 'unknown' })] }));
    expect(blind).toContain('data-overall="no_data">No data</p>');
    expect(blind).not.toContain('Operational');
    expect(blind).not.toContain('All systems operational');
  });

  it('escapes page, monitor and incident text', () => {
    const evil = '<img src=x onerror=alert(1)>"\'&';
    const html = renderPublicPage(
      page({
        name: evil,
        monitors: [monitor({ name: evil })],
        incidents: [{ monitor: evil, started_at: 1_767_225_600, resolved_at: null, reason: evil }],
      }),
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain(evil);
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;&#34;&#39;&#38;');
  });

  it('lists incidents with their state, and a reason only when the model has one', () => {
    const started = 1_767_225_600; // 2026-01-01 00:00 UTC
    const html = renderPublicPage(
      page({
        incidents: [
          { monitor: 'API', started_at: started + 86_400, resolved_at: null, reason: 'HTTP 503' },
          { monitor: 'Web', started_at: started, resolved_at: started + 600 },
        ],
      }),
    );
    expect(html).toContain(
      '<li class="incident open"><strong>API</strong> down since <time datetime="2026-01-02T00:00:00.000Z">2026-01-02 00:00 UTC</time>, ongoing for 25 h: HTTP 503</li>',
    );
    expect(html).toContain('<strong>Web</strong> down since');
    expect(html).toContain('resolved after 10 min</li>');
    expect(renderPublicPage(page())).toContain('No incidents in the last 7 days.');
  });

  it('shows a page whose monitors are all gone', () => {
    expect(renderPublicPage(page({ monitors: [], overall: 'unknown' }))).toContain('No monitors on this page.');
  });
});

describe('incident reasons on a public page (never the target: docs/decisions/0008-status-pages.md)', () => {
  it.each([
    // Addresses, ports, host names and URLs go; the class of failure stays.
    ['connection refused (127.0.0.1:18503)', 'connection refused'],
    ['connection refused ([::1]:8080)', 'connection refused'],
    ['connection timed out ([2001:db8::7]:443)', 'connection timed out'],
    ['connection reset (10.20.30.40:22)', 'connection reset'],
    ['destination unreachable (10.0.0.1)', 'destination unreachable'],
    ['destination unreachable (fd12:3456::1)', 'destination unreachable'],
    ['destination unreachable (::ffff:10.0.0.1)', 'destination unreachable'],
    ['connect failed (EPROTO) (192.168.1.5:5432)', 'connect failed (EPROTO)'],
    ['connect failed (connect EHOSTUNREACH 10.1.2.3:5432) (10.1.2.3:5432)', 'connect failed (connect EHOSTUNREACH)'],
    ['certificate is not valid for api.internal.example.com', 'certificate is not valid for the host name'],
    ['certificate is not valid for intranet', 'certificate is not valid for the host name'],
    ['certificate is not valid for 10.0.0.1', 'certificate is not valid for the host name'],
    ['host name not found (db.internal.example.com)', 'host name not found'],
    ['DNS lookup failed: getaddrinfo ENOTFOUND db.internal', 'DNS lookup failed'],
    ['request failed: Redirect to https://10.0.0.5:8443/admin?token=s3cret refused', 'request failed'],
    ['upstream https://user:pw@api.example.com:8443/x?k=1 said no', 'upstream said no'],
    ['refused by ops@internal.example.com', 'refused by'],
    ['127.0.0.1:80', 'Down'],
    ['', 'Down'],
    // Reasons without any of it are kept as they are.
    ['HTTP 503', 'HTTP 503'],
    ['timed out after 30000 ms', 'timed out after 30000 ms'],
    ['too many redirects (more than 10)', 'too many redirects (more than 10)'],
    ['DNS lookup failed (EAI_AGAIN)', 'DNS lookup failed (EAI_AGAIN)'],
    ['invalid HTTP response (HPE_INVALID_CONSTANT)', 'invalid HTTP response (HPE_INVALID_CONSTANT)'],
    ['TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER)', 'TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER)'],
    ['certificate has expired', 'certificate has expired'],
    [
      'response body does not contain the expected text (searched the first 1048576 bytes)',
      'response body does not contain the expected text (searched the first 1048576 bytes)',
    ],
    ['no echo reply within 5000 ms', 'no echo reply within 5000 ms'],
    ['Connection timeout', 'Connection timeout'],
    ['Down', 'Down'],
  ])('%j → %j', (reason, shown) => {
    expect(publicReason(reason)).toBe(shown);
  });
});

describe('custom domain of a Host header', () => {
  it.each([
    ['status.example.com', 'status.example.com'],
    ['Status.Example.COM:8443', 'status.example.com'],
    ['status.example.com.', 'status.example.com'],
    ['status.example.com:', 'status.example.com'],
    ['', null],
    [undefined, null],
    ['[::1]:3000', null],
  ])('%s → %s', (host, domain) => {
    expect(domainOfHost(host)).toBe(domain);
  });
});

describe('basic auth', () => {
  const header = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
  const stored = hashPassword('viewer:p4ss:word');
  it.each([
    [header('viewer:p4ss:word'), true],
    [`basic   ${Buffer.from('viewer:p4ss:word').toString('base64')}`, true],
    [header('viewer:p4ss:wor'), false],
    [header('Viewer:p4ss:word'), false],
    [header('viewer:p4ss:word '), false],
    [`Bearer ${Buffer.from('viewer:p4ss:word').toString('base64')}`, false],
    ['Basic not base64!', false],
    ['Basic', false],
    ['', false],
    [undefined, false],
  ])('%s → %s (against the stored hash, and a plain value from before hashing)', async (given, ok) => {
    expect(await basicAuthMatches(given, await stored)).toBe(ok);
    expect(await basicAuthMatches(given, 'viewer:p4ss:word')).toBe(ok);
  });

  it('takes UTF-8 credentials', async () => {
    expect(await basicAuthMatches(header('zoë:pässwörd'), await hashPassword('zoë:pässwörd'))).toBe(true);
    expect(await basicAuthMatches(header('zoë:pässwörd'), 'zoë:pässwörd')).toBe(true);
  });
});

describe('the basic auth challenge', () => {
  it.each([
    ['Acme <Status>', 'Acme <Status>'],
    ['Zoë’s Café', 'Zoe s Cafe'],
    ['Ω Статус 状态 🚀 Zoë "x"', 'Zoe x'],
    ['状态页', 'Status page'],
    ['🚀', 'Status page'],
    ['a\\b"c\u0000d\u0085e\u202ef', 'a b c d e f'],
    ['x'.repeat(150), 'x'.repeat(100)],
  ])('%j has the realm %j', (name, realm) => {
    expect(basicAuthChallenge(name)).toBe(`Basic realm="${realm}", charset="UTF-8"`);
  });

  it('is a valid header value of printable ASCII for any name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (name) => {
        const value = basicAuthChallenge(name);
        expect(() => validateHeaderValue('www-authenticate', value)).not.toThrow();
        expect(value).toMatch(/^Basic realm="[\x20\x21\x23-\x5b\x5d-\x7e]+", charset="UTF-8"$/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('maintenance on the page (docs/decisions/0026-maintenance-windows.md)', () => {
  it('says "Under maintenance" for a covered monitor and lists windows, names escaped', () => {
    const html = renderPublicPage(
      page({
        overall: 'maintenance',
        monitors: [monitor({ status: 'maintenance' })],
        maintenance: [
          {
            name: 'DB <upgrade>',
            monitors: ['API'],
            starts_at: 1_767_405_600,
            ends_at: 1_767_409_200,
            in_progress: true,
          },
          {
            name: 'Sunday',
            monitors: ['API', 'Web'],
            starts_at: 1_767_578_400,
            ends_at: 1_767_585_600,
            in_progress: false,
          },
        ],
      }),
    );
    expect(html).toContain('data-status="maintenance">Under maintenance</strong>');
    expect(html).toContain('data-overall="maintenance">Under maintenance</p>');
    expect(html).toContain('<h2 id="maintenance">Scheduled maintenance</h2>');
    expect(html).toContain('<strong>DB &#60;upgrade&#62;</strong> (API): under way until');
    expect(html).toContain('<strong>Sunday</strong> (API, Web): from <time datetime="2026-01-05T02:00:00.000Z">');
  });

  it('has no maintenance section when none is coming', () => {
    expect(renderPublicPage(page())).not.toContain('Scheduled maintenance');
  });
});
