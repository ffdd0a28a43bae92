import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { ManualClock } from '#runtime';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { MonitorEntity } from '../../apps/coordinator/src/monitors/monitor.entity.js';
import type { ApiClient } from '../support/api-client.js';
import { probeResult } from '../support/check-results.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { SECRET_SETTINGS, SEED_NOW_MS, SEEDED, seedStatusPage, type SeededPage } from '../support/status-page-seed.js';

/**
 * The public status page in a real headless Chromium (test/support/global-setup.ts decides
 * whether one is installed and prints how to get one when not). On SQLite: the API suite
 * covers both databases; this one is about what a visitor's browser gets.
 */
const run = process.env.PICKET_TEST_CHROMIUM === '1';
const CUSTOM_DOMAIN = 'status.acme.example';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/*
 * The few DOM shapes the callbacks of page.evaluate() use. They run in Chromium, not here; the
 * project compiles without the DOM library, so these module-local declarations type them.
 */
interface DomElement {
  readonly textContent: string | null;
  readonly className: string;
  readonly children: Iterable<DomElement>;
  readonly outerHTML: string;
  readonly scrollWidth: number;
  readonly clientWidth: number;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { width: number };
}
declare const document: {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  readonly documentElement: DomElement;
};
declare function getComputedStyle(element: DomElement): { backgroundColor: string; color: string };

/** What the page says, read from the DOM the browser built. */
interface Facts {
  title: string;
  overall: string | null;
  statuses: (string | null)[];
  statusTexts: string[];
  uptimes: string[];
  bars: string[][];
  badDayTitle: string | null;
  trends: (string | null)[];
  incidents: number;
  landmarks: { header: number; main: number; footer: number; h1: number };
  text: string;
}

function readFacts(page: Page): Promise<Facts> {
  return page.evaluate(() => {
    const all = (selector: string) => [...document.querySelectorAll(selector)];
    return {
      title: document.querySelector('h1')?.textContent ?? '',
      overall: document.querySelector('[data-overall]')?.getAttribute('data-overall') ?? null,
      statuses: all('[data-status]').map((e) => e.getAttribute('data-status')),
      statusTexts: all('[data-status]').map((e) => e.textContent ?? ''),
      uptimes: all('.uptime').map((e) => e.textContent ?? ''),
      bars: all('ol.bars').map((ol) => [...ol.children].map((li) => li.className)),
      badDayTitle: document.querySelector('ol.bars li.bad')?.getAttribute('title') ?? null,
      trends: all('svg.trend').map((svg) =>
        svg.getAttribute('role') === 'img' ? svg.getAttribute('aria-label') : null,
      ),
      incidents: all('li.incident').length,
      landmarks: {
        header: all('header').length,
        main: all('main').length,
        footer: all('footer').length,
        h1: all('h1').length,
      },
      text: document.documentElement.outerHTML,
    };
  });
}

/** WCAG relative luminance of a computed `rgb(r, g, b)` colour. */
function luminance(colour: string): number {
  const [r, g, b] = (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

(run ? describe : describe.skip)('status page in Chromium', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let seeded: SeededPage;
  /** The id of the monitor Picket cannot see ("Status feed"). */
  let blindId: string;
  let browser: Browser;
  let port: string;
  const clock = new ManualClock(SEED_NOW_MS);

  beforeAll(async () => {
    const sqlite = testDatabases().find((kind) => kind.name === 'sqlite');
    if (!sqlite) throw new Error('no SQLite test database');
    db = await sqlite.create();
    c = await startCoordinator(db.url, { clock });
    port = new URL(c.baseUrl).port;
    api = (await c.newAccount('browser')).client;
    seeded = await seedStatusPage(c, api, { show_incident_reasons: true });
    await addBlindMonitor();
    browser = await chromium.launch({
      executablePath: process.env.PICKET_TEST_CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-proxy-server',
        // The custom domain resolves to the test coordinator, as a CNAME would in production.
        `--host-resolver-rules=MAP ${CUSTOM_DOMAIN} 127.0.0.1`,
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await c?.close();
    await db?.drop();
  });

  /**
   * A third monitor Picket cannot see (docs/decisions/0001-truth-when-blind.md): created an hour
   * ago, and today only UNKNOWN results (no agent serves its region). It must read "No data",
   * in grey, with no uptime and grey bars: its UNKNOWN results count neither for nor against it.
   */
  async function addBlindMonitor(): Promise<void> {
    const created = await api.post('/api/monitors', {
      name: 'Status feed',
      settings: { https: { url: 'https://feed.internal.example.com/?key=s3cret' } },
      regions: ['eu-west-1'],
    });
    if (created.status !== 201) throw new Error(`monitor not created: ${created.text}`);
    blindId = created.body.data.id as string;
    // Created an hour before the seeded "now" (the clock itself cannot go back: rate limits run on it).
    await c.app
      .get(Database)
      .manager.update(MonitorEntity, { id: created.body.data.id }, { createdAt: SEED_NOW_MS / 1000 - 3_600 });
    const writer = c.app.get(ResultsWriter);
    for (let i = 0; i < 6; i++) {
      writer.add(
        probeResult(created.body.data.id as string, 'eu-west-1', 'unknown', null),
        SEED_NOW_MS / 1000 - i * 600,
      );
    }
    await writer.flush();
    const patched = await api.patch(`/api/status_pages/${seeded.pageId}`, {
      monitors: [seeded.api.id, seeded.web.id, created.body.data.id],
    });
    if (patched.status !== 200) throw new Error(`page not updated: ${patched.text}`);
  }

  const pageUrl = () => `${c.baseUrl}/status/${seeded.pageId}`;
  const publicJson = async (url = `${pageUrl()}.json`, headers: Record<string, string> = {}) =>
    ((await (await fetch(url, { headers })).json()) as { data: any }).data;

  /** Opens a URL in a fresh context; returns the page, the answer's status and the context to close. */
  async function open(url: string, options: BrowserContextOptions = {}) {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const response = await page.goto(url, { waitUntil: 'load' });
    return { page, status: response?.status() ?? 0, close: () => context.close() };
  }

  it('renders the seeded statuses, bars, trends and incidents, the same facts as the JSON, without any setting', async () => {
    const json = await publicJson();
    const { page, status, close } = await open(pageUrl(), { viewport: { width: 1000, height: 900 } });
    try {
      expect(status).toBe(200);
      expect(await page.title()).toBe('Acme <Status> status');
      const facts = await readFacts(page);
      expect(facts.title).toBe('Acme <Status>'); // escaped in the HTML, shown as typed
      expect(facts.overall).toBe(json.overall);
      expect(facts.overall).toBe('partial_outage');
      expect(facts.statuses).toEqual(json.monitors.map((m: any) => m.status));
      expect(facts.statuses).toEqual(['down', 'up', 'unknown']);
      expect(facts.statusTexts).toEqual(['Down', 'Operational', 'No data']);
      expect(facts.uptimes).toEqual(
        json.monitors.map((m: any) => (m.uptime_percent === null ? 'no data' : `${m.uptime_percent.toFixed(2)}%`)),
      );
      expect(json.monitors[0].uptime_percent).toBe(SEEDED.apiUptime);
      expect(json.monitors[2].uptime_percent).toBeNull();
      expect(json.monitors[2].days.at(-1)).toMatchObject({ uptime_percent: null, checks: 6 });
      expect(facts.bars).toEqual([
        ['ok', 'ok', 'ok', 'bad', 'ok', 'ok', 'ok'],
        ['none', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
        ['none', 'none', 'none', 'none', 'none', 'none', 'none'],
      ]);
      expect(facts.bars.map((bars) => bars.length)).toEqual(json.monitors.map((m: any) => m.days.length));
      expect(facts.badDayTitle).toBe(`${SEEDED.apiBadDay.date}: 80.00% uptime, 10 checks`);
      expect(facts.trends).toHaveLength(2);
      for (const label of facts.trends) expect(label).toMatch(/^Response time, daily mean: from \d+ to \d+ ms/);
      expect(facts.incidents).toBe(json.incidents.length);
      expect(facts.incidents).toBe(2);
      const incidents = await page.locator('li.incident').allTextContents();
      expect(incidents[0]).toContain('Public API');
      expect(incidents[0]).toContain(SEEDED.incidentReasons[0]);
      expect(incidents[1]).toContain('resolved after 10 min');
      expect(incidents[1]).toContain(SEEDED.incidentReasons[1]);
      expect(facts.landmarks).toEqual({ header: 1, main: 1, footer: 1, h1: 1 });
      for (const text of [facts.text, JSON.stringify(json)]) {
        for (const secret of SECRET_SETTINGS) expect(text).not.toContain(secret);
      }
      // The screenshot for people to look at (gitignored).
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTIFACTS}status-page.png`, fullPage: true });
      expect(statSync(`${ARTIFACTS}status-page.png`).size).toBeGreaterThan(5_000);
    } finally {
      await close();
    }
  });

  it('works with JavaScript disabled', async () => {
    const { page, status, close } = await open(pageUrl(), { javaScriptEnabled: false });
    try {
      expect(status).toBe(200);
      const facts = await readFacts(page); // evaluate runs in the utility world even so
      expect(facts.statuses).toEqual(['down', 'up', 'unknown']);
      expect(facts.bars.flat()).toHaveLength(21);
      expect(facts.incidents).toBe(2);
      expect(await page.locator('script').count()).toBe(0);
    } finally {
      await close();
    }
  });

  it('fits a phone and reads well in light and dark mode', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, close } = await open(pageUrl(), {
        viewport: { width: 360, height: 740 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
        colorScheme,
      });
      try {
        const layout = await page.evaluate(() => {
          const style = (selector: string) => getComputedStyle(document.querySelector(selector) as DomElement);
          return {
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            barsWidth: (document.querySelector('ol.bars') as DomElement).getBoundingClientRect().width,
            page: style('body').backgroundColor,
            text: style('body').color,
            card: style('section.monitor').backgroundColor,
            muted: style('section.monitor .muted').color,
            down: style('[data-status="down"]').color,
            up: style('[data-status="up"]').color,
            unknown: style('[data-status="unknown"]').color,
          };
        });
        expect(layout.overflow).toBeLessThanOrEqual(0);
        expect(layout.barsWidth).toBeGreaterThan(200);
        expect(luminance(layout.page) < 0.1).toBe(colorScheme === 'dark');
        // WCAG AA for normal text: 4.5:1.
        for (const [name, colour, background] of [
          ['text', layout.text, layout.page],
          ['muted text', layout.muted, layout.card],
          ['down status', layout.down, layout.card],
          ['up status', layout.up, layout.card],
          ['no-data status', layout.unknown, layout.card],
        ] as const) {
          expect({ colorScheme, name, ok: contrast(colour, background) >= 4.5 }).toEqual({
            colorScheme,
            name,
            ok: true,
          });
        }
        // Screenshots for people to look at (gitignored): phone and desktop, in this colour scheme.
        await page.screenshot({ path: `${ARTIFACTS}status-page-phone-${colorScheme}.png`, fullPage: true });
      } finally {
        await close();
      }
      const desktop = await open(pageUrl(), { viewport: { width: 1000, height: 900 }, colorScheme });
      try {
        await desktop.page.screenshot({ path: `${ARTIFACTS}status-page-${colorScheme}.png`, fullPage: true });
      } finally {
        await desktop.close();
      }
    }
  });

  it('says "Some services have no current data", not operational, when nothing is down but a monitor is unseen', async () => {
    const created = await api.post('/api/status_pages', { name: 'Blind spot', monitors: [seeded.web.id, blindId] });
    expect(created.status).toBe(201);
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [device, options] of [
        ['desktop', { viewport: { width: 1000, height: 700 } }],
        ['phone', { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }],
      ] as const) {
        const { page, status, close } = await open(`${c.baseUrl}/status/${created.body.data.id as string}`, {
          ...options,
          colorScheme,
        });
        try {
          expect(status).toBe(200);
          const banner = page.locator('[data-overall]');
          expect(await banner.getAttribute('data-overall')).toBe('partial_data');
          expect((await banner.textContent())?.trim()).toBe('Some services have no current data');
          // For people to look at (gitignored).
          await page.screenshot({
            path: `${ARTIFACTS}status-page-no-data-${device}-${colorScheme}.png`,
            fullPage: true,
          });
        } finally {
          await close();
        }
      }
    }
  });

  it('shows a monitor under maintenance and the windows coming, on desktop and phone, light and dark', async () => {
    const now = SEED_NOW_MS / 1000;
    const inProgress = await api.post('/api/maintenance_windows', {
      name: 'Database upgrade',
      monitors: [seeded.web.id],
      starts_at: now - 600,
      ends_at: now + 3_000,
    });
    expect(inProgress.status).toBe(201);
    const coming = await api.post('/api/maintenance_windows', {
      name: 'Network change',
      monitors: [seeded.api.id],
      starts_at: now + 3 * 86_400,
      ends_at: now + 3 * 86_400 + 7_200,
    });
    expect(coming.status).toBe(201);
    const later = await api.post('/api/maintenance_windows', {
      name: 'Far away',
      monitors: [seeded.api.id],
      starts_at: now + 9 * 86_400,
      ends_at: now + 9 * 86_400 + 600,
    });
    expect(later.status).toBe(201);
    const created = await api.post('/api/status_pages', {
      name: 'Maintenance',
      monitors: [seeded.web.id, seeded.api.id],
    });
    expect(created.status).toBe(201);
    try {
      for (const colorScheme of ['light', 'dark'] as const) {
        for (const [device, options] of [
          ['desktop', { viewport: { width: 1000, height: 700 } }],
          ['phone', { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }],
        ] as const) {
          const { page, status, close } = await open(`${c.baseUrl}/status/${created.body.data.id as string}`, {
            ...options,
            colorScheme,
          });
          try {
            expect(status).toBe(200);
            const facts = await readFacts(page);
            expect(facts.statuses).toContain('maintenance');
            expect(facts.statusTexts.map((t) => t.trim())).toContain('Under maintenance');
            const section = page.locator('section', {
              has: page.getByRole('heading', { name: 'Scheduled maintenance' }),
            });
            expect(await section.textContent()).toContain('Database upgrade');
            expect(await section.textContent()).toContain('Network change');
            // Only windows within 7 days are listed.
            expect(await section.textContent()).not.toContain('Far away');
            expect(
              await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
            ).toBe(true);
            await page.screenshot({
              path: `${ARTIFACTS}status-page-maintenance-${device}-${colorScheme}.png`,
              fullPage: true,
            });
          } finally {
            await close();
          }
        }
      }
    } finally {
      for (const w of [inProgress, coming, later])
        await api.delete(`/api/maintenance_windows/${w.body.data.id as string}`);
      await api.delete(`/api/status_pages/${created.body.data.id as string}`);
    }
  });

  it('serves the page on its custom domain at / (JSON at /index.json)', async () => {
    expect((await api.patch(`/api/status_pages/${seeded.pageId}`, { custom_domain: CUSTOM_DOMAIN })).status).toBe(200);
    try {
      const { page, status, close } = await open(`http://${CUSTOM_DOMAIN}:${port}/`);
      try {
        expect(status).toBe(200);
        expect((await readFacts(page)).title).toBe('Acme <Status>');
        const json = JSON.parse(
          (await (await page.goto(`http://${CUSTOM_DOMAIN}:${port}/index.json`))?.text()) ?? '{}',
        ) as { data: { name: string; incidents: unknown[] } };
        expect(json.data.name).toBe('Acme <Status>');
        expect(json.data.incidents).toHaveLength(2);
      } finally {
        await close();
      }
    } finally {
      await api.patch(`/api/status_pages/${seeded.pageId}`, { custom_domain: null });
    }
  });

  it('challenges for basic auth, and shows the page with the credentials', async () => {
    expect((await api.patch(`/api/status_pages/${seeded.pageId}`, { basic_auth: 'viewer:let me in' })).status).toBe(
      200,
    );
    try {
      // Without credentials Chromium gets the challenge; with none to give, the navigation fails
      // (Playwright cancels the login prompt) and nothing of the page is shown.
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const challenges: { status: number; header: string | null }[] = [];
        page.on('response', (response) => {
          if (response.url() === pageUrl()) {
            challenges.push({ status: response.status(), header: response.headers()['www-authenticate'] ?? null });
          }
        });
        const navigation = await page.goto(pageUrl()).then(
          (response) => `answered ${response?.status() ?? 0}`,
          (error: Error) => error.message,
        );
        expect(navigation).toMatch(/answered 401|ERR_INVALID_AUTH_CREDENTIALS/);
        expect(challenges[0]).toEqual({ status: 401, header: 'Basic realm="Acme <Status>", charset="UTF-8"' });
        expect(await page.locator('[data-status]').count()).toBe(0);
      } finally {
        await context.close();
      }
      const wrong = await browser.newContext({ httpCredentials: { username: 'viewer', password: 'guess' } });
      try {
        const page = await wrong.newPage();
        const navigation = await page.goto(pageUrl()).then(
          (response) => `answered ${response?.status() ?? 0}`,
          (error: Error) => error.message,
        );
        expect(navigation).toMatch(/answered 401|ERR_INVALID_AUTH_CREDENTIALS/);
        expect(await page.locator('[data-status]').count()).toBe(0);
      } finally {
        await wrong.close();
      }
      const admitted = await open(pageUrl(), { httpCredentials: { username: 'viewer', password: 'let me in' } });
      try {
        expect(admitted.status).toBe(200);
        expect((await readFacts(admitted.page)).statuses).toEqual(['down', 'up', 'unknown']);
      } finally {
        await admitted.close();
      }
    } finally {
      await api.patch(`/api/status_pages/${seeded.pageId}`, { basic_auth: null });
    }
  });
});
