import { createHttpsProber, type HttpsProberOptions } from './https.prober.js';
import type { IcmpPinger } from './icmp-pinger.js';
import { createPingProber } from './ping.prober.js';
import type { ProberTable } from './prober.js';
import { createTcpProber } from './tcp.prober.js';

export interface ProberDependencies {
  /** The shared ICMP sockets (one per family) of this process. */
  pinger: IcmpPinger;
  https?: HttpsProberOptions;
}

/** The prober table: one line per monitor type. */
export function createProberTable(deps: ProberDependencies): ProberTable {
  return {
    https: createHttpsProber(deps.https),
    tcp: createTcpProber(),
    ping: createPingProber(deps.pinger),
  };
}
