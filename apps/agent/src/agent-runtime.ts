import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { type AgentHeartbeat, subjectsFor } from '#contracts';
import { createProberTable, IcmpPinger, ProbeExecutor } from '#probes';
import { CLOCK, egressAddresses, PICKET_VERSION, type Clock, type NatsLink, type Registry } from '#runtime';
import { AgentConfig } from './config.js';
import { AgentMetrics } from './metrics.js';
import { AGENT_NATS_LINK } from './nats-link.js';

/**
 * The agent's moving parts: the NATS link, the ICMP sockets, the probe executor and the
 * heartbeat. Nothing here waits for NATS: the link connects in the background and the HTTP
 * server answers meanwhile. Nest shuts it down on SIGTERM: the agent is marked as shutting
 * down first (/readyz turns 503), subscriptions drain (no new work), running checks get
 * AGENT_DRAIN_SECONDS, then the link closes.
 */
@Injectable()
export class AgentRuntime implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('Agent');
  private heartbeatTimer?: NodeJS.Timeout;
  private stopping = false;
  pinger!: IcmpPinger;
  executor!: ProbeExecutor;

  constructor(
    private readonly config: AgentConfig,
    private readonly metrics: AgentMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(AGENT_NATS_LINK) readonly link: NatsLink,
  ) {}

  async onModuleInit(): Promise<void> {
    this.link.start(); // already under way when main.ts started it
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
    this.metrics.trackNats(() => this.link.connected);
    this.startHeartbeat();
  }

  /** True from the first moment of shutdown on. */
  get shuttingDown(): boolean {
    return this.stopping;
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
    const subject = subjectsFor(this.config.NATS_SUBJECT_PREFIX).heartbeat;
    const beat = () => {
      // Only while connected: the client would queue the missed beats and send them, stale, on reconnection.
      const nats = this.link.connected ? this.link.connection : null;
      if (!nats) return;
      try {
        nats.publish(subject, JSON.stringify(this.heartbeat()));
      } catch (error) {
        this.logger.warn(`heartbeat not sent: ${String(error)}`);
      }
    };
    this.link.onConnected(beat); // the coordinators learn of the agent as soon as it is connected
    this.heartbeatTimer = setInterval(beat, this.config.AGENT_HEARTBEAT_SECONDS * 1000);
    this.heartbeatTimer.unref();
  }

  /** Nest's first shutdown hook: from here on /readyz says "shutting down". */
  onModuleDestroy(): void {
    this.stopping = true;
  }

  /** Called by the probe handler once its subscriptions have stopped taking work. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    await this.executor.drain(this.config.AGENT_DRAIN_SECONDS * 1000);
    await this.link.drain();
    this.pinger.close();
  }

  get registry(): Registry {
    return this.metrics.registry;
  }
}
