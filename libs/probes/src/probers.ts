import { guardedLookup, type Egress } from '#runtime';
import { createDnsProber } from './dns.prober.js';
import { createHttpsProber, type HttpsProberOptions } from './https.prober.js';
import type { IcmpPinger } from './icmp-pinger.js';
import { createPingProber } from './ping.prober.js';
import type { ProberTable } from './prober.js';
import { createTcpProber } from './tcp.prober.js';

export interface ProberDependencies {
  /** The shared ICMP sockets (one per family) of this process. */
  pinger: IcmpPinger;
  https?: HttpsProberOptions;
  /** EGRESS_POLICY of this process. Default: private-allowed. */
  egress?: Egress;
}

/** The prober table: one line per monitor type. */
export function createProberTable(deps: ProberDependencies): ProberTable {
  const egress = deps.egress ?? 'private-allowed';
  // Every connection of every prober resolves through the egress guard
  // (docs/decisions/0010-egress-policy.md).
  const lookup = guardedLookup(egress, deps.https?.lookup);
  return {
    https: createHttpsProber({ ...deps.https, lookup, egress }),
    tcp: createTcpProber({ lookup, egress }),
    ping: createPingProber(deps.pinger, { lookup, egress }),
    dns: createDnsProber({ egress }),
  };
}
