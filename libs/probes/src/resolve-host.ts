import { ADDRCONFIG, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { EGRESS_BLOCKED, egressMessage } from '#runtime';
import { DNS_ERRORS } from './network-errors.js';

/** One address of a resolved host name. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type HostResolution =
  | { ok: true; addresses: ResolvedAddress[] }
  /** The name does not resolve (DOWN in the dns phase), or only to addresses the egress policy refuses (`blocked`). */
  | { ok: false; aborted: false; error: string; blocked: boolean }
  /** The signal was aborted before the lookup answered. */
  | { ok: false; aborted: true };

/**
 * Resolves a host name with `lookup` (the shape of `dns.lookup`, so the egress guard can
 * supply its own), asking for every address (`all: true`) like Node's own connect does
 * (`hints: ADDRCONFIG`). Answers at once when `signal` aborts; the lookup itself cannot be
 * cancelled and its late answer is ignored. Never rejects for a failing name; a lookup
 * function that throws is a bug and is rethrown.
 */
export function resolveHost(lookup: LookupFunction, host: string, signal: AbortSignal): Promise<HostResolution> {
  if (signal.aborted) return Promise.resolve({ ok: false, aborted: true });
  return new Promise<HostResolution>((resolve, reject) => {
    let settled = false;
    const finish = (resolution: HostResolution) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(resolution);
    };
    const onAbort = () => finish({ ok: false, aborted: true });
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      lookup(host, { all: true, hints: ADDRCONFIG }, (error, answer) => {
        if (error) {
          const blocked = error.code === EGRESS_BLOCKED;
          finish({ ok: false, aborted: false, error: describeDnsError(error), blocked });
          return;
        }
        const addresses = toAddresses(answer);
        finish(
          addresses.length > 0
            ? { ok: true, addresses }
            : { ok: false, aborted: false, error: 'host name has no address', blocked: false },
        );
      });
    } catch (error) {
      settled = true;
      signal.removeEventListener('abort', onAbort);
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/**
 * Both answer shapes of `dns.lookup` (a lookup may ignore `all`). The family is read from
 * the address itself, so a lookup that misreports it cannot mislead the probe; anything
 * that is not an IP address is dropped.
 */
function toAddresses(answer: string | readonly LookupAddress[] | undefined): ResolvedAddress[] {
  let list: unknown[] = [];
  if (typeof answer === 'string') list = [answer];
  else if (Array.isArray(answer)) list = (answer as readonly LookupAddress[]).map((entry) => entry?.address);
  const out: ResolvedAddress[] = [];
  for (const address of list) {
    if (typeof address !== 'string') continue;
    const family = isIP(address);
    if (family === 4 || family === 6) out.push({ address, family });
  }
  return out;
}

/** A short reason for a failed lookup (never the resolver's full message). */
export function describeDnsError(error: NodeJS.ErrnoException): string {
  const code = typeof error.code === 'string' ? error.code : null;
  if (code === null) return `DNS lookup failed: ${error.message}`;
  if (code === EGRESS_BLOCKED) return egressMessage(error);
  return DNS_ERRORS[code] ?? `DNS lookup failed (${code})`;
}
