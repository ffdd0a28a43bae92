import type { FastifyRequest } from 'fastify';
import { normalOrigin } from './session-rules.js';

/**
 * The origins a browser may call this server from with its session: the request's own
 * (`https` when it came over TLS, and its Host), and PUBLIC_URL's, which is what browsers see
 * behind a reverse proxy that terminates TLS (docs/decisions/0022-users-and-sessions.md).
 */
export function ownOrigins(request: FastifyRequest, publicUrl: string | undefined): string[] {
  const own = normalOrigin(`${request.protocol}://${request.host}`);
  const configured = publicUrl === undefined ? null : normalOrigin(publicUrl);
  return [own, configured].filter((o): o is string => o !== null);
}

/** Whether the session cookie gets `Secure`: the request came over HTTPS, or PUBLIC_URL is https. */
export function secureCookie(request: FastifyRequest, publicUrl: string | undefined): boolean {
  return request.protocol === 'https' || (publicUrl?.toLowerCase().startsWith('https:') ?? false);
}

/** A single-valued header (a repeated one counts as absent-but-present garbage: its first value). */
export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
