import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, errorBody, httpStatusOf, notFound } from '../errors.js';
import { outageLine } from './outage-line.js';
import type { RouteTable } from './route-table.js';

/** Writes an AppError as the error envelope: the one place an error response is produced. */
export function sendError(reply: FastifyReply, error: AppError): void {
  void reply
    .status(httpStatusOf(error.code))
    .headers(error.headers ?? {})
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(errorBody(error)));
}

/** The HTTP server's time limits, for the message of a timed-out request. */
export interface RequestTimeLimits {
  headersSeconds: number;
  requestSeconds: number;
}

/**
 * What Node's HTTP parser refuses before any request exists (the server's `clientError`): broken
 * framing (a bad Content-Length, Content-Length with Transfer-Encoding, bad chunks, an unknown
 * method token), headers over 16 KiB, and a request not received in time. All are 400: the
 * closed set of codes has no 408 or 431, and 400 is what a client that knows neither reads them
 * as (docs/decisions/0017-http-edge-hardening.md).
 */
export function clientErrorOf(error: { code?: unknown }, limits: RequestTimeLimits): AppError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError(
        'INVALID_JSON',
        `The request was not received in time (headers within ${limits.headersSeconds} s, ` +
          `the whole request within ${limits.requestSeconds} s).`,
      );
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('INVALID_JSON', 'The request headers are larger than 16 KiB.');
    default:
      return new AppError('INVALID_JSON', 'The request is not well-formed HTTP/1.1.');
  }
}

/**
 * Answers a `clientError` with the error envelope, written straight to the socket (there is no
 * request or reply object yet), and closes the connection, as Node and Fastify do with their own
 * bodies. Nothing is written once a response has begun on this connection.
 */
export function answerClientError(error: Error & { code?: unknown }, socket: Duplex, limits: RequestTimeLimits): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && response?.headersSent !== true) {
    const answer = clientErrorOf(error, limits);
    const status = httpStatusOf(answer.code);
    const body = JSON.stringify(errorBody(answer));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

/** Fastify's own request errors (raised before a handler runs), by code. */
function fromFastify(error: { code?: unknown; statusCode?: unknown }): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 256 KiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be sent as Content-Type: application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('INVALID_JSON', 'The request body length does not match Content-Length.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new AppError('INVALID_JSON', 'The request could not be read.');
    default:
      return null;
  }
}

/** The answer when no route takes a request: 405 with `Allow` on a known path, 404 elsewhere. */
export function noRouteError(method: string, allowed: readonly string[]): AppError {
  if (allowed.length === 0) return new AppError('NOT_FOUND', 'No such endpoint.');
  return new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed on this path.`, undefined, {
    Allow: allowed.join(', '),
  });
}

/** Collections whose `/{id}` paths answer their own 404 for ids that cannot even be decoded. */
const ID_COLLECTIONS: readonly (readonly [string, () => AppError])[] = [
  ['/api/monitors/', notFound.monitor],
  ['/api/contacts/', notFound.contact],
  ['/api/incidents/', notFound.incident],
  ['/api/status_pages/', notFound.statusPage],
  ['/api/maintenance_windows/', notFound.maintenanceWindow],
  ['/api/regions/', notFound.region],
];

/**
 * The answer to a URL Fastify's router cannot decode (broken percent-encoding): in a
 * resource's id path it is a malformed id, so the resource's 404
 * (docs/decisions/0002-wire-conventions.md); elsewhere no endpoint matches.
 */
export function unreadableUrlError(url: string): AppError {
  const match = ID_COLLECTIONS.find(([prefix]) => url.startsWith(prefix) && url.length > prefix.length);
  return match ? match[1]() : new AppError('NOT_FOUND', 'No such endpoint.');
}

/** Errors that mean a dependency (the database) is unreachable, not that we have a bug. */
export function isDependencyOutage(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; driverError?: unknown } | null;
  if (!e) return false;
  if (e.driverError && e.driverError !== error && isDependencyOutage(e.driverError)) return true;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300'].includes(
      code,
    ) ||
    code.startsWith('08') ||
    code.startsWith('SQLITE_BUSY') ||
    /Connection terminated|timeout exceeded when trying to connect|Connection is not established/i.test(message)
  );
}

/**
 * The one place errors become HTTP responses: the envelope and codes of
 * docs/decisions/0002-wire-conventions.md.
 * A 500 never carries internals; the details go to the log.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(private readonly routes: RouteTable) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const error = this.toAppError(exception, request);
    const status = httpStatusOf(error.code);
    // Each line names the request by its id (X-Request-Id, echoed on the response).
    const where = `${request.method} ${request.url} (request ${request.id})`;
    if (status === 500) {
      // A bug: the stack says where.
      this.logger.error(
        `${where}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
      );
    } else if (status === 503 && !(exception instanceof AppError)) {
      // An outage, not a bug: one line, the driver's code and message (a 503 thrown on purpose,
      // such as a live stream refused during shutdown, is no outage).
      this.logger.warn(`${where}: dependency unavailable: ${outageLine(exception)}`);
    }
    sendError(reply, error);
  }

  private toAppError(exception: unknown, request: FastifyRequest): AppError {
    if (exception instanceof AppError) return exception;
    const fastify = typeof exception === 'object' && exception !== null ? fromFastify(exception) : null;
    if (fastify) return fastify;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        const path = request.url.split('?')[0] ?? '/';
        return noRouteError(request.method, this.routes.allowedMethods(path));
      }
      if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 256 KiB.');
      if (status === 415) {
        return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be sent as Content-Type: application/json.');
      }
      if (status === 400) return new AppError('INVALID_JSON', 'The request could not be read.');
    }
    if (isDependencyOutage(exception)) {
      return new AppError(
        'SERVICE_UNAVAILABLE',
        'A service Picket depends on is unavailable; try again shortly.',
        undefined,
        {
          'Retry-After': '5',
        },
      );
    }
    return new AppError('INTERNAL_ERROR', 'Something went wrong on our side.');
  }
}
