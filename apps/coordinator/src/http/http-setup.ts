import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { SecureContextOptions } from 'node:tls';
import { drainConnectionsOnClose } from '#runtime';
import { corsHeaders, corsPolicyOf, isPreflight, preflightHeaders } from './cors.js';
import {
  answerClientError,
  ErrorFilter,
  noRouteError,
  sendError,
  unreadableUrlError,
  type RequestTimeLimits,
} from './error.filter.js';
import { assertUtf8ContentType, MAX_BODY_BYTES, parseJsonBody } from './json-body.js';
import { RouteTable } from './route-table.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { StrictQueryInterceptor } from './strict-query.interceptor.js';
import { InputValidationPipe } from './validation.pipe.js';

/**
 * Path parameters are never cut off by length: Node already bounds the request line (16 KiB
 * of headers), and an overlong id must get the resource's own 404 from its id pipe.
 */
const MAX_PARAM_LENGTH = 16 * 1024;

/**
 * Errors Fastify's router raises before any route or Nest filter runs (a URL with broken
 * percent-encoding): the same envelope as every other answer.
 */
function frameworkError(_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header(REQUEST_ID_HEADER, request.id);
  sendError(reply, unreadableUrlError(request.url));
}

/**
 * Idle keep-alive connections are closed after this long: Fastify's default, above the 60 s idle
 * timeout of common load balancers, so they never reuse a connection we are closing.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * A connection on which nothing moves either way for this long is closed, whatever its state
 * (a client that never reads its answer). Far above any handler's own time limit.
 */
export const IDLE_SOCKET_TIMEOUT_MS = 120_000;

export interface HttpServerOptions {
  /** HTTPS (TLS 1.2 or later) when given. */
  tls?: SecureContextOptions;
  /** HTTP_HEADERS_TIMEOUT_SECONDS and HTTP_REQUEST_TIMEOUT_SECONDS. */
  limits: RequestTimeLimits;
}

/**
 * Node's own server options for slow clients (docs/decisions/0017-http-edge-hardening.md): the
 * headers must arrive within `headersTimeout` and the whole request, body included, within
 * `requestTimeout`, or the connection is answered 400 and closed. Node checks the deadlines every
 * `connectionsCheckingInterval` (default 30 s), so a fifth of the header limit, 0.25–2 s.
 */
export function nodeServerOptions(limits: RequestTimeLimits) {
  const headersTimeout = limits.headersSeconds * 1000;
  return {
    headersTimeout,
    requestTimeout: limits.requestSeconds * 1000,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(2000, Math.max(250, Math.round(headersTimeout / 5))),
  };
}

/** The coordinator's HTTP server; HTTPS (TLS 1.2 or later) when `tls` is given. */
export function createHttpAdapter(options: HttpServerOptions): FastifyAdapter {
  const node = nodeServerOptions(options.limits);
  return new FastifyAdapter({
    // Only createServer takes headersTimeout and connectionsCheckingInterval: `http` is
    // ignored with `https`, so the HTTPS options carry them too.
    ...(options.tls ? { https: { ...options.tls, ...node } } : { http: node }),
    // Fastify sets these on the server after creating it (its requestTimeout default, 0, would
    // switch Node's off).
    requestTimeout: node.requestTimeout,
    keepAliveTimeout: node.keepAliveTimeout,
    connectionTimeout: IDLE_SOCKET_TIMEOUT_MS,
    bodyLimit: MAX_BODY_BYTES,
    logger: false,
    // Every request's id (`request.id`): a valid incoming X-Request-Id, else a new one.
    genReqId: requestIdOf,
    // `/api/monitors/` is `/api/monitors`, as the RouteTable (405 answers) already treats it;
    // otherwise a trailing slash got 405 with an Allow header naming the method just used.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
    frameworkErrors: frameworkError,
    // Broken framing, oversized headers and timeouts: our envelope, not Fastify's body.
    clientErrorHandler: (error, socket) => answerClientError(error, socket, options.limits),
  });
}

export interface HttpEdgeOptions {
  /** CORS_ORIGINS: the origins that may call `/api` from a browser. */
  corsOrigins: ReadonlySet<string>;
}

/**
 * Wires the request edge once, before routes are registered: CORS, 404 and 405 before any body
 * is read, JSON as the only body type (UTF-8 only, strict, depth limit, no prototype keys), the
 * error envelope and the validation pipe.
 */
export function configureHttp(app: NestFastifyApplication, options: HttpEdgeOptions): void {
  const fastify = app.getHttpAdapter().getInstance();
  drainConnectionsOnClose(fastify);
  const routes = new RouteTable();
  fastify.addHook('onRoute', (route) => {
    routes.add(route.method, route.url);
  });
  // Before any other hook, so every answer, refusals included, echoes the request's id.
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // Every request, routed or not, before any body is read (docs/decisions/0017-http-edge-hardening.md).
  fastify.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const policy = corsPolicyOf(path);
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
    const cors = corsHeaders(policy, origin, options.corsOrigins);
    void reply.headers(cors);
    if (!request.is404) return;
    // No route takes this method here. Nothing is read from the body: a preflight to a known
    // path is 204 (with Access-Control-Allow-* when the origin may read it), any other method
    // 405 with Allow (QUERY and the rest Node accepts included), an unknown path 404.
    const allowed = routes.allowedMethods(path);
    if (allowed.length > 0 && isPreflight(request.method, request.headers)) {
      const granted = 'access-control-allow-origin' in cors;
      void reply
        .status(204)
        .headers(preflightHeaders(policy, granted, allowed))
        .send();
      return reply;
    }
    sendError(reply, noRouteError(request.method, allowed));
    return reply;
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    (req, body, done) => {
      try {
        assertUtf8ContentType(req.headers['content-type']);
        done(null, parseJsonBody(body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  app.useGlobalFilters(new ErrorFilter(routes));
  app.useGlobalInterceptors(new StrictQueryInterceptor());
  app.useGlobalPipes(new InputValidationPipe());
}
