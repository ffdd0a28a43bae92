import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { ManualClock } from '#runtime';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { StatusPagesRepository } from '../../apps/coordinator/src/status-pages/status-pages.repository.js';
import { TransitionWriter } from '../../apps/coordinator/src/transitions/transition.writer.js';
import type { ApiClient } from '../support/api-client.js';
import { probeResult } from '../support/check-results.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { SECRET_SETTINGS, SEED_NOW_MS, SEEDED, seedStatusPage, type SeededPage } from '../support/status-page-seed.js';

const UNKNOWN_ID = '0123456789abcdef01234567';
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe.each(testDatabases())('status pages on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let other: ApiClient;
  let ownerId: string;
  let seeded: SeededPage;
  const clock = new ManualClock(SEED_NOW_MS);

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock, env: { PUBLIC_URL: 'https://picket.example.com/' } });
    const owner = await c.newAccount('owner');
    ({ client: api, accountId: ownerId } = owner);
    other = (await c.newAccount('other')).client;
    seeded = await seedStatusPage(c, api, { show_incident_reasons: true });
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const page = (id = seeded.pageId) => `/api/status_pages/${id}`;
  const publicGet = (path: string, headers: Record<string, string> = {}) => fetch(`${c.baseUrl}${path}`, { headers });
  const publicJson = async (path: string, headers: Record<string, string> = {}) =>
    ((await (await publicGet(path, headers)).json()) as { data: any }).data;
  /** A plain request (fetch cannot set Host, and always asks for gzip). */
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<RawAnswer>((resolve, reject) => {
      const { port } = new URL(c.baseUrl);
      request({ host: '127.0.0.1', port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
        .once('error', reject)
        .end();
    });
  const newMonitor = async (client: ApiClient, name = 'Another') => {
    const res = await client.post('/api/monitors', {
      name,
      settings: { https: { url: 'https://x.example/' } },
      regions: ['eu-west-1'],
    });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  describe('API', () => {
    it('creates a page with the defaults and answers the documented shape', async () => {
      const res = await api.post('/api/status_pages', { name: 'Defaults', monitors: [seeded.web.id] });
      expect(res.status).toBe(201);
      const id = res.body.data.id as string;
      expect(res.body).toEqual({
        status: 'ok',
        data: {
          id: expect.stringMatching(/^[0-9a-f]{24}$/),
          name: 'Defaults',
          monitors: [seeded.web.id],
          period: 30,
          custom_domain: null,
          show_incident_reasons: false,
          basic_auth: null,
          url: `https://picket.example.com/status/${id}`,
          created_at: SEED_NOW_MS / 1000,
          updated_at: SEED_NOW_MS / 1000,
        },
      });
      expect((await api.get(page(id))).body).toEqual(res.body);
      expect((await api.delete(page(id))).status).toBe(204);
    });

    it('reports every invalid field at once', async () => {
      const bad = await api.post('/api/status_pages', {
        name: ' ',
        monitors: [seeded.api.id, seeded.api.id],
        period: 14,
        custom_domain: 'not a host',
        basic_auth: 'nocolon',
        show_incident_reasons: 'yes',
        theme: 'dark',
      });
      expect(bad.status).toBe(422);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
      expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(
        ['basic_auth', 'custom_domain', 'monitors', 'name', 'period', 'show_incident_reasons', 'theme'].sort(),
      );
      expect((await api.post('/api/status_pages', { monitors: [seeded.api.id] })).body.error.details).toEqual([
        { field: 'name', message: expect.any(String) },
      ]);
      expect((await api.get('/api/status_pages')).body.data.pagination.total).toBe(1);
    });

    it.each([
      ['name over 100 code points', { name: 'é'.repeat(101) }, 'name'],
      ['no monitors', { monitors: [] }, 'monitors'],
      ['21 monitors', { monitors: Array.from({ length: 21 }, (_, i) => i.toString(16).padStart(24, '0')) }, 'monitors'],
      ['a malformed monitor id', { monitors: ['xyz'] }, 'monitors'],
      ['period 0', { period: 0 }, 'period'],
      ['period "30"', { period: '30' }, 'period'],
      ['an IP address as domain', { custom_domain: '192.0.2.1' }, 'custom_domain'],
      ['a single-label domain', { custom_domain: 'localhost' }, 'custom_domain'],
      ['a domain with a port', { custom_domain: 'status.example.com:8080' }, 'custom_domain'],
      ['a URL as domain', { custom_domain: 'https://status.example.com' }, 'custom_domain'],
      ['this Picket’s own host', { custom_domain: 'Picket.Example.com' }, 'custom_domain'],
      ['basic auth without user', { basic_auth: ':secret' }, 'basic_auth'],
      ['basic auth without password', { basic_auth: 'user:' }, 'basic_auth'],
      ['basic auth with a newline', { basic_auth: 'user:se\ncret' }, 'basic_auth'],
      ['[REDACTED] as basic auth on create', { basic_auth: '[REDACTED]' }, 'basic_auth'],
    ])('refuses %s', async (_, fields, field) => {
      const res = await api.post('/api/status_pages', { name: 'Bad', monitors: [seeded.api.id], ...fields });
      expect(res.status).toBe(422);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    });

    it('accepts the limits: 100 code points, 20 monitors, every period, a long domain', async () => {
      const twenty = [seeded.api.id, seeded.web.id];
      while (twenty.length < 20) twenty.push(await newMonitor(api, `Filler ${twenty.length}`));
      for (const period of [7, 30, 90]) {
        const res = await api.post('/api/status_pages', {
          name: '🚦'.repeat(100),
          monitors: twenty,
          period,
          custom_domain: `${'a'.repeat(63)}.${'b'.repeat(63)}.example`,
          basic_auth: 'zoë:a password with spaces: and colons',
        });
        expect(res.status).toBe(201);
        expect(res.body.data).toMatchObject({ period, monitors: twenty, basic_auth: '[REDACTED]' });
        expect((await api.delete(page(res.body.data.id))).status).toBe(204);
      }
      for (const id of twenty.slice(2)) expect((await api.delete(`/api/monitors/${id}`)).status).toBe(204);
    });

    it('lists newest first, 20 a page by default, with truthful pagination', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 21; i++) {
        clock.advance(1000);
        ids.push((await api.post('/api/status_pages', { name: `Page ${i}`, monitors: [seeded.web.id] })).body.data.id);
      }
      clock.set(SEED_NOW_MS);
      const first = await api.get('/api/status_pages');
      expect(first.status).toBe(200);
      expect(Object.keys(first.body.data).sort()).toEqual(['pagination', 'status_pages']);
      expect(first.body.data.pagination).toEqual({
        page: 1,
        per_page: 20,
        total: 22,
        total_pages: 2,
        has_next: true,
        has_prev: false,
      });
      expect(first.body.data.status_pages[0].id).toBe(ids[20]);
      const asc = await api.get('/api/status_pages?order=asc&per_page=1');
      expect(asc.body.data.status_pages.map((p: { id: string }) => p.id)).toEqual([seeded.pageId]);
      const past = await api.get('/api/status_pages?page=99');
      expect(past.status).toBe(200);
      expect(past.body.data.status_pages).toEqual([]);
      expect(past.body.data.pagination).toMatchObject({ page: 99, total: 22, has_next: false, has_prev: true });
      for (const query of ['per_page=0', 'per_page=101', 'page=0', 'order=up', 'sort=name']) {
        expect((await api.get(`/api/status_pages?${query}`)).status).toBe(422);
      }
      for (const id of ids) expect((await api.delete(page(id))).status).toBe(204);
      expect((await api.get('/api/status_pages')).body.data.pagination.total).toBe(1);
    });

    it('updates with PUT and PATCH alike: only the given fields change, read-only ones are ignored', async () => {
      const created = await api.post('/api/status_pages', {
        name: 'Editable',
        monitors: [seeded.api.id, seeded.web.id],
        custom_domain: 'edit.example.org',
        basic_auth: 'viewer:secret',
      });
      const id = created.body.data.id as string;
      clock.advance(5000);
      const patched = await api.patch(page(id), { period: 90 });
      expect(patched.status).toBe(200);
      expect(patched.body.data).toEqual({
        ...created.body.data,
        period: 90,
        updated_at: SEED_NOW_MS / 1000 + 5,
      });
      const put = await api.put(page(id), { name: 'Renamed', monitors: [seeded.web.id] });
      expect(put.body.data).toMatchObject({
        name: 'Renamed',
        monitors: [seeded.web.id],
        period: 90,
        custom_domain: 'edit.example.org',
        basic_auth: '[REDACTED]',
      });
      // A GET body sent back changes nothing (id, url, created_at, updated_at ignored; [REDACTED] keeps the secret).
      const got = (await api.get(page(id))).body.data;
      for (const method of ['put', 'patch'] as const) {
        const back = await api[method](page(id), { ...got, id: UNKNOWN_ID, url: 'x', created_at: 1 });
        expect(back.status).toBe(200);
        expect(back.body.data).toEqual(got);
      }
      expect((await api.patch(page(id), {})).body.data).toEqual(got);
      expect((await api.put(page(id), { theme: 'dark' })).status).toBe(422);
      // "" and null clear the domain and the basic auth; then [REDACTED] has nothing to keep.
      expect((await api.put(page(id), { custom_domain: '', basic_auth: null })).body.data).toMatchObject({
        custom_domain: null,
        basic_auth: null,
      });
      expect((await api.patch(page(id), { custom_domain: null, basic_auth: '' })).status).toBe(200);
      const redacted = await api.patch(page(id), { basic_auth: '[REDACTED]' });
      expect(redacted.status).toBe(422);
      expect(redacted.body.error.details).toEqual([
        { field: 'basic_auth', message: 'must be the real value, not [REDACTED]' },
      ]);
      // A missing page is 404 before a bad body is 422.
      expect((await api.patch(page(UNKNOWN_ID), { period: 1 })).body.error.code).toBe('STATUS_PAGE_NOT_FOUND');
      expect((await api.delete(page(id))).status).toBe(204);
      clock.set(SEED_NOW_MS);
    });

    it('answers a malformed, unknown or other account’s id with the same 404', async () => {
      const answers = [];
      for (const [client, id] of [
        [api, UNKNOWN_ID],
        [api, 'not-an-id'],
        [api, UNKNOWN_ID.toUpperCase()],
        [other, seeded.pageId],
      ] as const) {
        for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
          const res = await client.request(method, page(id), method.startsWith('P') ? { json: { period: 7 } } : {});
          answers.push(`${res.status} ${res.text}`);
        }
      }
      expect(new Set(answers)).toEqual(
        new Set(['404 {"status":"error","error":{"code":"STATUS_PAGE_NOT_FOUND","message":"Status page not found."}}']),
      );
      expect((await other.get('/api/status_pages')).body.data.status_pages).toEqual([]);
      expect((await api.get(page())).body.data.name).toBe('Acme <Status>');
    });

    it('refuses another account’s monitors like unknown ones', async () => {
      const theirs = await newMonitor(other);
      for (const monitors of [[seeded.api.id], [seeded.web.id, UNKNOWN_ID]]) {
        const res = await other.post('/api/status_pages', { name: 'Theirs', monitors: [theirs, ...monitors] });
        expect(res.status).toBe(422);
        expect(res.body.error.details).toEqual(
          monitors.map((_, i) => ({ field: `monitors[${i + 1}]`, message: 'is not a monitor of this account' })),
        );
      }
      const mine = await api.patch(page(), { monitors: [seeded.api.id, theirs] });
      expect(mine.body.error.details).toEqual([{ field: 'monitors[1]', message: 'is not a monitor of this account' }]);
      expect((await other.delete(`/api/monitors/${theirs}`)).status).toBe(204);
    });

    it('keeps a custom domain unique across accounts, in any case, until it is cleared', async () => {
      const mine = await api.post('/api/status_pages', {
        name: 'Mine',
        monitors: [seeded.web.id],
        custom_domain: 'Status.Acme.Example',
      });
      expect(mine.body.data.custom_domain).toBe('status.acme.example');
      const theirMonitor = await newMonitor(other);
      const claim = { name: 'Theirs', monitors: [theirMonitor], custom_domain: 'STATUS.acme.example' };
      const theirs = await other.post('/api/status_pages', claim);
      expect(theirs.status).toBe(422);
      expect(theirs.body.error.details).toEqual([
        { field: 'custom_domain', message: 'is already used by another status page' },
      ]);
      // Another page of the same account cannot take it either; the page itself may keep it.
      const second = await api.post('/api/status_pages', { name: 'Second', monitors: [seeded.web.id] });
      expect((await api.patch(page(second.body.data.id), { custom_domain: 'status.acme.example' })).status).toBe(422);
      expect((await api.put(page(mine.body.data.id), { custom_domain: 'status.acme.example' })).status).toBe(200);
      // Freed, it can be claimed.
      expect((await api.patch(page(mine.body.data.id), { custom_domain: '' })).status).toBe(200);
      const claimed = await other.post('/api/status_pages', claim);
      expect(claimed.status).toBe(201);
      for (const [client, id] of [
        [api, mine.body.data.id],
        [api, second.body.data.id],
        [other, claimed.body.data.id],
      ] as const) {
        expect((await client.delete(page(id))).status).toBe(204);
      }
      expect((await other.delete(`/api/monitors/${theirMonitor}`)).status).toBe(204);
    });

    it('enforces status_pages:read and status_pages:write', async () => {
      const reader = (await c.newKey(ownerId, ['status_pages:read'])).client;
      const writer = (await c.newKey(ownerId, ['status_pages:write'])).client;
      const neither = (await c.newKey(ownerId, ['monitors:read', 'monitors:write'])).client;
      expect((await reader.get('/api/status_pages')).status).toBe(200);
      expect((await reader.get(page())).status).toBe(200);
      for (const client of [reader, neither]) {
        expect((await client.post('/api/status_pages', { name: 'x', monitors: [seeded.web.id] })).status).toBe(403);
        expect((await client.put(page(), { period: 30 })).status).toBe(403);
        expect((await client.patch(page(), { period: 30 })).status).toBe(403);
        expect((await client.delete(page())).status).toBe(403);
      }
      expect((await writer.get(page())).status).toBe(403);
      expect((await neither.get('/api/status_pages')).body.error.code).toBe('FORBIDDEN');
      expect((await writer.patch(page(), { period: 7 })).status).toBe(200);
      expect((await api.get(page())).body.data.period).toBe(7);
    });
  });

  describe('public page', () => {
    it('serves HTML and JSON without a key, with the same facts and no monitor settings', async () => {
      const res = await publicGet(`/status/${seeded.pageId}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=15');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      // Public pages are never charged to the account's rate limit.
      expect([...res.headers.keys()].filter((k) => k.startsWith('x-ratelimit'))).toEqual([]);
      const html = await res.text();
      const json = await publicJson(`/status/${seeded.pageId}.json`);
      expect(json).toMatchObject({ name: 'Acme <Status>', period: 7, overall: 'partial_outage' });
      expect(json.generated_at).toBe(SEED_NOW_MS / 1000);
      expect(html).toContain('<h1>Acme &#60;Status&#62;</h1>');
      expect(html).toContain('data-overall="partial_outage"');

      const [apiMonitor, web] = json.monitors;
      expect(json.monitors.map((m: any) => [m.name, m.status])).toEqual([
        ['Public API', 'down'],
        ['Website', 'up'],
      ]);
      expect(apiMonitor.uptime_percent).toBe(SEEDED.apiUptime);
      expect(apiMonitor.days).toHaveLength(7);
      expect(apiMonitor.days[0].date).toBe('2026-03-09');
      expect(apiMonitor.days[6]).toEqual({ date: '2026-03-15', uptime_percent: 100, checks: 10, avg_response_ms: 100 });
      expect(apiMonitor.days[3]).toEqual({ ...SEEDED.apiBadDay, avg_response_ms: 130 });
      expect(web.uptime_percent).toBe(100);
      expect(web.days[0]).toEqual({ date: SEEDED.webEmptyDay, uptime_percent: null, checks: 0, avg_response_ms: null });

      // The HTML says the same: statuses, uptime figures, one bar per day with its tooltip.
      expect([...html.matchAll(/data-status="(\w+)"/g)].map((m) => m[1])).toEqual(['down', 'up']);
      expect([...html.matchAll(/<span class="uptime">([^<]+)</g)].map((m) => m[1])).toEqual(['97.14%', '100.00%']);
      expect([...html.matchAll(/<li class="(ok|minor|bad|none)"/g)].map((m) => m[1])).toEqual([
        ...['ok', 'ok', 'ok', 'bad', 'ok', 'ok', 'ok'],
        ...['none', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
      ]);
      expect(html).toContain('title="2026-03-12: 80.00% uptime, 10 checks"');
      expect(html.match(/<svg class="trend"/g)).toHaveLength(2);

      expect(json.incidents.map((i: any) => [i.monitor, i.reason, i.resolved_at === null])).toEqual([
        ['Public API', 'connection refused', true],
        ['Public API', 'HTTP 503', false],
      ]);
      expect(html.match(/<li class="incident/g)).toHaveLength(json.incidents.length);
      expect(html).toContain('HTTP 503');

      for (const text of [html, JSON.stringify(json)]) {
        for (const secret of SECRET_SETTINGS) expect(text).not.toContain(secret);
        expect(text).not.toContain(seeded.api.id);
        expect(text).not.toContain('eu-west-1');
      }
    });

    it('answers an unknown or malformed page with 404, HTML or JSON', async () => {
      for (const id of [UNKNOWN_ID, 'nope', UNKNOWN_ID.toUpperCase()]) {
        const html = await publicGet(`/status/${id}`);
        expect(html.status).toBe(404);
        expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(await html.text()).toContain('<h1>Status page not found.</h1>');
        const json = await publicGet(`/status/${id}.json`);
        expect(json.status).toBe(404);
        expect(await json.json()).toEqual({
          status: 'error',
          error: { code: 'STATUS_PAGE_NOT_FOUND', message: 'Status page not found.' },
        });
      }
    });

    it('sends the HTML gzipped to clients that take it', async () => {
      const zipped = await raw(`/status/${seeded.pageId}`, { 'accept-encoding': 'gzip, br' });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toBe('Accept-Encoding');
      const plain = await raw(`/status/${seeded.pageId}`, { 'accept-encoding': 'gzip;q=0, identity' });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(gunzipSync(zipped.body).toString('utf8')).toBe(plain.body.toString('utf8'));
      expect(zipped.body.length).toBeLessThan(plain.body.length / 3);
    });

    it('serves a page from memory for 15 s, and at once after the page changes', async () => {
      const before = await publicJson(`/status/${seeded.pageId}.json`);
      // A new DOWN result today, written behind the page's back: still the cached page …
      const writer = c.app.get(ResultsWriter);
      writer.add(probeResult(seeded.web.id, 'eu-west-1', 'down', null), SEED_NOW_MS / 1000 - 30);
      await writer.flush();
      clock.advance(14_999);
      expect(await publicJson(`/status/${seeded.pageId}.json`)).toEqual(before);
      // … until 15 s have passed.
      clock.advance(1);
      const after = await publicJson(`/status/${seeded.pageId}.json`);
      expect(after.monitors[1].days[6]).toMatchObject({ checks: 11, uptime_percent: 90.9091 });
      expect(after.generated_at).toBe(SEED_NOW_MS / 1000 + 15);
      // A change through the API shows at once.
      expect((await api.patch(page(), { name: 'Acme, renamed' })).status).toBe(200);
      expect((await publicJson(`/status/${seeded.pageId}.json`)).name).toBe('Acme, renamed');
      expect((await api.patch(page(), { name: 'Acme <Status>' })).status).toBe(200);
      clock.set(SEED_NOW_MS);
    });

    it('renders an expired page once for the requests that arrive together', async () => {
      clock.advance(60_000); // past any render kept so far
      const repository = c.app.get(StatusPagesRepository);
      const findPublic = repository.findPublic.bind(repository);
      // A render that takes a while (SQLite answers at once: requests would not overlap).
      const reads = jest.spyOn(repository, 'findPublic').mockImplementation(async (id: string) => {
        const found = await findPublic(id);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return found;
      });
      try {
        const [json, html] = await Promise.all([
          Promise.all(Array.from({ length: 6 }, () => publicJson(`/status/${seeded.pageId}.json`))),
          Promise.all(Array.from({ length: 6 }, () => publicGet(`/status/${seeded.pageId}`))),
        ]);
        expect(reads).toHaveBeenCalledTimes(1);
        expect(json.map((answer) => answer.generated_at)).toEqual(Array(6).fill(SEED_NOW_MS / 1000 + 60));
        expect(html.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      } finally {
        reads.mockRestore();
        clock.set(SEED_NOW_MS);
      }
    });

    it('does not keep a render that a change of the page overtook', async () => {
      clock.advance(120_000); // past any render kept so far
      const repository = c.app.get(StatusPagesRepository);
      const findPublic = repository.findPublic.bind(repository);
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // The render reads the page, then waits while the page is renamed through the API.
      const reads = jest.spyOn(repository, 'findPublic').mockImplementationOnce(async (id: string) => {
        const found = await findPublic(id);
        await gate;
        return found;
      });
      try {
        const overtaken = publicJson(`/status/${seeded.pageId}.json`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect((await api.patch(page(), { name: 'Acme, renamed' })).status).toBe(200);
        release();
        expect((await overtaken).name).toBe('Acme <Status>');
        // The next request renders again rather than being answered the overtaken render.
        expect((await publicJson(`/status/${seeded.pageId}.json`)).name).toBe('Acme, renamed');
        expect(reads).toHaveBeenCalledTimes(2);
      } finally {
        reads.mockRestore();
        expect((await api.patch(page(), { name: 'Acme <Status>' })).status).toBe(200);
        clock.set(SEED_NOW_MS);
      }
    });

    it('shows incident reasons only when the page says so', async () => {
      expect((await api.put(page(), { show_incident_reasons: false })).status).toBe(200);
      const json = await publicJson(`/status/${seeded.pageId}.json`);
      expect(json.incidents).toHaveLength(2);
      for (const incident of json.incidents)
        expect(Object.keys(incident).sort()).toEqual(['monitor', 'resolved_at', 'started_at']);
      const html = await (await publicGet(`/status/${seeded.pageId}`)).text();
      expect(html).not.toContain('HTTP 503');
      expect(html).not.toContain('connection refused');
      expect((await api.put(page(), { show_incident_reasons: true })).status).toBe(200);
    });

    it('shows reasons without the addresses, host names, ports or URLs in them; the API keeps them', async () => {
      const tcp = await newMonitor(api, 'Database');
      const tls = await newMonitor(api, 'Portal');
      const transitions = c.app.get(TransitionWriter);
      const now = SEED_NOW_MS / 1000;
      const full: Record<string, string> = {
        [tcp]: 'connection refused (127.0.0.1:18503)',
        [tls]: 'certificate is not valid for portal.internal.example.com',
      };
      for (const [monitorId, reason] of Object.entries(full)) {
        await transitions.write({ monitorId, status: 'down', changedAt: now - 120, reason, evidence: {} });
      }
      const created = await api.post('/api/status_pages', {
        name: 'Reasons',
        monitors: [tcp, tls],
        show_incident_reasons: true,
      });
      expect(created.status).toBe(201);
      const id = created.body.data.id as string;

      const json = await publicJson(`/status/${id}.json`);
      expect(json.incidents.map((i: { monitor: string; reason: string }) => [i.monitor, i.reason]).sort()).toEqual([
        ['Database', 'connection refused'],
        ['Portal', 'certificate is not valid for the host name'],
      ]);
      const html = await (await publicGet(`/status/${id}`)).text();
      expect(html).toContain('connection refused</li>');
      expect(html).toContain('certificate is not valid for the host name</li>');
      for (const text of [html, JSON.stringify(json)]) {
        for (const secret of ['127.0.0.1', '18503', 'portal.internal.example.com', 'internal.example']) {
          expect(text).not.toContain(secret);
        }
      }
      // The API, behind a key, keeps the whole reason.
      for (const [monitorId, reason] of Object.entries(full)) {
        const res = await api.get(`/api/incidents?monitor_id=${monitorId}`);
        expect(res.body.data.incidents.map((i: { reason: string }) => i.reason)).toEqual([reason]);
      }
      expect((await api.delete(page(id))).status).toBe(204);
      for (const monitorId of [tcp, tls]) expect((await api.delete(`/api/monitors/${monitorId}`)).status).toBe(204);
    });

    it('serves the page at / and /index.json of its custom domain (Host, any case, any port)', async () => {
      expect((await api.patch(page(), { custom_domain: 'status.acme.example' })).status).toBe(200);
      const html = await raw('/', { host: 'status.acme.example' });
      expect(html.status).toBe(200);
      expect(html.body.toString()).toContain('<h1>Acme &#60;Status&#62;</h1>');
      const json = await raw('/index.json', { host: 'STATUS.Acme.example:8080' });
      expect(json.status).toBe(200);
      expect(JSON.parse(json.body.toString()).data).toEqual(await publicJson(`/status/${seeded.pageId}.json`));
      // Any other host: `/` is the web dashboard (docs/decisions/0023-dashboard.md), never this page.
      const isDashboard = (res: { headers: Record<string, unknown>; body: Buffer }) =>
        String(res.headers['content-security-policy']).includes("script-src 'self'") &&
        !res.body.toString().includes('Acme &#60;Status&#62;');
      for (const host of ['unknown.example', '127.0.0.1', 'acme.example']) {
        expect(isDashboard(await raw('/', { host }))).toBe(true);
        expect((await raw('/index.json', { host })).status).toBe(404);
      }
      // Cleared, the domain serves the page no more.
      expect((await api.patch(page(), { custom_domain: null })).status).toBe(200);
      expect(isDashboard(await raw('/', { host: 'status.acme.example' }))).toBe(true);
      expect((await raw('/index.json', { host: 'status.acme.example' })).status).toBe(404);
    });

    it('asks for basic auth when set, on every route of the page, and lets the right credentials in', async () => {
      expect(
        (await api.patch(page(), { basic_auth: 'viewer:p4ss:word', custom_domain: 'locked.acme.example' })).status,
      ).toBe(200);
      for (const path of [`/status/${seeded.pageId}`, `/status/${seeded.pageId}.json`]) {
        const challenge = await publicGet(path);
        expect(challenge.status).toBe(401);
        expect(challenge.headers.get('www-authenticate')).toBe('Basic realm="Acme <Status>", charset="UTF-8"');
        expect(challenge.headers.get('cache-control')).toBe('no-store');
        const body = await challenge.text();
        expect(body).not.toContain('Public API');
        expect((await publicGet(path, { authorization: basic('viewer:wrong') })).status).toBe(401);
        expect((await publicGet(path, { authorization: basic('viewer:p4ss:wor') })).status).toBe(401);
        expect((await publicGet(path, { authorization: `Bearer ${basic('viewer:p4ss:word')}` })).status).toBe(401);
        const ok = await publicGet(path, { authorization: basic('viewer:p4ss:word') });
        expect(ok.status).toBe(200);
        expect(ok.headers.get('cache-control')).toBe('private, max-age=15');
      }
      expect((await raw('/', { host: 'locked.acme.example' })).status).toBe(401);
      expect(
        (await raw('/index.json', { host: 'locked.acme.example', authorization: basic('viewer:p4ss:word') })).status,
      ).toBe(200);
      expect((await api.get(page())).body.data.basic_auth).toBe('[REDACTED]');
      // [REDACTED] keeps the credentials; "" clears them.
      expect((await api.put(page(), { basic_auth: '[REDACTED]', period: 7 })).status).toBe(200);
      expect((await publicGet(`/status/${seeded.pageId}`)).status).toBe(401);
      expect((await api.put(page(), { basic_auth: '', custom_domain: '' })).body.data.basic_auth).toBeNull();
      expect((await publicGet(`/status/${seeded.pageId}`)).status).toBe(200);
    });

    it('challenges with a valid header whatever script the page name is in', async () => {
      for (const [name, realm] of [
        ['Ω Статус 状态 🚀 Zoë "x"', 'Zoe x'],
        ['状态页', 'Status page'],
      ] as const) {
        const created = await api.post('/api/status_pages', {
          name,
          monitors: [seeded.web.id],
          basic_auth: 'viewer:p4ss',
          custom_domain: 'unicode.acme.example',
        });
        expect(created.status).toBe(201);
        const id = created.body.data.id as string;
        for (const path of [`/status/${id}`, `/status/${id}.json`]) {
          const challenge = await publicGet(path);
          expect(challenge.status).toBe(401);
          expect(challenge.headers.get('www-authenticate')).toBe(`Basic realm="${realm}", charset="UTF-8"`);
          expect((await publicGet(path, { authorization: basic('viewer:p4ss') })).status).toBe(200);
        }
        const domain = await raw('/index.json', { host: 'unicode.acme.example' });
        expect([domain.status, domain.headers['www-authenticate']]).toEqual([
          401,
          `Basic realm="${realm}", charset="UTF-8"`,
        ]);
        expect((await publicJson(`/status/${id}.json`, { authorization: basic('viewer:p4ss') })).name).toBe(name);
        expect((await api.delete(page(id))).status).toBe(204);
      }
    });

    it('takes a deleted monitor off its pages, and keeps a page whose monitors are all gone', async () => {
      const lonely = await newMonitor(api, 'Lonely');
      const both = await api.post('/api/status_pages', { name: 'Both', monitors: [lonely, seeded.web.id] });
      const alone = await api.post('/api/status_pages', { name: 'Alone', monitors: [lonely] });
      expect((await publicJson(`/status/${both.body.data.id}.json`)).monitors).toHaveLength(2); // now cached
      expect((await api.delete(`/api/monitors/${lonely}`)).status).toBe(204);
      expect((await api.get(page(both.body.data.id))).body.data.monitors).toEqual([seeded.web.id]);
      expect((await api.get(page(alone.body.data.id))).body.data.monitors).toEqual([]);
      // At once on the public page, though it was cached.
      const json = await publicJson(`/status/${both.body.data.id}.json`);
      expect(json.monitors.map((m: { name: string }) => m.name)).toEqual(['Website']);
      const empty = await publicGet(`/status/${alone.body.data.id}`);
      expect(empty.status).toBe(200);
      expect(await empty.text()).toContain('No monitors on this page.');
      // The emptied page can still be renamed; a new list must have at least one monitor.
      expect((await api.patch(page(alone.body.data.id), { name: 'Still here' })).status).toBe(200);
      expect((await api.patch(page(alone.body.data.id), { monitors: [] })).status).toBe(422);
      for (const id of [both.body.data.id, alone.body.data.id]) expect((await api.delete(page(id))).status).toBe(204);
      // A deleted page is gone from the public side at once.
      expect((await publicGet(`/status/${both.body.data.id}.json`)).status).toBe(404);
    });
  });
});
