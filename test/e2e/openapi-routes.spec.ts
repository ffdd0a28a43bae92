/**
 * The OpenAPI document against the router of the running coordinator, both ways: every route
 * Fastify serves is one a controller declares, every declared route is documented, every
 * documented operation is routed, and each operation's access (`x-permission`, or
 * `security: []` for a public one) is what the route declares with `@RequirePermission` or
 * `@Public` (docs/decisions/0016-openapi-from-declarations.md).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { declaredRoutes, type DeclaredRoute } from '../../apps/coordinator/src/http/routes.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Documented {
  key: string;
  method: string;
  path: string;
  access: string;
}

/** `{name}` placeholders as a regular expression over concrete paths. */
const templatePattern = (template: string): RegExp =>
  new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`);

/** A concrete path for a template: each placeholder filled with a sample segment. */
const sample = (template: string): string => template.replace(/\{\w+\}/g, 'p0123456789');

/** The routes in Fastify's table (HEAD, which Fastify adds to every GET, left out) as `METHOD /path/{param}`. */
function fastifyRoutes(tree: string): string[] {
  const registered: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    stack.length = (m[1] ?? '').length / 4;
    stack.push(m[2] ?? '');
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of (m[3] ?? '').split(', ')) {
      if (method !== '' && method !== 'HEAD') registered.push(`${method} ${path}`);
    }
  }
  return registered;
}

describe('OpenAPI document and the router', () => {
  let db: TestDatabase;
  let coordinator: RunningCoordinator;
  let routes: DeclaredRoute[];
  let documented: Documented[];

  const routeKey = (route: DeclaredRoute) => `${route.method.toUpperCase()} ${route.path}`;

  /** The declared routes a documented operation reaches (a literal route wins over a parameter, as in Fastify). */
  function routesOf(op: Documented): DeclaredRoute[] {
    const exact = routes.filter((r) => routeKey(r) === op.key);
    if (exact.length > 0) return exact;
    const path = sample(op.path);
    return routes.filter((r) => r.method === op.method && templatePattern(r.path).test(path));
  }

  beforeAll(async () => {
    const kind = testDatabases()[0];
    if (!kind) throw new Error('no test database');
    db = await kind.create();
    coordinator = await startCoordinator(db.url);
    const controllers = [...coordinator.app.get(ModulesContainer).values()].flatMap((module) =>
      [...module.controllers.values()].map((wrapper) => wrapper.metatype as Type),
    );
    routes = declaredRoutes(controllers);
    const doc = (await coordinator.client().get('/api/openapi.json')).body;
    documented = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({
        key: `${method.toUpperCase()} ${path}`,
        method,
        path,
        access: item[method].security?.length === 0 ? 'public' : item[method]['x-permission'],
      })),
    );
  });

  afterAll(async () => {
    await coordinator?.close();
    await db?.drop();
  });

  it('Fastify serves exactly the routes the controllers declare', () => {
    const tree = coordinator.app.getHttpAdapter().getInstance().printRoutes({ commonPrefix: false });
    expect(routes.length).toBeGreaterThan(20);
    expect(fastifyRoutes(tree).sort()).toEqual(routes.map(routeKey).sort());
  });

  it('every route declares its access: public or one permission', () => {
    expect(routes.filter((r) => r.access === undefined).map(routeKey)).toEqual([]);
  });

  it('documents every route', () => {
    const reached = new Set(documented.flatMap((op) => routesOf(op).map(routeKey)));
    expect(routes.map(routeKey).filter((key) => !reached.has(key))).toEqual([]);
  });

  it('routes every documented operation to exactly one route', () => {
    const unrouted = documented.filter((op) => routesOf(op).length !== 1).map((op) => op.key);
    expect(unrouted).toEqual([]);
  });

  it("documents each operation's access as its route declares it", () => {
    const mismatches = documented
      .map((op) => ({ operation: op.key, documented: op.access, declared: routesOf(op)[0]?.access }))
      .filter((row) => row.documented !== row.declared);
    expect(mismatches).toEqual([]);
  });
});
