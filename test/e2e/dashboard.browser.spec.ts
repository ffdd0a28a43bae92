import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, mkdirSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { EnrollmentService } from '../../apps/coordinator/src/regions/enrollment.service.js';
import { createUser } from '@nats-io/jwt';
import type { ApiClient } from '../support/api-client.js';
import { probeResult } from '../support/check-results.js';
import { CapturingLogger, startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { signIn } from '../support/dashboard.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { ConfiguredNats, startJwtNats } from '../support/nats-secure.js';
import { tokenOfUrl } from '../support/sessions.js';
import { SwitchableTarget } from '../support/target.js';

/**
 * The web dashboard as the coordinator serves it (docs/decisions/0023-dashboard.md): headers and
 * routes over plain HTTP, then the app in a real headless Chromium (test/support/global-setup.ts
 * decides whether one is installed). `npm test` builds the dashboard first (scripts/picket.mjs).
 */
const run = process.env.PICKET_TEST_CHROMIUM === '1';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CUSTOM_DOMAIN = 'status.dashboard.example';
/**
 * Enrolling a private region's agent needs a nats-server in JWT mode (test/support/nats-secure.ts);
 * without the binary that journey is skipped, and with PICKET_TEST_REQUIRE_SERVICES=1 (CI) the file fails.
 */
const JWT_NATS = ConfiguredNats.binary() !== null;
if (!JWT_NATS && process.env.PICKET_TEST_REQUIRE_SERVICES === '1') {
  throw new Error('the dashboard test needs nats-server on this machine (Debian package nats-server)');
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Directives of a Content-Security-Policy header, by name. */
function directives(csp: string): Record<string, string[]> {
  return Object.fromEntries(
    csp
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

/*
 * The few DOM shapes page.evaluate() callbacks use (they run in Chromium; the project compiles
 * without the DOM library).
 */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null;
  readonly documentElement: { scrollWidth: number; clientWidth: number };
};
declare const axe: { run(context: unknown, options: unknown): Promise<{ violations: any[] }> };

describe('dashboard', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  const logger = new CapturingLogger();

  beforeAll(async () => {
    const sqlite = testDatabases().find((kind) => kind.name === 'sqlite');
    if (!sqlite) throw new Error('no SQLite test database');
    db = await sqlite.create();
    c = await startCoordinator(db.url, { logger });
    api = (await c.newAccount('dashboard')).client;
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const raw = (path: string, headers: Record<string, string> = {}) =>
    new Promise<Raw>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: new URL(c.baseUrl).port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
        .once('error', reject)
        .end();
    });

  const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

  describe('over HTTP', () => {
    it('serves index.html at / with no-cache, a strict CSP and nosniff', async () => {
      const res = await raw('/');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const csp = directives(String(res.headers['content-security-policy']));
      expect(csp['default-src']).toEqual(["'self'"]);
      expect(csp['script-src']).toEqual(["'self'"]);
      expect(csp['style-src']).toEqual(["'self'"]);
      expect(csp['frame-ancestors']).toEqual(["'none'"]);
      expect(csp['object-src']).toEqual(["'none'"]);
      const html = res.body.toString();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
      expect(html).not.toMatch(/<style|\sstyle="/); // no inline style
      expect(assetsOf(html).some((a) => a.endsWith('.js'))).toBe(true);
      expect(assetsOf(html).some((a) => a.endsWith('.css'))).toBe(true);
    });

    it('serves the hashed assets for a year (immutable), gzipped when accepted; anything else under /assets is 404', async () => {
      const html = (await raw('/')).body.toString();
      let gzipped = 0;
      for (const asset of assetsOf(html)) {
        const plain = await raw(asset);
        expect(plain.status).toBe(200);
        expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(plain.headers['content-type']).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
        expect(plain.headers['content-security-policy']).toBeDefined();
        const zipped = await raw(asset, { 'accept-encoding': 'gzip' });
        expect(zipped.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
        gzipped += gzipSync(plain.body).length;
      }
      // The budget for the first load: gzipped JS + CSS at most 200 KB.
      expect(gzipped).toBeLessThanOrEqual(200 * 1024);
      for (const path of [
        '/assets/missing-00000000.js',
        '/assets/..%2F..%2Fpackage.json',
        '/assets/%2e%2e%2findex.html',
        '/assets/.dashboard-stamp',
        '/assets/index.html',
      ]) {
        const res = await raw(path);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(res.headers['cache-control']).toBe('no-store');
      }
    });

    it("serves index.html for the app's own routes, and shadows no API, health, metrics or status-page route", async () => {
      for (const path of ['/login', '/setup?token=abc', '/set-password?token=abc', '/monitors', '/monitors/new']) {
        const res = await raw(path);
        expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({
          path,
          status: 200,
          type: 'text/html; charset=utf-8',
        });
      }
      for (const path of [
        '/monitors/0123456789abcdef01234567/edit',
        '/incidents/x',
        '/status-pages/new',
        '/regions',
        '/settings',
      ]) {
        expect((await raw(path)).status).toBe(200);
      }
      const unauthorized = await raw('/api/monitors');
      expect(unauthorized.status).toBe(401);
      expect(JSON.parse(unauthorized.body.toString()).error.code).toBe('UNAUTHORIZED');
      expect(JSON.parse((await raw('/healthz')).body.toString())).toEqual({ status: 'ok' });
      expect((await raw('/api/openapi.json')).headers['content-type']).toMatch(/^application\/json/);
      expect(String((await raw('/metrics')).headers['content-type'])).not.toMatch(/^text\/html/);
      const unknown = await raw('/no-such-page');
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.body.toString()).error.code).toBe('NOT_FOUND');
      expect(String((await raw('/status/0123456789abcdef01234567')).headers['content-security-policy'])).toContain(
        "default-src 'none'",
      );
    });

    it("keeps / for a status page's custom domain", async () => {
      const monitor = await api.post('/api/monitors', {
        name: 'Shop',
        settings: { https: { url: 'https://shop.example.com/' } },
        regions: ['eu-west-1'],
      });
      expect(monitor.status).toBe(201);
      const page = await api.post('/api/status_pages', {
        name: 'Shop status',
        monitors: [monitor.body.data.id],
        custom_domain: CUSTOM_DOMAIN,
      });
      expect(page.status).toBe(201);
      const onDomain = await raw('/', { host: CUSTOM_DOMAIN });
      expect(onDomain.status).toBe(200);
      expect(onDomain.body.toString()).toContain('<h1>Shop status</h1>');
      expect(String(onDomain.headers['content-security-policy'])).toContain("default-src 'none'");
      const elsewhere = await raw('/', { host: 'picket.example' });
      expect(elsewhere.body.toString()).not.toContain('Shop status');
      expect(String(elsewhere.headers['content-security-policy'])).toContain("script-src 'self'");
    });
  });

  (run ? describe : describe.skip)('in Chromium', () => {
    let browser: Browser;

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      browser = await chromium.launch({
        executablePath: process.env.PICKET_TEST_CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--disable-background-networking',
          '--no-proxy-server',
        ],
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
    });

    /** Opens a path in a fresh context, collecting console errors (CSP violations are reported there). */
    async function open(path: string, options: BrowserContextOptions = {}) {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      const problems: string[] = [];
      // A console error is a problem (CSP violations are reported there), except the browser's note on
      // a failed request: those are judged by URL below (GET /api/me says "not signed in" with an error status).
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
          problems.push(message.text());
      });
      page.on('response', (response) => {
        const { pathname } = new URL(response.url());
        if (response.status() >= 400 && pathname !== '/api/me') problems.push(`${response.status()} ${pathname}`);
      });
      page.on('pageerror', (error) => problems.push(String(error)));
      await page.goto(c.baseUrl + path, { waitUntil: 'load' });
      return { page, problems, close: () => context.close() };
    }

    async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
      // Evaluated through the DevTools protocol, which the page's CSP does not govern (no inline script is added).
      await page.evaluate(AXE_SOURCE);
      const result = await page.evaluate(() => axe.run(document, { resultTypes: ['violations'] }));
      return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    }

    it.each([
      ['light', { colorScheme: 'light', viewport: { width: 1280, height: 800 } }],
      ['dark', { colorScheme: 'dark', viewport: { width: 1280, height: 800 } }],
      ['phone', { colorScheme: 'light', viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true }],
    ] as const)(
      'the sign-in page renders (%s) with labelled fields, no CSP violation and no serious axe-core violation',
      async (mode, options) => {
        const { page, problems, close } = await open('/login', options);
        try {
          await page.getByRole('heading', { name: 'Sign in to Picket' }).waitFor();
          expect(await page.title()).toBe('Picket');
          await expect(page.getByLabel('E-mail').getAttribute('type')).resolves.toBe('email');
          await expect(page.getByLabel('Password').getAttribute('autocomplete')).resolves.toBe('current-password');
          const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
          expect(serious).toEqual([]);
          // Nothing wider than the screen.
          const width = await page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          );
          expect(width).toBeLessThanOrEqual(0);
          expect(problems).toEqual([]);
          await page.screenshot({ path: `${ARTIFACTS}login-${mode}.png` });
        } finally {
          await close();
        }
      },
    );

    it('the app at / sends a visitor who is not signed in to the sign-in page', async () => {
      const { page, close } = await open('/');
      try {
        await page.getByRole('heading', { name: 'Sign in to Picket' }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/login');
      } finally {
        await close();
      }
    });

    it('setup and set-password without their token say that the full link is needed', async () => {
      for (const path of ['/setup', '/set-password']) {
        const { page, problems, close } = await open(path);
        try {
          await page.getByRole('alert').filter({ hasText: 'needs the link with its token' }).waitFor();
          expect(problems).toEqual([]);
        } finally {
          await close();
        }
      }
    });

    it('setup with a token asks for e-mail, name and the password twice, and checks they match before sending', async () => {
      const { page, close } = await open('/setup?token=not-a-real-token');
      try {
        await page.getByLabel('E-mail').fill('ada@example.com');
        await page.getByLabel('Name').fill('Ada');
        await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
        await page.getByLabel('Password again').fill('correct horse batterY');
        await page.getByRole('button', { name: 'Create administrator' }).click();
        await page.getByText('The two passwords differ.').waitFor();
      } finally {
        await close();
      }
    });
  });

  /** Journeys of a signed-in user: the first admin through the setup token, then the session cookie and CSRF token. */
  (run ? describe : describe.skip)('signed in', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: process.env.PICKET_TEST_CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-proxy-server'],
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
    });

    /** A write through the session (cookie and CSRF token), as the dashboard makes it. */
    async function post(context: BrowserContext, csrf: string, path: string, data: unknown): Promise<any> {
      const res = await context.request.post(`${c.baseUrl}${path}`, { headers: { 'x-csrf-token': csrf }, data });
      if (res.status() !== 201) throw new Error(`POST ${path} answered ${res.status()}: ${await res.text()}`);
      const body = await res.json();
      return body.data ?? body.contact;
    }

    it('shows the overview with counts and the down monitor first, opens its detail, and maps a 422 onto the form', async () => {
      const context = await browser.newContext({ timezoneId: 'Asia/Kolkata' });
      try {
        const csrf = await signIn(context, c);
        for (const name of ['Alpha', 'Beta']) {
          await post(context, csrf, '/api/monitors', {
            name,
            settings: { https: { url: `https://${name.toLowerCase()}.example.com/` } },
            regions: ['eu-west-1'],
          });
        }
        const page = await context.newPage();
        await page.goto(`${c.baseUrl}/`);
        await page.getByRole('heading', { name: 'Monitors', exact: true }).waitFor();
        await page.getByRole('link', { name: 'Alpha' }).waitFor();
        await page.getByRole('link', { name: 'Alpha' }).click();
        await page.getByRole('heading', { name: /Alpha/ }).waitFor();
        // Times in the browser's zone, UTC on hover.
        const title = await page.locator('time').first().getAttribute('title');
        expect(title).toMatch(/ UTC$/);

        await page.goto(`${c.baseUrl}/monitors/new`);
        await page.getByLabel('Name', { exact: true }).fill('Broken');
        await page.getByLabel('Address').fill('ftp://files.example.com/');
        await page.getByRole('button', { name: 'Create monitor' }).click();
        // The API's detail for settings.https.url appears under the Address field, tied to it.
        // (Awaited: the 422 arrives after the click returns; CI once read the field before it.)
        const address = page.getByLabel('Address');
        await address.and(page.locator('[aria-invalid="true"]')).waitFor();
        const errorId = ((await address.getAttribute('aria-describedby')) ?? '')
          .split(' ')
          .find((id) => id.endsWith('-error'));
        expect(errorId).toBeDefined();
        await expect(page.locator(`[id="${errorId}"]`).textContent()).resolves.toMatch(/http/);
      } finally {
        await context.close();
      }
    });

    it('editing only the name in the form keeps every setting of every type, as the API returned it', async () => {
      const context = await browser.newContext();
      try {
        const csrf = await signIn(context, c);
        const bodies: Record<string, unknown>[] = [
          {
            name: 'Every HTTPS setting',
            settings: {
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
            regions: ['eu-west-1', 'us-east-1'],
            check_interval: 60,
            timeout: 20,
            fail_threshold: 3,
          },
          {
            name: 'Every TCP setting',
            settings: { tcp: { url: 'tcp://db.example.com:5432' } },
            regions: ['eu-west-1'],
          },
          { name: 'Every ping setting', settings: { ping: { url: 'ping://example.com' } }, regions: ['us-west-2'] },
          {
            name: 'Every DNS setting',
            settings: {
              dns: {
                url: 'dns://example.com',
                record_type: 'MX',
                resolver: '9.9.9.9:53',
                expected: ['10 mx.example.com'],
              },
            },
            regions: ['eu-west-1'],
          },
          { name: 'Every heartbeat setting', settings: { heartbeat: { period: 86_400, grace: 3600 } } },
        ];
        const page = await context.newPage();
        for (const body of bodies) {
          const created = await post(context, csrf, '/api/monitors', body);
          await page.goto(`${c.baseUrl}/monitors/${created.id}/edit`);
          await page.getByLabel('Name', { exact: true }).fill(`${String(body.name)} renamed`);
          await page.getByRole('button', { name: 'Save changes' }).click();
          await page.waitForURL(`${c.baseUrl}/monitors/${created.id}`);
          const after = (await (await context.request.get(`${c.baseUrl}/api/monitors/${created.id}`)).json()).data;
          const { updated_at: _u, name: _n, ...rest } = after;
          const { updated_at: _v, name: _m, ...before } = created;
          expect({ name: after.name, ...rest }).toEqual({ name: `${String(body.name)} renamed`, ...before });
        }
      } finally {
        await context.close();
      }
    }, 120_000);

    it("labels each type's choice in the new-monitor form by its own name and shows that type's settings", async () => {
      const context = await browser.newContext();
      try {
        await signIn(context, c);
        const page = await context.newPage();
        await page.goto(`${c.baseUrl}/monitors/new`);
        const radios = page.getByRole('group', { name: 'Type' }).getByRole('radio');
        await radios.first().waitFor();
        const labels = await page.locator('fieldset:has(legend:text-is("Type")) label').allTextContents();
        expect(labels).toEqual(['HTTP(S)', 'TCP port', 'Ping (ICMP)', 'DNS record', 'Heartbeat (cron job)']);
        // Each choice shows its own fields.
        const shows: [string, string[], string[]][] = [
          ['HTTP(S)', ['Address', 'Method', 'JSON assertions', 'Response must not contain'], ['Record type']],
          ['TCP port', ['Address', 'Timeout (seconds)'], ['Method', 'Record type']],
          ['Ping (ICMP)', ['Address'], ['Method']],
          ['DNS record', ['Address', 'Record type', 'Resolver', 'Expected values'], ['Method']],
          [
            'Heartbeat (cron job)',
            ['Expect a ping every (seconds)', 'Grace (seconds)'],
            ['Address', 'Timeout (seconds)'],
          ],
        ];
        for (const [label, present, absent] of shows) {
          await page.getByRole('radio', { name: label, exact: true }).check();
          for (const field of present) await page.getByLabel(field, { exact: true }).waitFor();
          for (const field of absent)
            expect({ label, field, count: await page.getByLabel(field, { exact: true }).count() }).toEqual({
              label,
              field,
              count: 0,
            });
        }
        // A heartbeat made in the form: its page shows the ping URL with a copy button and curl lines.
        await page.getByLabel('Name', { exact: true }).fill('Nightly backup');
        await page.getByLabel('Expect a ping every (seconds)').fill('86400');
        await page.getByLabel('Grace (seconds)').fill('1800');
        await page.getByRole('button', { name: 'Create monitor' }).click();
        await page.getByRole('heading', { name: /Nightly backup/ }).waitFor();
        const id = new URL(page.url()).pathname.split('/').pop()!;
        const stored = (await (await context.request.get(`${c.baseUrl}/api/monitors/${id}`)).json()).data;
        expect(stored.settings.heartbeat).toMatchObject({ period: 86_400, grace: 1800 });
        expect(stored.regions).toEqual([]);
        const pingUrl = stored.settings.heartbeat.ping_url as string;
        await page.getByText(`curl -fsS ${pingUrl}`, { exact: true }).waitFor();
        await page.getByText(`curl -fsS ${pingUrl}/fail`, { exact: true }).waitFor();
        await page.getByRole('button', { name: 'Copy the ping URL' }).waitFor();
      } finally {
        await context.close();
      }
    }, 120_000);

    it('the virtual list draws and scrolls its rows again after a search that matched nothing is cleared', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const csrf = await signIn(context, c);
        for (let i = 1; i <= 60; i += 1) {
          await post(context, csrf, '/api/monitors', {
            name: `Zulu ${String(i).padStart(3, '0')}`,
            settings: { tcp: { url: `tcp://zulu${i}.example.com:22` } },
            regions: ['eu-west-1'],
          });
        }
        const page = await context.newPage();
        await page.goto(`${c.baseUrl}/monitors`);
        await page.getByLabel('Sort').selectOption('name');
        const search = page.getByRole('searchbox');
        const list = page.getByRole('region', { name: 'Monitors list' }).or(page.getByLabel('Monitors list'));
        const toBottom = () =>
          list.evaluate((element: { scrollTop: number; scrollHeight: number }) => {
            element.scrollTop = element.scrollHeight;
          });
        await search.fill('Zulu');
        await page.getByText(/^60 of \d+ monitors shown/).waitFor();
        await toBottom();
        await page.getByRole('link', { name: 'Zulu 060' }).waitFor();
        await search.fill('no monitor is called this');
        await page.getByText(/^0 of \d+ monitors shown/).waitFor();
        await search.fill('Zulu');
        // The top rows are drawn where the list now starts, and scrolling draws the rest.
        await page.getByRole('link', { name: 'Zulu 001' }).waitFor({ timeout: 5000 });
        await toBottom();
        await page.getByRole('link', { name: 'Zulu 060' }).waitFor({ timeout: 5000 });
        await page.screenshot({ path: `${ARTIFACTS}overview-after-empty-filter.png` });
      } finally {
        await context.close();
      }
    }, 120_000);

    it('plans maintenance windows (one-off and weekly, in the browser zone), shows them on the monitor, maps a 422 inline, deletes with confirmation', async () => {
      const context = await browser.newContext({ timezoneId: 'Europe/Berlin' });
      try {
        const csrf = await signIn(context, c);
        const target = await post(context, csrf, '/api/monitors', {
          name: 'Maint target',
          settings: { tcp: { url: 'tcp://maint.example.com:443' } },
          regions: ['eu-west-1'],
        });
        const wall = (unix: number) =>
          new Intl.DateTimeFormat('sv-SE', {
            timeZone: 'Europe/Berlin',
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
            hour: '2-digit',
            minute: '2-digit',
          })
            .format(new Date(unix * 1000))
            .replace(' ', 'T');
        const now = Math.floor(Date.now() / 60_000) * 60;
        const page = await context.newPage();
        await page.goto(`${c.baseUrl}/maintenance/new`);
        await page.getByLabel('Name', { exact: true }).fill('Database upgrade');
        await page.getByRole('searchbox', { name: 'Find a monitor' }).fill('Maint target');
        await page.getByRole('checkbox', { name: 'Maint target' }).check();
        await expect(page.getByLabel('Time zone').inputValue()).resolves.toBe('Europe/Berlin');
        await page.getByLabel('Starts').fill(wall(now - 3600));
        await page.getByLabel('Ends').fill(wall(now + 3600));
        await page.getByRole('button', { name: 'Create window' }).click();
        const row = page.getByRole('row', { name: /Database upgrade/ });
        await row.getByText('In progress').waitFor();
        const listed = (await (await context.request.get(`${c.baseUrl}/api/maintenance_windows`)).json()).data
          .maintenance_windows as any[];
        const oneOff = listed.find((w) => w.name === 'Database upgrade');
        expect(oneOff).toMatchObject({
          monitors: [target.id],
          starts_at: now - 3600,
          ends_at: now + 3600,
          timezone: 'Europe/Berlin',
          state: 'in_progress',
        });

        // The monitor says so on the overview and on its page.
        await page.goto(`${c.baseUrl}/monitors`);
        await page.getByRole('searchbox').fill('Maint target');
        // The row's status badge (the summary's status puts maintenance over the checks').
        await page.locator('li', { hasText: 'Maint target' }).getByText('Maintenance', { exact: true }).waitFor();
        await page.screenshot({ path: `${ARTIFACTS}maintenance-overview.png` });
        await page.goto(`${c.baseUrl}/monitors/${target.id}`);
        await page.getByRole('status').filter({ hasText: 'Under maintenance: Database upgrade' }).waitFor();
        await page.screenshot({ path: `${ARTIFACTS}maintenance-monitor.png` });

        // A weekly window from the builder, Saturdays and Sundays 03:00 to 05:00 Berlin time, first
        // on the Saturday eight days before next year's spring change (the last Sunday of March).
        const DAY_MS = 86_400_000;
        const march31 = Date.UTC(new Date().getUTCFullYear() + 1, 2, 31);
        const change = march31 - new Date(march31).getUTCDay() * DAY_MS;
        const firstSaturday = change - 8 * DAY_MS;
        const firstDate = new Date(firstSaturday).toISOString().slice(0, 10);
        await page.goto(`${c.baseUrl}/maintenance/new`);
        const preview = page.getByRole('region', { name: 'Next occurrences' });
        await page.getByLabel('Name', { exact: true }).fill('Weekend backup');
        await page.getByRole('checkbox', { name: 'Every monitor of the account' }).check();
        await page.getByRole('radio', { name: 'Repeatedly' }).check();
        await page.getByRole('radio', { name: 'Every week' }).check();
        await page.getByRole('checkbox', { name: 'Sat', exact: true }).check();
        await page.getByLabel('First start').fill(`${firstDate}T03:00`);
        await page.getByLabel('Lasts (minutes)').fill('120');
        await expect(page.getByLabel('RRULE').inputValue()).resolves.toBe('FREQ=WEEKLY;BYDAY=SA,SU');
        // The preview (POST /api/maintenance_windows/preview): the first five, in the form's zone,
        // 03:00 local across the change (UTC on hover: 02:00 before it, 01:00 from it on).
        const utcDay = (ms: number, options: Intl.DateTimeFormatOptions) =>
          new Intl.DateTimeFormat('en-GB', { ...options, timeZone: 'UTC' }).format(new Date(ms));
        const expected = [0, 1, 7, 8, 14].map((days) => {
          const day = firstSaturday + days * DAY_MS;
          const words = `${utcDay(day, { weekday: 'short' })}, ${utcDay(day, { day: 'numeric' })} ${utcDay(day, { month: 'short' })} ${utcDay(day, { year: 'numeric' })}`;
          const utcHour = day < change ? 2 : 1;
          return {
            text: `${words}, 03:00 to 05:00`,
            titles: [
              `${new Date(day).toISOString().slice(0, 10)} 0${utcHour}:00:00 UTC`,
              `${new Date(day).toISOString().slice(0, 10)} 0${utcHour + 2}:00:00 UTC`,
            ],
          };
        });
        const items = preview.getByRole('listitem');
        const listedFirst = (text: string) => items.first().filter({ hasText: text }).waitFor();
        await listedFirst(expected[0]!.text);
        await expect(items.count()).resolves.toBe(5);
        const shown = await items.evaluateAll((lis) =>
          lis.map((li) => ({
            text: li.textContent,
            titles: [...li.querySelectorAll('time')].map((t) => t.getAttribute('title')),
          })),
        );
        expect(shown).toEqual(expected);
        await expect(preview.getAttribute('aria-labelledby')).resolves.toBeTruthy();
        await expect(preview.locator('[aria-live="polite"]').count()).resolves.toBe(1);
        await page.screenshot({ path: `${ARTIFACTS}maintenance-preview.png`, fullPage: true });
        // A change is previewed again (debounced): Sundays only, then Saturdays again.
        await page.getByRole('checkbox', { name: 'Sat', exact: true }).uncheck();
        await listedFirst(expected[1]!.text);
        await page.getByRole('checkbox', { name: 'Sat', exact: true }).check();
        await listedFirst(expected[0]!.text);
        await page.getByRole('button', { name: 'Create window' }).click();
        await page
          .getByRole('row', { name: /Weekend backup/ })
          .getByText('every Sat, Sun')
          .waitFor();
        const weekly = (
          (await (await context.request.get(`${c.baseUrl}/api/maintenance_windows`)).json()).data
            .maintenance_windows as any[]
        ).find((w) => w.name === 'Weekend backup');
        expect(weekly).toMatchObject({
          monitors: [],
          rrule: 'FREQ=WEEKLY;BYDAY=SA,SU',
          duration: 7200,
          timezone: 'Europe/Berlin',
          starts_at: firstSaturday / 1000 + 2 * 3600,
          ends_at: null,
        });
        // Opened again, the builder shows the rule it made, and its preview.
        await page.getByRole('link', { name: 'Weekend backup' }).click();
        await expect(page.getByRole('checkbox', { name: 'Sat', exact: true }).isChecked()).resolves.toBe(true);
        await expect(page.getByLabel('First start').inputValue()).resolves.toBe(`${firstDate}T03:00`);
        await items.nth(4).filter({ hasText: expected[4]!.text }).waitFor();

        // A window kept in another zone than the browser's: its next start is said in the
        // window's zone, the one its form is written in (UTC on hover).
        const nyStart = now + 2 * 86_400 - (now % 3600);
        const ny = await post(context, csrf, '/api/maintenance_windows', {
          name: 'New York deploy',
          monitors: [target.id],
          starts_at: nyStart,
          ends_at: nyStart + 3600,
          timezone: 'America/New_York',
        });
        await page.goto(`${c.baseUrl}/maintenance/${ny.id as string}`);
        const nyWall = new Intl.DateTimeFormat('en-GB', {
          timeZone: 'America/New_York',
          hour: '2-digit',
          minute: '2-digit',
          hourCycle: 'h23',
        }).format(new Date(nyStart * 1000));
        const said = page.locator('p', { hasText: /Next start: .* \(America\/New_York\)\./ });
        await said.waitFor();
        const nextStart = said.locator('time');
        await expect(nextStart.textContent()).resolves.toMatch(new RegExp(`, ${nyWall}$`));
        await expect(nextStart.getAttribute('title')).resolves.toBe(
          `${new Date(nyStart * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`,
        );
        await expect(page.getByLabel('Starts').inputValue()).resolves.toMatch(new RegExp(`T${nyWall}$`));
        await page.screenshot({ path: `${ARTIFACTS}maintenance-edit-other-zone.png` });
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.setViewportSize({ width: 390, height: 844 });
        await said.waitFor();
        await page.screenshot({ path: `${ARTIFACTS}maintenance-edit-other-zone-phone-dark.png` });
        await page.emulateMedia({ colorScheme: 'light' });
        await said.waitFor();
        await page.screenshot({ path: `${ARTIFACTS}maintenance-edit-other-zone-phone.png` });
        await page.setViewportSize({ width: 1280, height: 720 });
        await page.emulateMedia({ colorScheme: 'dark' });
        await said.waitFor();
        await page.screenshot({ path: `${ARTIFACTS}maintenance-edit-other-zone-dark.png` });
        await page.emulateMedia({ colorScheme: 'light' });

        // The API's refusal of a raw rule, under its field.
        await page.goto(`${c.baseUrl}/maintenance/new`);
        await page.getByLabel('Name', { exact: true }).fill('Too often');
        await page.getByRole('radio', { name: 'Repeatedly' }).check();
        await page.getByLabel('RRULE').fill('FREQ=SECONDLY');
        // The preview says why instead of listing occurrences.
        await preview.getByText('RRULE: FREQ must be YEARLY, MONTHLY, WEEKLY, DAILY or HOURLY').waitFor();
        await expect(preview.getByRole('listitem').count()).resolves.toBe(0);
        await page.getByRole('button', { name: 'Create window' }).click();
        await page.locator('[aria-invalid="true"]').first().waitFor();
        const rrule = page.getByLabel('RRULE');
        await expect(rrule.getAttribute('aria-invalid')).resolves.toBe('true');
        await expect(page.getByRole('alert').allTextContents()).resolves.toContainEqual(
          expect.stringMatching(/FREQ|HOURLY/),
        );
        await page.screenshot({ path: `${ARTIFACTS}maintenance-422.png`, fullPage: true });

        // Deleting asks first.
        await page.goto(`${c.baseUrl}/maintenance`);
        await page.getByRole('row', { name: /Database upgrade/ }).waitFor();
        await page.screenshot({ path: `${ARTIFACTS}maintenance-list.png`, fullPage: true });
        page.once('dialog', (dialog) => void dialog.dismiss());
        await page.getByRole('button', { name: 'Delete Database upgrade' }).click();
        await page.getByRole('row', { name: /Database upgrade/ }).waitFor();
        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('button', { name: 'Delete Database upgrade' }).click();
        await page.getByRole('row', { name: /Database upgrade/ }).waitFor({ state: 'detached' });
        expect((await context.request.get(`${c.baseUrl}/api/maintenance_windows/${oneOff.id}`)).status()).toBe(404);
      } finally {
        await context.close();
      }
    }, 120_000);

    it('creates a private region (422 inline), lists it with no agent online or enrolled, says the 503 of a token without NATS auth, a monitor picks it, and deleting it is refused while in use', async () => {
      const context = await browser.newContext();
      try {
        const csrf = await signIn(context, c);
        const monitor = await post(context, csrf, '/api/monitors', {
          name: 'Office printer',
          settings: { tcp: { url: 'tcp://printer.example.com:9100' } },
          regions: ['eu-west-1'],
        });
        const page = await context.newPage();
        await page.goto(`${c.baseUrl}/regions`);
        await page.getByRole('heading', { name: 'Regions', exact: true }).waitFor();
        await page.getByText('eu-west-1 (Ireland)').waitFor();
        const form = page.locator('form', { hasText: 'New private region' });

        // The API's refusals under their fields: a public id, then a blank name.
        await form.getByLabel('Id').fill('eu-west-1');
        await form.getByLabel('Name').fill('Berlin office');
        await form.getByRole('button', { name: 'Create region' }).click();
        await form.getByText(/must not be a public region id/).waitFor();
        await expect(form.getByLabel('Id').getAttribute('aria-invalid')).resolves.toBe('true');
        await page.screenshot({ path: `${ARTIFACTS}regions-422.png`, fullPage: true });

        await form.getByLabel('Id').fill('office');
        await form.getByRole('button', { name: 'Create region' }).click();
        const card = page.getByRole('article', { name: /Berlin office/ });
        await card.getByText('0 agents online').waitFor();
        await card.getByText('No agent enrolled yet.').waitFor();
        await card.getByText('Create an enrollment token, then run the command').waitFor();
        await expect(form.getByLabel('Id').inputValue()).resolves.toBe('');
        // This coordinator has no NATS JWT authentication: the API's 503 and its reason, in the card.
        await card.getByRole('button', { name: 'Create enrollment token for office' }).click();
        await card.getByRole('alert').filter({ hasText: 'NATS_AUTH_DIR' }).waitFor();
        expect(await card.locator('pre.agent-token, pre.agent-command').count()).toBe(0);
        await page.screenshot({ path: `${ARTIFACTS}regions-token-503.png`, fullPage: true });
        const listed = (await (await context.request.get(`${c.baseUrl}/api/regions`)).json()).data.regions as any[];
        expect(listed.find((r) => r.id === 'office')).toMatchObject({ type: 'private', name: 'Berlin office' });

        // The monitor form offers it next to the public regions; saved, the monitor page shows it.
        await page.goto(`${c.baseUrl}/monitors/${monitor.id}/edit`);
        await page.getByRole('checkbox', { name: 'office (private: Berlin office)' }).check();
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.waitForURL(`${c.baseUrl}/monitors/${monitor.id}`);
        await page.getByText('eu-west-1, office (private: Berlin office, 0 agents online)').waitFor();
        const saved = (await (await context.request.get(`${c.baseUrl}/api/monitors/${monitor.id}`)).json()).data;
        expect(saved.regions).toEqual(['eu-west-1', 'office']);
        await page.screenshot({ path: `${ARTIFACTS}regions-monitor.png`, fullPage: true });

        // Delete asks first, and is refused while the monitor lists the region.
        await page.goto(`${c.baseUrl}/regions`);
        page.once('dialog', (dialog) => void dialog.dismiss());
        await page.getByRole('button', { name: 'Delete region office' }).click();
        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('button', { name: 'Delete region office' }).click();
        await card.getByRole('alert').filter({ hasText: 'monitors still list this region' }).waitFor();
        await card.getByRole('link', { name: 'Office printer' }).waitFor();
        await page.screenshot({ path: `${ARTIFACTS}regions-in-use.png`, fullPage: true });
        expect((await context.request.get(`${c.baseUrl}/api/regions/office`)).status()).toBe(200);

        // Taken out of the monitor, it goes.
        const put = await context.request.put(`${c.baseUrl}/api/monitors/${monitor.id}`, {
          headers: { 'x-csrf-token': csrf },
          data: { regions: ['eu-west-1'] },
        });
        expect(put.status()).toBe(200);
        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('button', { name: 'Delete region office' }).click();
        await card.waitFor({ state: 'detached' });
        expect((await context.request.get(`${c.baseUrl}/api/regions/office`)).status()).toBe(404);
      } finally {
        await context.close();
      }
    }, 120_000);

    /**
     * A coordinator of its own with NATS in JWT mode (NATS_AUTH_DIR), so tokens are issued for real;
     * the shared one stays without NATS (its journeys check nothing over NATS, and it answers the 503 above).
     */
    (JWT_NATS ? it : it.skip)(
      "enrolls a private region's agent: a token shown once with its start command, the agent listed (a viewer too), revoked after a confirmation",
      async () => {
        const nats = await startJwtNats();
        const ownDb = await testDatabases()
          .find((kind) => kind.name === 'sqlite')!
          .create();
        let own: RunningCoordinator | undefined;
        const admin = await browser.newContext({ colorScheme: 'light' });
        const viewer = await browser.newContext({ colorScheme: 'light' });
        try {
          own = await startCoordinator(ownDb.url, { env: nats.coordinatorEnv });
          const base = own.baseUrl;
          const csrf = await signIn(admin, own);
          const write = (method: 'post' | 'delete', path: string, data?: unknown) =>
            admin.request[method](`${base}${path}`, { headers: { 'x-csrf-token': csrf }, data });
          const accountId = (await (await admin.request.get(`${base}/api/me`)).json()).data.account_id as string;
          expect((await write('post', '/api/regions', { id: 'office', name: 'Berlin office' })).status()).toBe(201);
          const agentsOf = async () =>
            (await (await admin.request.get(`${base}/api/regions/office/agents`)).json()).data.agents as {
              id: string;
              name: string;
            }[];
          /** Serious and critical axe-core findings on the page as it is now. */
          const axeSerious = async (page: Page) => {
            await page.evaluate(AXE_SOURCE);
            const result = await page.evaluate(() => axe.run(document, { resultTypes: ['violations'] }));
            return result.violations
              .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
              .map((v: any) => v.id as string);
          };
          const enroll = async (token: string, name: string) => {
            const enrolled = await own!.app.get(EnrollmentService).exchange({
              token,
              public_key: createUser().getPublicKey(),
              agent_id: name,
              account_id: accountId,
              region: 'office',
            });
            if (!enrolled.ok) throw new Error(enrolled.error);
            return enrolled.agent;
          };

          await admin.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
          const page = await admin.newPage();
          await page.goto(`${base}/regions`);
          const card = page.getByRole('article', { name: /Berlin office/ });
          await card.getByText('No agent enrolled yet.').waitFor();
          await card.getByRole('button', { name: 'Create enrollment token for office' }).click();

          // The token, once, with its expiry (24 h) and the command that uses it.
          const token = (await card.locator('pre.agent-token').textContent()) ?? '';
          expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
          const command = (await card.locator('pre.agent-command').textContent()) ?? '';
          expect(command.split('\n').map((line) => line.trim())).toEqual([
            'NATS_URL=tls://nats.example.com:4222 \\',
            `AGENT_PRIVATE_REGION=${accountId}/office \\`,
            `AGENT_ENROLL_TOKEN=${token} \\`,
            'NATS_CREDS_FILE=/var/lib/picket-agent/nats.creds \\',
            'npm run agent',
          ]);
          await card.getByRole('status').filter({ hasText: 'it is not shown again' }).waitFor();
          const expires = await card.locator('.issued-token time').getAttribute('datetime');
          expect(Date.parse(expires!) / 1000 - Date.now() / 1000).toBeGreaterThan(24 * 3600 - 120);
          expect(Date.parse(expires!) / 1000 - Date.now() / 1000).toBeLessThanOrEqual(24 * 3600);
          // Light, dark and phone.
          await page.evaluate('window.scrollTo(0, 0)');
          await page.screenshot({ path: `${ARTIFACTS}regions-token.png`, fullPage: true });
          expect(await axeSerious(page)).toEqual([]);
          await page.emulateMedia({ colorScheme: 'dark' });
          await page.screenshot({ path: `${ARTIFACTS}regions-token-dark.png`, fullPage: true });
          expect(await axeSerious(page)).toEqual([]);
          await page.emulateMedia({ colorScheme: 'light' });
          // On a phone the token and the command wrap: nothing wider than the screen.
          await page.setViewportSize({ width: 375, height: 740 });
          await expect(
            page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
          ).resolves.toBeLessThanOrEqual(0);
          await page.screenshot({ path: `${ARTIFACTS}regions-token-phone.png`, fullPage: true });
          await page.setViewportSize({ width: 1280, height: 720 });
          // Each copy button copies its own text whole.
          // Each copy button copies its own text whole, and then says so in its name too (the
          // visible word stays in the accessible name: axe-core's label-content-name-mismatch).
          await card.getByRole('button', { name: 'Copy the agent start command for office' }).click();
          await card
            .getByRole('button', { name: 'Copied the agent start command for office' })
            .getByText('Copied')
            .waitFor();
          expect(await page.evaluate('navigator.clipboard.readText()')).toBe(command);
          await card.getByRole('button', { name: 'Copy the enrollment token for office' }).click();
          await card
            .getByRole('button', { name: 'Copied the enrollment token for office' })
            .getByText('Copied')
            .waitFor();
          expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
          expect(await axeSerious(page)).toEqual([]);

          // Not shown again: after a reload the page has only the button.
          await page.reload();
          await card.getByRole('button', { name: 'Create enrollment token for office' }).waitFor();
          await card.getByText('No agent enrolled yet.').waitFor();
          expect(await card.locator('pre.agent-token').count()).toBe(0);
          expect(await page.getByText(token.slice(0, 40)).count()).toBe(0);

          // Two agents enroll (as an agent's request over NATS does; test/e2e/agent-enrollment.spec.ts runs a real one).
          const first = await enroll(token, 'office-1');
          const second = (await (await write('post', '/api/regions/office/agent_tokens')).json()).data.token as string;
          const other = await enroll(second, 'office-2');
          expect((await agentsOf()).map((a) => a.id)).toEqual([first, other]);
          await page.reload();
          const row = (name: string) => card.getByRole('listitem').filter({ hasText: name });
          await row('office-1').getByText('offline').waitFor();
          await row('office-2').locator('time').waitFor();
          await page.screenshot({ path: `${ARTIFACTS}regions-agents.png`, fullPage: true });
          expect(await axeSerious(page)).toEqual([]);

          // A viewer sees the agents, and no button in the card.
          const invited = await write('post', '/api/users', { email: 'vic@example.com', name: 'Vic', role: 'viewer' });
          expect(invited.status()).toBe(201);
          const link = (await invited.json()).data.set_password_url as string;
          const set = await viewer.request.post(`${base}/auth/set-password`, {
            data: { token: tokenOfUrl(link), password: 'viewer password 1234' },
          });
          expect(set.status()).toBe(204);
          const v = await viewer.newPage();
          await v.goto(`${base}/regions`);
          const seen = v.getByRole('article', { name: /Berlin office/ });
          await seen.getByRole('listitem').filter({ hasText: 'office-1' }).waitFor();
          await seen.getByRole('listitem').filter({ hasText: 'office-2' }).waitFor();
          await seen.getByText('Someone who may change regions creates an enrollment token').waitFor();
          expect(await seen.getByRole('button').allTextContents()).toEqual([]);

          // When NATS has not taken a revocation, the API records it and answers 503: its message in the
          // card. (Made here by answering the real request's 503 in its place: the agent is revoked.)
          const unavailable =
            'The agent is revoked, but NATS has not taken the revocation yet (connection refused); it is pushed again every minute, or repeat this request.';
          await page.route(
            `${base}/api/regions/office/agents/${other}`,
            async (route) => {
              expect((await route.fetch()).status()).toBe(204);
              await route.fulfill({
                status: 503,
                contentType: 'application/json',
                body: JSON.stringify({ status: 'error', error: { code: 'SERVICE_UNAVAILABLE', message: unavailable } }),
              });
            },
            { times: 1 },
          );
          page.once('dialog', (dialog) => void dialog.accept());
          await card.getByRole('button', { name: 'Revoke agent office-2' }).click();
          await card.getByRole('alert').filter({ hasText: unavailable }).waitFor();
          await row('office-2').waitFor({ state: 'detached', timeout: 5000 });
          expect((await agentsOf()).map((a) => a.name)).toEqual(['office-1']);

          // Revoke asks first: dismissed, nothing happens; accepted, the agent goes.
          let asked = '';
          page.once('dialog', (dialog) => {
            asked = dialog.message();
            void dialog.dismiss();
          });
          await card.getByRole('button', { name: 'Revoke agent office-1' }).click();
          await page.waitForLoadState('networkidle');
          await row('office-1').waitFor();
          expect(asked).toContain('Revoke the agent “office-1” of office?');
          expect((await agentsOf()).map((a) => a.name)).toEqual(['office-1']);
          page.once('dialog', (dialog) => void dialog.accept());
          await card.getByRole('button', { name: 'Revoke agent office-1' }).click();
          await row('office-1').waitFor({ state: 'detached', timeout: 5000 });
          expect(await card.getByRole('alert').count()).toBe(0);
          await card.getByText('No agent enrolled yet.').waitFor();
          expect(await agentsOf()).toEqual([]);
        } finally {
          await viewer.close();
          await admin.close();
          await own?.close();
          await nats.stop();
          await ownDb.drop();
        }
      },
      120_000,
    );

    it('a viewer invited by an admin reads monitors but sees no write button, and the API refuses their writes (403)', async () => {
      const admin = await browser.newContext();
      const viewer = await browser.newContext();
      try {
        const csrf = await signIn(admin, c);
        const monitor = await post(admin, csrf, '/api/monitors', {
          name: 'Seen by the viewer',
          settings: { https: { url: 'https://viewer.example.com/' } },
          regions: ['eu-west-1'],
        });
        await post(admin, csrf, '/api/regions', { id: 'viewer-lab', name: 'Viewer lab' });
        const contact = await post(admin, csrf, '/api/contacts', {
          name: 'Viewer-visible hook',
          channel: 'webhook',
          details: { url: 'https://hooks.example.com/x' },
        });
        // The admin invites from the settings page and hands over the set-password link.
        const page = await admin.newPage();
        await page.goto(`${c.baseUrl}/settings`);
        const invite = page.locator('form', { hasText: 'Invite a user' });
        await invite.getByLabel('E-mail').fill('vera@example.com');
        await invite.getByLabel('Name').fill('Vera');
        await invite.getByLabel('Role').selectOption('viewer');
        await invite.getByRole('button', { name: 'Invite' }).click();
        const link = await invite.locator('code.secret').textContent();
        const { pathname, search } = new URL(link!);
        expect(pathname).toBe('/set-password');

        const v = await viewer.newPage();
        await v.goto(`${c.baseUrl}${pathname}${search}`);
        await v.getByLabel('Password', { exact: true }).fill('viewer password 1234');
        await v.getByLabel('Password again').fill('viewer password 1234');
        await v.getByRole('button', { name: 'Save password' }).click();
        await v.getByRole('heading', { name: 'Sign in to Picket' }).waitFor();
        await v.getByLabel('E-mail').fill('vera@example.com');
        await v.getByLabel('Password').fill('viewer password 1234');
        await v.getByRole('button', { name: 'Sign in' }).click();
        await v.getByRole('heading', { name: 'Monitors', exact: true }).waitFor();
        await v.getByRole('searchbox').fill('Seen by the viewer');
        await v.getByRole('link', { name: 'Seen by the viewer' }).waitFor();
        await v.screenshot({ path: `${ARTIFACTS}viewer-overview.png` });

        // No way to write anywhere: every page the viewer can open, no create, edit, delete, pause or test button.
        const writes = /^(New |Edit|Delete|Pause|Resume|Save|Create|Send test|Reactivate|Invite)/;
        for (const path of [
          '/monitors',
          `/monitors/${monitor.id}`,
          '/contacts',
          '/status-pages',
          '/maintenance',
          '/incidents',
          '/regions',
        ]) {
          await v.goto(c.baseUrl + path);
          await v.locator('main h1').first().waitFor();
          await v.waitForLoadState('networkidle');
          const buttons = [
            ...(await v.locator('main').getByRole('button').allTextContents()),
            ...(await v.locator('main').getByRole('link').allTextContents()),
          ].filter((text) => writes.test(text.trim()));
          expect({ path, buttons }).toEqual({ path, buttons: [] });
        }
        await v.goto(`${c.baseUrl}/monitors/${monitor.id}/edit`);
        await v.getByText('Your role can read monitors but not change them.').waitFor();
        await v.goto(`${c.baseUrl}/contacts`);
        await v.getByRole('cell', { name: 'Viewer-visible hook' }).waitFor();
        await v.goto(`${c.baseUrl}/regions`);
        await v
          .getByRole('article', { name: /Viewer lab/ })
          .getByText('0 agents online')
          .waitFor();
        expect(await v.locator('form', { hasText: 'New private region' }).count()).toBe(0);

        // The API itself refuses the viewer's writes, with the session's own CSRF token.
        const me = (await (await viewer.request.get(`${c.baseUrl}/api/me`)).json()).data;
        expect(me.user.role).toBe('viewer');
        const headers = { 'x-csrf-token': me.csrf_token as string };
        const attempts = [
          viewer.request.post(`${c.baseUrl}/api/monitors`, {
            headers,
            data: { name: 'x', settings: { tcp: { url: 'tcp://x.example.com:1' } }, regions: ['eu-west-1'] },
          }),
          viewer.request.put(`${c.baseUrl}/api/monitors/${monitor.id}`, { headers, data: { name: 'renamed' } }),
          viewer.request.delete(`${c.baseUrl}/api/monitors/${monitor.id}`, { headers }),
          viewer.request.delete(`${c.baseUrl}/api/contacts/${contact.id}`, { headers }),
          viewer.request.post(`${c.baseUrl}/api/maintenance_windows`, {
            headers,
            data: { name: 'x', monitors: [], starts_at: 1, ends_at: 2 },
          }),
          viewer.request.post(`${c.baseUrl}/api/regions`, { headers, data: { id: 'viewer-own', name: 'x' } }),
          viewer.request.delete(`${c.baseUrl}/api/regions/viewer-lab`, { headers }),
        ];
        for (const answer of await Promise.all(attempts)) {
          expect(answer.status()).toBe(403);
          expect((await answer.json()).error.code).toBe('FORBIDDEN');
        }
        const still = (await (await admin.request.get(`${c.baseUrl}/api/monitors/${monitor.id}`)).json()).data;
        expect(still.name).toBe('Seen by the viewer');
      } finally {
        await viewer.close();
        await admin.close();
      }
    }, 120_000);

    it('draws the overview from one GET /api/monitor_summary: uptime and a sparkline per monitor, no request per monitor', async () => {
      const setup = await browser.newContext();
      const csrf = await signIn(setup, c);
      const gamma = await post(setup, csrf, '/api/monitors', {
        name: 'Gamma summary',
        settings: { https: { url: 'https://gamma.example.com/' } },
        regions: ['eu-west-1'],
      });
      await setup.close();
      // Five up results and one down in the last 24 h: 83.33 % (never rounded up); hours 18–21 a line, hour 23 a dot.
      const writer = c.app.get(ResultsWriter);
      const now = Math.floor(Date.now() / 1000);
      for (const [hoursAgo, ms] of [
        [6, 200],
        [5, 250],
        [4, 300],
        [3, 120],
      ] as const) {
        writer.add(probeResult(gamma.id, 'eu-west-1', 'up', ms), now - hoursAgo * 3600 + 60);
      }
      writer.add(probeResult(gamma.id, 'eu-west-1', 'up', 480), now - 600);
      writer.add(probeResult(gamma.id, 'eu-west-1', 'down', null), now - 300);
      await writer.flush();
      for (const [view, options] of [
        ['light', { colorScheme: 'light', viewport: { width: 1280, height: 800 } }],
        ['dark', { colorScheme: 'dark', viewport: { width: 1280, height: 800 } }],
        ['phone', { colorScheme: 'light', viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true }],
      ] as const) {
        const context = await browser.newContext(options);
        try {
          await signIn(context, c);
          const page = await context.newPage();
          const asked: string[] = [];
          page.on('request', (req) => {
            const { pathname, search } = new URL(req.url());
            if (pathname.startsWith('/api/')) asked.push(pathname + search);
          });
          await page.goto(`${c.baseUrl}/`);
          const row = page.locator(`[data-monitor="${gamma.id}"]`);
          await row.waitFor();
          await expect(row.locator('.uptime-24h').textContent()).resolves.toBe('83.33%');
          await expect(row.locator('.spark polyline').count()).resolves.toBe(2);
          const label = await row.locator('svg.spark').getAttribute('aria-label');
          expect(label).toContain('120–480 ms');
          await page.getByRole('searchbox').fill('gamma');
          await expect(page.locator('.list-summary').textContent()).resolves.toMatch(/^1 of \d+ monitors shown$/);
          await page.screenshot({ path: `${ARTIFACTS}overview-summary-${view}.png` });
          // One: the page's preload, whose answer the app's first read takes (a preload left unused
          // would make two). No status changes here (checks are off), so the event stream's ready
          // event names no newer change and the summary is not read again (live.ts: onStreamReady).
          expect(asked.filter((path) => path === '/api/monitor_summary')).toHaveLength(1);
          expect(asked.filter((path) => path.startsWith('/api/monitors'))).toEqual([]);
        } finally {
          await context.close();
        }
      }
    }, 120_000);

    it('creates an API key shown once with a copy button, listed by its prefix; it works with fetch until revoked', async () => {
      const context = await browser.newContext();
      try {
        await signIn(context, c);
        const page = await context.newPage();
        await page.goto(`${c.baseUrl}/settings`);
        await page.locator('form', { hasText: 'New key' }).getByLabel('Name').fill('CI');
        await page.getByRole('button', { name: 'Create key' }).click();
        const key = await page.locator('code.secret').textContent();
        expect(key).toMatch(/^pkt_[0-9a-f]{64}$/);
        // Listed by its display prefix (pkt_ and 8 hex digits), never whole.
        await page.getByRole('cell', { name: `${key!.slice(0, 12)}…` }).waitFor({ timeout: 5000 });
        expect(await page.getByText(key!).count()).toBe(1);
        // The key works as any client uses it, until it is revoked from the page.
        const withKey = () => fetch(`${c.baseUrl}/api/monitors`, { headers: { authorization: `Bearer ${key!}` } });
        expect((await withKey()).status).toBe(200);
        page.once('dialog', (dialog) => void dialog.accept());
        await page.getByRole('row', { name: /^CI / }).getByRole('button', { name: 'Revoke' }).click();
        await page.getByRole('cell', { name: `${key!.slice(0, 12)}…` }).waitFor({ state: 'detached', timeout: 5000 });
        expect((await withKey()).status).toBe(401);
      } finally {
        await context.close();
      }
    });

    it('every signed-in page renders without a CSP violation or a serious axe-core violation, light, dark and phone', async () => {
      const views: [string, BrowserContextOptions][] = [
        ['light', { colorScheme: 'light' }],
        ['dark', { colorScheme: 'dark' }],
        ['phone', { colorScheme: 'light', viewport: { width: 390, height: 844 }, isMobile: true }],
      ];
      const one = async ({ view, context, csrf }: { view: string; context: BrowserContext; csrf: string }) => {
        const onCall = await post(context, csrf, '/api/contacts', {
          name: `On call ${view}`,
          channel: 'email',
          details: { email: 'oncall@example.com' },
        });
        // Notification rules with a step: its fields on the edit page, their summary on the monitor's.
        const monitor = await post(context, csrf, '/api/monitors', {
          name: `Pages ${view}`,
          settings: { tcp: { url: 'tcp://db.example.com:5432' } },
          regions: ['eu-west-1'],
          notification_rules: {
            delay_seconds: 120,
            repeat_interval_seconds: 1800,
            escalation: [{ after_seconds: 900, contacts: [onCall.id] }],
          },
        });
        // The other types, each with its own settings in the form.
        const dns = await post(context, csrf, '/api/monitors', {
          name: `DNS ${view}`,
          settings: { dns: { url: 'dns://example.com', record_type: 'MX' } },
          regions: ['eu-west-1'],
        });
        const heartbeat = await post(context, csrf, '/api/monitors', {
          name: `Backup job ${view}`,
          settings: { heartbeat: { period: 86_400, grace: 3600 } },
        });
        const window = await post(context, csrf, '/api/maintenance_windows', {
          name: `Weekly patching ${view}`,
          monitors: [monitor.id],
          starts_at: Math.floor(Date.now() / 1000) - 600,
          rrule: 'FREQ=WEEKLY;BYDAY=MO,TH',
          duration: 3600,
          timezone: 'Europe/Berlin',
        });
        await post(context, csrf, '/api/regions', { id: `lab-${view}`, name: `Lab ${view}` });
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        page.on('pageerror', (error) => problems.push(String(error)));
        for (const path of [
          '/monitors',
          '/monitors/new',
          `/monitors/${monitor.id}`,
          `/monitors/${monitor.id}/edit`,
          '/incidents',
          '/contacts',
          '/contacts/new',
          '/status-pages',
          '/status-pages/new',
          '/settings',
          `/monitors/${dns.id}`,
          `/monitors/${heartbeat.id}`,
          `/monitors/${heartbeat.id}/edit`,
          '/maintenance',
          '/maintenance/new',
          `/maintenance/${window.id}`,
          '/regions',
        ]) {
          await page.goto(c.baseUrl + path);
          await page
            .locator('main h1')
            .first()
            .waitFor()
            .catch(async (error: unknown) => {
              throw new Error(`${view} ${path}: ${String(error)}\n${await page.content()}`);
            });
          await page.waitForLoadState('networkidle');
          const name = path
            .replace(/^\//, '')
            .replace(/[0-9a-f]{24}/, 'id')
            .replace(/\//g, '-');
          const shown = path.includes(dns.id)
            ? `${name}-dns`
            : path.includes(heartbeat.id)
              ? `${name}-heartbeat`
              : path.includes(window.id)
                ? `${name}-window`
                : name;
          await page.screenshot({ path: `${ARTIFACTS}page-${shown}-${view}.png`, fullPage: true });
          await page.evaluate(AXE_SOURCE);
          const result = await page.evaluate(() => axe.run(document, { resultTypes: ['violations'] }));
          const serious = result.violations
            .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
            .map((v: any) => `${path}: ${v.id}`);
          expect(serious).toEqual([]);
        }
        // What the other types show: the heartbeat's ping URL once, in its card (with the copy
        // button; not also among the facts), and its schedule in the form.
        await page.goto(`${c.baseUrl}/monitors/${heartbeat.id}`);
        const pingUrl = heartbeat.settings.heartbeat.ping_url as string;
        await page.getByRole('region', { name: 'Ping URL' }).getByText(pingUrl, { exact: true }).waitFor();
        await expect(page.locator('dl.facts').getByText(pingUrl).count()).resolves.toBe(0);
        await page.goto(`${c.baseUrl}/monitors/${heartbeat.id}/edit`);
        await expect(page.getByLabel('Expect a ping every (seconds)').inputValue()).resolves.toBe('86400');
        await page.goto(`${c.baseUrl}/monitors/${dns.id}`);
        await page.getByText('dns://example.com').first().waitFor();
        expect(problems).toEqual([]);
      };
      // One view after the other: run at once, a page once waited 30 s for its heading (1 run in 10).
      for (const [view, options] of views) {
        const context = await browser.newContext(options);
        try {
          await one({ view, context, csrf: await signIn(context, c) });
        } finally {
          await context.close();
        }
      }
    }, 300_000);

    it('creates a webhook contact from the channel table and shows the result of a test send', async () => {
      const received: string[] = [];
      const receiver = createServer((req, res) => {
        received.push(`${req.method} ${req.url}`);
        res.writeHead(204).end();
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const { port } = receiver.address() as AddressInfo;
      const context = await browser.newContext();
      try {
        await signIn(context, c);
        const page = await context.newPage();
        await page.goto(`${c.baseUrl}/contacts/new`);
        await page.getByLabel('Name').fill('Ops hook');
        await page.getByLabel('Channel').selectOption('webhook');
        await page.getByLabel('URL').fill(`http://127.0.0.1:${port}/hook`);
        await page.getByRole('button', { name: 'Create contact' }).click();
        await page.getByRole('link', { name: 'Ops hook' }).waitFor();
        await page
          .getByRole('row', { name: /^Ops hook/ })
          .getByRole('button', { name: 'Send test' })
          .click();
        await page
          .getByRole('status')
          .filter({ hasText: /deliver/i })
          .waitFor();
        expect(received).toEqual(['POST /hook']);
      } finally {
        await context.close();
        await new Promise((resolve) => receiver.close(resolve));
      }
    });
  });

  /**
   * The journey with real checks (a coordinator of its own, checking a target on 127.0.0.1):
   * a monitor goes up, the target stops, and the overview shows it down without a reload, from
   * the live stream (the list's own refresh is 30 s away), with its evidence on the detail page.
   */
  (run ? describe : describe.skip)('live, with real checks', () => {
    let browser: Browser;
    let checked: RunningCoordinator;
    let checkedDb: TestDatabase;
    const target = new SwitchableTarget();

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      checkedDb = await testDatabases()[0]!.create();
      await target.start();
      checked = await startCoordinator(checkedDb.url, { env: { CHECKS_ENABLED: 'true' } });
      browser = await chromium.launch({
        executablePath: process.env.PICKET_TEST_CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-proxy-server'],
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await checked?.close();
      await target.stop();
      await checkedDb?.drop();
    });

    it('shows a monitor go up, then down within 2 s of the change without a reload, and why', async () => {
      const context = await browser.newContext();
      try {
        const csrf = await signIn(context, checked);
        const created = await context.request.post(`${checked.baseUrl}/api/monitors`, {
          headers: { 'x-csrf-token': csrf },
          data: {
            name: 'Live target',
            settings: { https: { url: target.url } },
            regions: ['eu-west-1', 'us-east-1'],
            check_interval: 10,
            timeout: 5,
            fail_threshold: 2,
          },
        });
        expect(created.status()).toBe(201);
        const id = ((await created.json()) as { data: { id: string } }).data.id;
        const page = await context.newPage();
        let navigations = 0;
        page.on('framenavigated', (frame) => {
          if (frame === page.mainFrame()) navigations += 1;
        });
        await page.goto(`${checked.baseUrl}/`);
        const row = page.locator('li', { hasText: 'Live target' });
        await row
          .getByText('Up', { exact: true })
          .waitFor({ timeout: 30_000 })
          .catch(async (error: unknown) => {
            // Say what the API and the page held then, so a failure tells where it stopped.
            const held = await context.request.get(`${checked.baseUrl}/api/monitors/${id}`);
            const rowText = await row.textContent({ timeout: 1000 }).catch(() => null);
            throw new Error(`${String(error)}\nAPI: ${await held.text()}\nrow: ${String(rowText)}`);
          });

        await target.stop();
        const api = context.request;
        // From the moment the API says down, the page has 2 s.
        const deadline = Date.now() + 45_000;
        for (;;) {
          const monitor = (await (await api.get(`${checked.baseUrl}/api/monitors/${id}`)).json()).data;
          if (monitor.last_status === 'down') break;
          if (Date.now() > deadline) throw new Error('the monitor never went down');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await row.getByText('Down', { exact: true }).waitFor({ timeout: 2000 });
        expect(navigations).toBe(1);
        await page.screenshot({ path: `${ARTIFACTS}live-overview.png` });

        await row.getByRole('link', { name: 'Live target' }).click();
        await page.getByRole('heading', { name: 'Why it is down' }).waitFor();
        await page.getByText('connection refused').first().waitFor();
        // The failed checks themselves, once stored (results are written in batches).
        await page.getByRole('cell', { name: 'down', exact: true }).first().waitFor({ timeout: 10_000 });
        await page.screenshot({ path: `${ARTIFACTS}live-detail.png`, fullPage: true });
      } finally {
        await context.close();
      }
    }, 120_000);
  });
});
