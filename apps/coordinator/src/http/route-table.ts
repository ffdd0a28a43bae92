/**
 * The routes the server knows, collected as Fastify registers them, so that a request for
 * a known path with the wrong method can be answered 405 (with `Allow`) instead of 404.
 */
export class RouteTable {
  private readonly routes: { pattern: RegExp; method: string }[] = [];

  add(method: string | string[], url: string): void {
    const pattern = new RegExp(
      '^' +
        url
          .split('/')
          .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/') +
        '/?$',
    );
    for (const m of Array.isArray(method) ? method : [method]) this.routes.push({ pattern, method: m.toUpperCase() });
  }

  /** Methods registered for a concrete path (empty when the path is unknown). */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) methods.add(route.method);
    return [...methods].sort();
  }
}
