import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { type AgentHeartbeat, subjectsFor } from '#contracts';
import { createProberTable, IcmpPinger, ProbeExecutor } from '#probes';
import {
  CLOCK,
  connectNats,
  egressAddresses,
  PICKET_VERSION,
  type Clock,
  type NatsConnection,
  type Registry,
} from '#runtime';
import { AgentConfig } from './config.js';
import { AgentMetrics } from './metrics.js';

/**
 * The agent's moving parts: the NATS connection, the ICMP sockets, the probe executor and
 * the heartbeat. Nest shuts it down on SIGTERM: subscriptions drain first (no new work),
 * then running checks get AGENT_DRAIN_SECONDS, then the connection closes.
 */
@Injectable()
export class AgentRuntime implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('Agent');
  private heartbeatTimer?: NodeJS.Timeout;
  pinger!: IcmpPinger;
  executor!: ProbeExecutor;
  nats!: NatsConnection;

  constructor(
    private readonly config: AgentConfig,
    private readonly metrics: AgentMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    this.pinger = await IcmpPinger.open();
    if (!this.pinger.available) this.logger.warn(`ICMP checks will be UNKNOWN: ${this.pinger.unavailableReason}`);
    this.executor = new ProbeExecutor({
      agentId: this.config.AGENT_ID,
      clock: this.clock,
      table: createProberTable({ pinger: this.pinger, egress: this.config.egress() }),
      maxInFlight: this.config.AGENT_MAX_IN_FLIGHT,
      onBug: (error, request) =>
        this.logger.error(`prober bug on ${request.check_id}: ${error instanceof Error ? error.stack : String(error)}`),
      onResult: (result, request) => this.metrics.recordProbe(result, request.type),
    });
    this.metrics.trackInFlight(() => this.executor.inFlight);
    this.nats = await connectNats(this.config.NATS_URL, `picket-agent-${this.config.AGENT_ID}`, this.logger);
    this.startHeartbeat();
  }

  heartbeat(): AgentHeartbeat {
    const { ipv4, ipv6 } = egressAddresses(this.config.AGENT_PUBLIC_IPS);
    return {
      agent_id: this.config.AGENT_ID,
      version: PICKET_VERSION,
      regions: this.config.AGENT_REGIONS,
      ipv4,
      ipv6,
      in_flight: this.executor.inFlight,
      max_in_flight: this.executor.maxInFlight,
      icmp: this.pinger.available,
      sent_at: this.clock.now(),
    };
  }

  private startHeartbeat(): void {
    const beat = () => {
      try {
        this.nats.publish(subjectsFor(this.config.NATS_SUBJECT_PREFIX).heartbeat, JSON.stringify(this.heartbeat()));
      } catch (error) {
        this.logger.warn(`heartbeat not sent: ${String(error)}`);
      }
    };
    beat();
    this.heartbeatTimer = setInterval(beat, this.config.AGENT_HEARTBEAT_SECONDS * 1000);
    this.heartbeatTimer.unref();
  }

  /** Called by the probe handler once its subscriptions have stopped taking work. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    await this.executor.drain(this.config.AGENT_DRAIN_SECONDS * 1000);
    await this.nats.drain().catch(() => undefined);
    this.pinger.close();
  }

  get registry(): Registry {
    return this.metrics.registry;
  }
}
