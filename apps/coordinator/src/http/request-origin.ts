import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The origin a client reached this coordinator at (`http://127.0.0.1:8080`), for links the API
 * answers when PUBLIC_URL is not set (a heartbeat's ping URL). The scheme is the socket's (no
 * proxy header is believed, as for client addresses); the Host header only when it is a plain
 * host[:port], else `localhost`: it goes back to the same client, but never as markup or a path.
 */
export function originOf(protocol: string, host: string | undefined): string {
  const plain = host !== undefined && /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/.test(host);
  return `${protocol === 'https' ? 'https' : 'http'}://${plain ? host : 'localhost'}`;
}

/** The request's origin, for controller parameters (see originOf). */
export const RequestOrigin = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const request = ctx.switchToHttp().getRequest<FastifyRequest>();
  return originOf(request.protocol, request.headers.host);
});
