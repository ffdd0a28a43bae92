import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError } from '#runtime';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { plainRequest, type PlainAnswer } from '../support/raw-http.js';

/**
 * Cross-origin reads (docs/decisions/0017-http-edge-hardening.md): the public status-page JSON
 * from any origin, without credentials; `/api` only from the origins of CORS_ORIGINS.
 */
const DASHBOARD = 'https://dash.example.com';
const EVIL = 'https://evil.example';
const WIDGET = 'https://widget.example.org';

const CORS_HEADERS = (answer: PlainAnswer) =>
  Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name.startsWith('access-control-')));

describe('CORS', () => {
  let db: TestDatabase;
  let closedDb: TestDatabase;
  let c: RunningCoordinator;
  let closed: RunningCoordinator;
  let api: ApiClient;
  let closedKey: string;
  let port: number;
  let closedPort: number;
  let pageId: string;
  let lockedId: string;
  let monitorId: string;

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    c = await startCoordinator(db.url, {
      env: { DISPATCH_ENABLED: 'false', CORS_ORIGINS: `${DASHBOARD}, http://localhost:3000` },
    });
    // Another without CORS_ORIGINS: no origin may call its /api.
    closedDb = await testDatabases()[0]!.create();
    closed = await startCoordinator(closedDb.url, { env: { DISPATCH_ENABLED: 'false' } });
    closedKey = (await closed.newAccount()).apiKey;
    port = Number(new URL(c.baseUrl).port);
    closedPort = Number(new URL(closed.baseUrl).port);
    api = (await c.newAccount()).client;
    const monitor = await api.post('/api/monitors', {
      name: 'Site',
      settings: { https: { url: 'https://x.example/' } },
      regions: ['eu-west-1'],
    });
    monitorId = monitor.body.data.id as string;
    const page = await api.post('/api/status_pages', {
      name: 'Open',
      monitors: [monitorId],
      custom_domain: 'status.acme.example',
    });
    pageId = page.body.data.id as string;
    const locked = await api.post('/api/status_pages', { name: 'Locked', monitors: [monitorId], basic_auth: 'u:p' });
    lockedId = locked.body.data.id as string;
  }, 60_000);

  afterAll(async () => {
    await closed?.close();
    await c?.close();
    await closedDb?.drop();
    await db?.drop();
  });

  const preflight = (p: number, path: string, origin: string, method: string, headers?: string) =>
    plainRequest(p, 'OPTIONS', path, {
      origin,
      'access-control-request-method': method,
      ...(headers ? { 'access-control-request-headers': headers } : {}),
    });

  describe('the public status-page JSON', () => {
    it('is readable from any origin, without credentials', async () => {
      const res = await plainRequest(port, 'GET', `/status/${pageId}.json`, { origin: WIDGET });
      expect(res.status).toBe(200);
      expect(CORS_HEADERS(res)).toEqual({ 'access-control-allow-origin': '*' });
      expect(res.body.data.name).toBe('Open');
      // On the custom domain too, and its errors as well (a widget can tell "not found").
      const domain = await plainRequest(port, 'GET', '/index.json', { host: 'status.acme.example', origin: WIDGET });
      expect([domain.status, domain.headers['access-control-allow-origin']]).toEqual([200, '*']);
      // Whatever CORS_ORIGINS says.
      for (const p of [port, closedPort]) {
        const missing = await plainRequest(p, 'GET', '/status/0123456789abcdef01234567.json', { origin: WIDGET });
        expect([missing.status, missing.headers['access-control-allow-origin']]).toEqual([404, '*']);
      }
    });

    it('answers a preflight 204 with GET and HEAD, and no credentials or extra headers', async () => {
      for (const path of [`/status/${pageId}.json`, '/index.json']) {
        const res = await preflight(port, path, WIDGET, 'GET');
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
        expect(CORS_HEADERS(res)).toEqual({
          'access-control-allow-origin': '*',
          'access-control-allow-methods': 'GET, HEAD',
          'access-control-max-age': '600',
        });
      }
    });

    it('keeps a page behind basic auth unreadable cross-origin: Authorization is not allowed', async () => {
      const res = await preflight(port, `/status/${lockedId}.json`, WIDGET, 'GET', 'authorization');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-headers']).toBeUndefined();
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect((await plainRequest(port, 'GET', `/status/${lockedId}.json`, { origin: WIDGET })).status).toBe(401);
    });

    it('leaves the HTML page and the other public routes same-origin', async () => {
      for (const path of [`/status/${pageId}`, '/healthz', '/web_api/checker_ip_addresses']) {
        const res = await plainRequest(port, 'GET', path, { origin: WIDGET });
        expect(res.status).toBe(200);
        expect(CORS_HEADERS(res)).toEqual({});
      }
    });
  });

  describe('/api', () => {
    it('answers a preflight from a listed origin 204 with the methods of the path', async () => {
      for (const [path, methods] of [
        ['/api/monitors', 'GET, HEAD, POST'],
        [`/api/monitors/${monitorId}`, 'DELETE, GET, HEAD, PUT'],
      ] as const) {
        const res = await preflight(port, path, DASHBOARD, 'POST', 'authorization, content-type');
        expect(res.status).toBe(204);
        expect(CORS_HEADERS(res)).toEqual({
          'access-control-allow-origin': DASHBOARD,
          'access-control-allow-methods': methods,
          'access-control-allow-headers': 'Authorization, Content-Type',
          'access-control-max-age': '600',
          'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
        });
        expect(res.headers.vary).toBe('Origin');
        // A preflight carries no key: it is neither refused nor charged.
        expect(Object.keys(res.headers).filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
      }
      const local = await preflight(port, '/api/status_pages', 'http://localhost:3000', 'GET');
      expect(local.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    });

    it('lets a listed origin read answers, errors included, with the rate-limit headers exposed', async () => {
      const auth = { origin: DASHBOARD, authorization: `Bearer ${api.apiKey!}` };
      const ok = await plainRequest(port, 'GET', '/api/monitors', auth);
      expect(ok.status).toBe(200);
      expect(ok.headers['access-control-allow-origin']).toBe(DASHBOARD);
      expect(ok.headers['access-control-expose-headers']).toBe(
        'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
      );
      expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
      expect(ok.headers.vary).toContain('Origin');
      const refused = await plainRequest(port, 'GET', '/api/monitors', { origin: DASHBOARD });
      expect([refused.status, refused.headers['access-control-allow-origin']]).toEqual([401, DASHBOARD]);
      const wrongMethod = await plainRequest(port, 'PUT', '/api/monitors', auth);
      expect([wrongMethod.status, wrongMethod.headers['access-control-allow-origin']]).toEqual([405, DASHBOARD]);
    });

    it('gives an origin that is not listed nothing to read', async () => {
      for (const origin of [EVIL, 'null', `${DASHBOARD}.evil.example`, 'http://dash.example.com']) {
        const pre = await preflight(port, '/api/monitors', origin, 'POST', 'authorization');
        expect(pre.status).toBe(204);
        expect(CORS_HEADERS(pre)).toEqual({});
        const res = await plainRequest(port, 'GET', '/api/monitors', {
          origin,
          authorization: `Bearer ${api.apiKey!}`,
        });
        expect(res.status).toBe(200);
        expect(CORS_HEADERS(res)).toEqual({});
        expect(res.headers.vary).toContain('Origin');
      }
    });

    it('without CORS_ORIGINS, gives no origin anything to read', async () => {
      const pre = await preflight(closedPort, '/api/monitors', DASHBOARD, 'GET', 'authorization');
      expect(pre.status).toBe(204);
      expect(CORS_HEADERS(pre)).toEqual({});
      const res = await plainRequest(closedPort, 'GET', '/api/monitors', {
        origin: DASHBOARD,
        authorization: `Bearer ${closedKey}`,
      });
      expect(res.status).toBe(200);
      expect(CORS_HEADERS(res)).toEqual({});
      expect(res.headers.vary).toBeUndefined();
    });
  });

  it('answers a preflight for an unknown path 404, and a bare OPTIONS 405 as before', async () => {
    const unknown = await preflight(port, '/api/nothing-here', DASHBOARD, 'GET');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const bare = await plainRequest(port, 'OPTIONS', '/api/monitors');
    expect([bare.status, bare.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
  });

  it.each(['dash.example.com', `${DASHBOARD}/`, '*', `${DASHBOARD}/app`])(
    'refuses CORS_ORIGINS=%j at boot',
    (value) => {
      expect(() => loadCoordinatorConfig({ CORS_ORIGINS: value })).toThrow(ConfigError);
      expect(() => loadCoordinatorConfig({ CORS_ORIGINS: value })).toThrow('CORS_ORIGINS');
    },
  );
});
