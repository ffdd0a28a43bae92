import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acceptsGzip, DashboardFiles, defaultDashboardDir } from './dashboard-files.js';

/** DashboardFiles behind a real Fastify, over a build folder the test lays out (or leaves missing). */
describe('DashboardFiles', () => {
  let dir: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'picket-dashboard-'));
    app = Fastify();
    const missing = new DashboardFiles(join(dir, 'not-built'));
    const built = new DashboardFiles(join(dir, 'built'));
    app.get('/missing', (_request, reply) => missing.sendIndex(reply));
    app.get('/built', (_request, reply) => built.sendIndex(reply));
    app.get<{ Params: { file: string } }>('/assets/:file', (request, reply) =>
      built.sendAsset(request.params.file, request.headers['accept-encoding'], reply),
    );
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a page saying how to build the dashboard when there is no build, never a 500', async () => {
    const res = await app.inject('/missing');
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('npm run build');
  });

  it('reads index.html on each request, so a rebuild shows without a restart', async () => {
    mkdirSync(join(dir, 'built', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'built', 'index.html'), '<!doctype html><p>one</p>');
    expect((await app.inject('/built')).body).toContain('one');
    writeFileSync(join(dir, 'built', 'index.html'), '<!doctype html><p>two</p>');
    const res = await app.inject('/built');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('two');
  });

  it('serves only hashed asset names from assets/, gzipped when accepted', async () => {
    const script = `console.log(${JSON.stringify('x'.repeat(5000))});`;
    writeFileSync(join(dir, 'built', 'assets', 'index-AbC123.js'), script);
    writeFileSync(join(dir, 'built', 'secret.txt'), 'no');
    const plain = await app.inject('/assets/index-AbC123.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.body).toBe(script);
    const zipped = await app.inject({ url: '/assets/index-AbC123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.rawPayload.length).toBeLessThan(script.length / 10);
    for (const name of ['..%2Fsecret.txt', '.hidden.js', 'index-AbC123.exe', 'secret.txt', 'nothing-here.js']) {
      expect({ name, status: (await app.inject(`/assets/${name}`)).statusCode }).toEqual({ name, status: 404 });
    }
  });

  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1, gzip;q=0.5', true],
    ['gzip;q=0', false],
    ['identity', false],
    [undefined, false],
  ])('Accept-Encoding %s takes gzip: %s', (header, takes) => {
    expect(acceptsGzip(header)).toBe(takes);
  });

  it('finds dist/dashboard at the repository root from the sources', () => {
    expect(defaultDashboardDir()).toMatch(/[/\\]dist[/\\]dashboard$/);
  });
});
