import type { AgentHeartbeat, MonitorRegionId, ProbeRequest, ProbeResult } from '#contracts';
import { egressAddresses, PICKET_VERSION, type Clock, type Egress } from '#runtime';
import { ProbeExecutor } from './executor.js';
import type { HttpsProberOptions } from './https.prober.js';
import { IcmpPinger } from './icmp-pinger.js';
import { createProberTable } from './probers.js';

export interface ProbeRuntimeOptions {
  agentId: string;
  clock: Clock;
  /** The regions this runtime answers for (all of them in the coordinator's embedded mode). */
  regions: readonly MonitorRegionId[];
  /** Checks run at once at most (AGENT_MAX_IN_FLIGHT, EMBEDDED_MAX_IN_FLIGHT). */
  maxInFlight: number;
  egress: Egress;
  /** Addresses to announce instead of the host's own (AGENT_PUBLIC_IPS); empty: the host's. */
  publicIps?: readonly string[];
  https?: HttpsProberOptions;
  /** A prober threw (a bug: the check is UNKNOWN). */
  onBug: (error: unknown, request: ProbeRequest) => void;
  /** Every finished check, for metrics. */
  onResult?: (result: ProbeResult, request: ProbeRequest) => void;
  /** Tests: the ICMP sockets to use instead of opening the host's. */
  pinger?: IcmpPinger;
}

/**
 * What runs checks, in an agent process and in the coordinator's embedded mode alike: the ICMP
 * sockets, the prober table behind the egress guard, the executor (capacity, drain), and the
 * heartbeat that says what this runtime serves. How checks arrive (NATS, in-process) and where
 * the heartbeat goes are the caller's.
 */
export class ProbeRuntime {
  private constructor(
    private readonly options: ProbeRuntimeOptions,
    readonly pinger: IcmpPinger,
    readonly executor: ProbeExecutor,
  ) {}

  static async open(options: ProbeRuntimeOptions): Promise<ProbeRuntime> {
    const pinger = options.pinger ?? (await IcmpPinger.open());
    const executor = new ProbeExecutor({
      agentId: options.agentId,
      clock: options.clock,
      table: createProberTable({ pinger, egress: options.egress, https: options.https }),
      maxInFlight: options.maxInFlight,
      onBug: options.onBug,
      onResult: options.onResult,
    });
    return new ProbeRuntime(options, pinger, executor);
  }

  /** Why ICMP checks will be UNKNOWN (no CAP_NET_RAW), or null when they can run. */
  get icmpProblem(): string | null {
    return this.pinger.available ? null : this.pinger.unavailableReason;
  }

  execute(request: ProbeRequest): Promise<ProbeResult> {
    return this.executor.execute(request);
  }

  /** What this runtime serves, now: the heartbeat an agent publishes. */
  heartbeat(): AgentHeartbeat {
    const { ipv4, ipv6 } = egressAddresses(this.options.publicIps ?? []);
    return {
      agent_id: this.options.agentId,
      version: PICKET_VERSION,
      regions: [...this.options.regions],
      ipv4,
      ipv6,
      in_flight: this.executor.inFlight,
      max_in_flight: this.executor.maxInFlight,
      icmp: this.pinger.available,
      sent_at: this.options.clock.now(),
    };
  }

  /** Refuses new work, gives running checks `graceMs`, then closes the ICMP sockets. */
  async stop(graceMs: number): Promise<void> {
    await this.executor.drain(graceMs);
    this.pinger.close();
  }
}
