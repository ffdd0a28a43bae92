import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Egress addresses to publish: AGENT_PUBLIC_IPS, else this host's non-internal addresses. */
export function egressAddresses(configured: readonly string[]): { ipv4: string[]; ipv6: string[] } {
  const all =
    configured.length > 0
      ? [...configured]
      : Object.values(networkInterfaces())
          .flat()
          .filter((a) => a !== undefined && !a.internal && !(a.family === 'IPv6' && a.address.startsWith('fe80')))
          .map((a) => a!.address);
  return { ipv4: all.filter((a) => isIP(a) === 4), ipv6: all.filter((a) => isIP(a) === 6) };
}
