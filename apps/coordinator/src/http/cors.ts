/**
 * Cross-origin reads (docs/decisions/0017-http-edge-hardening.md): which paths a browser on
 * another origin may read, and the `Access-Control-*` headers of an answer or a preflight.
 *
 * - The public status-page JSON (`/status/{id}.json`, and `/index.json` on a custom domain) is
 *   readable from any origin: `Access-Control-Allow-Origin: *`, never with credentials, so a page
 *   behind basic auth stays unreadable cross-origin.
 * - `/api` only from the origins of CORS_ORIGINS (none by default), with `Authorization` and
 *   `Content-Type` allowed and the rate-limit headers exposed. API keys travel in
 *   `Authorization`, never in cookies, so credentials mode is never allowed.
 * - Nothing else.
 */

export type CorsPolicy = 'public' | 'api';

/** Preflight answers are cached by browsers this long (Chromium caps it at 2 h). */
export const CORS_MAX_AGE_SECONDS = 600;

/** Request headers a cross-origin `/api` call may send besides the CORS-safelisted ones. */
export const API_ALLOWED_HEADERS = ['Authorization', 'Content-Type'] as const;

/** Answer headers a cross-origin `/api` caller may read besides the CORS-safelisted ones. */
export const API_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
] as const;

/** The CORS policy of a path (without its query string), or null when no other origin may read it. */
export function corsPolicyOf(path: string): CorsPolicy | null {
  if (path === '/api' || path.startsWith('/api/')) return 'api';
  if (path === '/index.json' || /^\/status\/[^/]+\.json\/?$/.test(path)) return 'public';
  return null;
}

/** Whether a request is a CORS preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(method: string, headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  return (
    method === 'OPTIONS' &&
    typeof headers.origin === 'string' &&
    typeof headers['access-control-request-method'] === 'string'
  );
}

/**
 * The CORS headers of any answer (preflight or not) on a path, for the request's `Origin`.
 * Empty when the origin may not read it; `Vary: Origin` whenever the answer depends on it.
 */
export function corsHeaders(
  policy: CorsPolicy | null,
  origin: string | undefined,
  allowedOrigins: ReadonlySet<string>,
): Record<string, string> {
  if (policy === 'public') return { 'access-control-allow-origin': '*' };
  if (policy !== 'api' || allowedOrigins.size === 0) return {};
  if (origin === undefined || !allowedOrigins.has(origin.toLowerCase())) return { vary: 'Origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': API_EXPOSED_HEADERS.join(', '),
    vary: 'Origin',
  };
}

/**
 * The extra headers of a preflight's 204 when the origin may read the path: the path's methods
 * and, for `/api`, the request headers it may send. Empty when it may not (the browser then
 * refuses the call).
 */
export function preflightHeaders(
  policy: CorsPolicy | null,
  granted: boolean,
  methods: readonly string[],
): Record<string, string> {
  if (!granted || policy === null) return {};
  return {
    'access-control-allow-methods': methods.join(', '),
    ...(policy === 'api' ? { 'access-control-allow-headers': API_ALLOWED_HEADERS.join(', ') } : {}),
    'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
  };
}
