import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header a request id arrives in (from a proxy or client) and is echoed in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * An incoming id is kept when it is 1-128 letters, digits, `.`, `_`, `:` or `-` (UUIDs, ULIDs,
 * proxies' own ids); anything else, which would let a client write into our log lines, is
 * replaced.
 */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of a request: its valid `X-Request-Id`, or a new UUID. Fastify's `genReqId`. */
export function requestIdOf(request: Pick<IncomingMessage, 'headers'>): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
