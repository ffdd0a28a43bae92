import { Inject, Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import { acceptsGzip } from '../http/gzip.js';

/** Where the dashboard's build (Vite's output) is read from. */
export const DASHBOARD_DIR = Symbol('DASHBOARD_DIR');

/**
 * The dashboard's build: `<repository>/dist/dashboard`, the same from the sources (tests) and
 * from dist/ (npm start, the container image): the nearest folder above this file with a
 * package.json is the repository's root.
 */
export function defaultDashboardDir(from = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return join(from, 'dashboard');
    dir = parent;
  }
  return join(dir, 'dist', 'dashboard');
}

/**
 * The dashboard's headers (docs/decisions/0023-dashboard.md): scripts and styles only from
 * this origin, never inline; `style-src 'self'` holds because the app sets styles only through
 * the CSSOM (React's `style` prop, uPlot), which CSP does not govern. No framing, no plugins.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const DASHBOARD_HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** Vite names what it emits `name-<hash>.ext`, flat under assets/: nothing else is served. */
const ASSET_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(js|css|svg|png|woff2|map)$/;

export const ASSET_TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  map: 'application/json; charset=utf-8',
};

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer | null;
}

const NOT_BUILT =
  '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
  '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">' +
  '<title>Picket: the dashboard is not built</title></head><body><main><h1>The dashboard is not built</h1>' +
  '<p>The API works, but the web dashboard has not been built on this machine. Run <code>npm run build</code> ' +
  '(or <code>npm start</code>, which builds what is missing) in the Picket folder, then reload this page.</p>' +
  '<p>The API is described at <a href="/api/openapi.json">/api/openapi.json</a>.</p></main></body></html>';

export { acceptsGzip };

/**
 * Serves the built dashboard: `index.html` for `/` and every client route (`no-cache`: a new
 * build is seen at once), hashed assets forever (`immutable`). Assets are read once and kept
 * with their gzip; index.html is read on each request (it is small, and a rebuild under a
 * running server must show).
 */
@Injectable()
export class DashboardFiles {
  private readonly assets = new Map<string, Asset>();

  constructor(@Inject(DASHBOARD_DIR) private readonly dir: string) {}

  /**
   * index.html; `preloads` are same-origin API paths the browser is told to fetch at once
   * (`<link rel="preload" as="fetch">`, which the app's own request of the path then takes).
   */
  async sendIndex(reply: FastifyReply, preloads: readonly string[] = []): Promise<void> {
    void reply.headers(DASHBOARD_HEADERS).header('cache-control', 'no-cache').header('vary', 'Cookie');
    const html = await readFile(join(this.dir, 'index.html'), 'utf8').catch(() => null);
    if (html === null) {
      void reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      return;
    }
    const links = preloads.map((path) => `<link rel="preload" href="${path}" as="fetch" crossorigin="anonymous">`);
    void reply
      .type('text/html; charset=utf-8')
      .send(links.length === 0 ? html : html.replace('</head>', `${links.join('')}</head>`));
  }

  async sendAsset(name: string, acceptEncoding: string | undefined, reply: FastifyReply): Promise<void> {
    const asset = await this.asset(name);
    void reply.headers(DASHBOARD_HEADERS);
    if (asset === null) {
      void reply
        .status(404)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('No such file.');
      return;
    }
    void reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('vary', 'Accept-Encoding')
      .type(asset.type);
    if (asset.gzip !== null && acceptsGzip(acceptEncoding))
      void reply.header('content-encoding', 'gzip').send(asset.gzip);
    else void reply.send(asset.body);
  }

  private async asset(name: string): Promise<Asset | null> {
    const match = ASSET_NAME.exec(name);
    if (match === null) return null;
    const known = this.assets.get(name);
    if (known) return known;
    const body = await readFile(join(this.dir, 'assets', name)).catch(() => null);
    if (body === null) return null;
    const type = ASSET_TYPES[match[1]!]!;
    const compressible = type.startsWith('text/') || type.startsWith('application/json') || type === 'image/svg+xml';
    const asset = { type, body, gzip: compressible && body.length > 1024 ? gzipSync(body) : null };
    this.assets.set(name, asset);
    return asset;
  }
}
