import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isIPv4, isIPv6 } from 'node:net';

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

/** The eight 16-bit groups of an IPv6 address (zone dropped, an IPv4 tail converted), or null. */
function ipv6Groups(address: string): number[] | null {
  let text = address.split('%')[0] ?? '';
  const ipv4Tail = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (ipv4Tail) {
    const octets = ipv4Tail[2]!.split('.').map(Number);
    const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
    text = `${ipv4Tail[1]!}${hex(octets[0]!, octets[1]!)}:${hex(octets[2]!, octets[3]!)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'));
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

/**
 * The budget key of an address: an IPv4 address as it is (also when it arrives IPv4-mapped,
 * `::ffff:203.0.113.7`), an IPv6 address by its /64, since one host commonly holds a whole /64
 * and could otherwise take a fresh budget per address. Anything else (no socket) is `unknown`.
 */
export function addressBucket(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return 'unknown';
  const groups = ipv6Groups(address);
  if (groups === null) return 'unknown';
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6]!, groups[7]!];
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
