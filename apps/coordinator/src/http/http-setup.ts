import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { SecureContextOptions } from 'node:tls';
import { ErrorFilter, sendError, unreadableUrlError } from './error.filter.js';
import { MAX_BODY_BYTES, parseJsonBody } from './json-body.js';
import { RouteTable } from './route-table.js';
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
  sendError(reply, unreadableUrlError(request.url));
}

/** The coordinator's HTTP server; HTTPS (TLS 1.2 or later) when `tls` is given. */
export function createHttpAdapter(tls?: SecureContextOptions): FastifyAdapter {
  return new FastifyAdapter({
    ...(tls ? { https: tls } : {}),
    bodyLimit: MAX_BODY_BYTES,
    logger: false,
    // `/api/monitors/` is `/api/monitors`, as the RouteTable (405 answers) already treats it;
    // otherwise a trailing slash got 405 with an Allow header naming the method just used.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
    frameworkErrors: frameworkError,
  });
}

/**
 * Wires the request edge once, before routes are registered: JSON as the only body type
 * (strict UTF-8, depth limit, no prototype keys), 405 detection, the error envelope and
 * the validation pipe.
 */
export function configureHttp(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const routes = new RouteTable();
  fastify.addHook('onRoute', (route) => {
    routes.add(route.method, route.url);
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    (_req, body, done) => {
      try {
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
