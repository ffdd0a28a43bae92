import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isIPv4, isIPv6 } from 'node:net';
import { ipv6Words, v4From } from '#runtime';

/**
 * Who a failure budget belongs to (docs/decisions/0018-abuse-limits-and-quotas.md).
 *
 * The client address is the TCP peer of the request's socket: no header (X-Forwarded-For,
 * Forwarded, X-Real-IP) is believed, because there is no setting naming proxies to trust; a
 * client would otherwise pick a fresh budget with every request. Behind a reverse proxy every
 * client therefore shares the proxy's budget.
 */
export function socketAddress(request: { raw: { socket?: { remoteAddress?: string } | null } }): string | undefined {
  return request.raw.socket?.remoteAddress;
}

/** The request's socket address, for controller parameters (see socketAddress). */
export const ClientAddress = createParamDecorator((_: unknown, ctx: ExecutionContext): string | undefined =>
  socketAddress(ctx.switchToHttp().getRequest<FastifyRequest>()),
);

/**
 * The budget key of an address: an IPv4 address as it is (also when it arrives IPv4-mapped,
 * `::ffff:203.0.113.7`), an IPv6 address by its /64, since one host commonly holds a whole /64
 * and could otherwise take a fresh budget per address. Anything else (no socket) is `unknown`.
 */
export function addressBucket(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return 'unknown';
  const groups = ipv6Words(address.split('%')[0] ?? '');
  if (groups === null) return 'unknown';
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return v4From(groups[6]!, groups[7]!);
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
