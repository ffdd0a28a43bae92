import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { subjectsFor, type AgentHeartbeat, type ProbeRequest, type ProbeResult } from '#contracts';
import { ProbeRuntime, runProbeBatch } from '#probes';
import { CLOCK, type Clock, type NatsLink, type Registry } from '#runtime';
import type { NatsLinkServer } from '#runtime/nats-server';
import { AgentConfig } from './config.js';
import { AgentMetrics } from './metrics.js';
import { AGENT_NATS_LINK } from './nats-link.js';
import { PROBE_SERVER } from './probe-routes.js';

/**
 * The agent's moving parts: the NATS link, the ProbeRuntime (ICMP sockets, probers, executor;
 * the same one the coordinator runs in embedded mode) and the heartbeat. Probe requests arrive
 * through the microservice server (PROBE_SERVER, ProbeController). Nothing here waits for NATS:
 * the link connects in the background and the HTTP server answers meanwhile. Nest shuts it down
 * on SIGTERM: the agent is marked as shutting down first (/readyz turns 503), the server takes no
 * new work, running checks get AGENT_DRAIN_SECONDS, then the link closes.
 */
@Injectable()
export class AgentRuntime implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('Agent');
  private heartbeatTimer?: NodeJS.Timeout;
  private stopping = false;
  private runtime!: ProbeRuntime;
  /** Batches whose last results are not sent yet. */
  private readonly batches = new Set<Promise<void>>();

  constructor(
    private readonly config: AgentConfig,
    private readonly metrics: AgentMetrics,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(AGENT_NATS_LINK) readonly link: NatsLink,
    @Inject(PROBE_SERVER) private readonly server: NatsLinkServer,
  ) {}

  async onModuleInit(): Promise<void> {
    this.link.start(); // already under way when main.ts started it
    this.runtime = await ProbeRuntime.open({
      agentId: this.config.AGENT_ID,
      clock: this.clock,
      regions: this.config.servedRegions,
      maxInFlight: this.config.AGENT_MAX_IN_FLIGHT,
      egress: this.config.egress(),
      publicIps: this.config.AGENT_PUBLIC_IPS,
      onBug: (error, request) =>
        this.logger.error(`prober bug on ${request.check_id}: ${error instanceof Error ? error.stack : String(error)}`),
      onResult: (result, request) => this.metrics.recordProbe(result, request.type),
    });
    if (this.runtime.icmpProblem) this.logger.warn(`ICMP checks will be UNKNOWN: ${this.runtime.icmpProblem}`);
    this.metrics.trackInFlight(() => this.runtime.executor.inFlight);
    this.metrics.trackNats(() => this.link.connected);
    this.link.onConnected(() => this.logger.log(`taking probe work for ${this.describeRegions()}`));
    this.startHeartbeat();
  }

  /** True from the first moment of shutdown on. */
  get shuttingDown(): boolean {
    return this.stopping;
  }

  execute(request: ProbeRequest): Promise<ProbeResult> {
    return this.runtime.execute(request);
  }

  /** Runs a batch's checks at once; `send` gets their results as they finish, coalesced (runProbeBatch). */
  executeBatch(requests: readonly ProbeRequest[], send: (results: ProbeResult[]) => void): Promise<void> {
    const batch = runProbeBatch((request) => this.runtime.execute(request), requests, send).finally(() =>
      this.batches.delete(batch),
    );
    this.batches.add(batch);
    return batch;
  }

  heartbeat(): AgentHeartbeat {
    return this.runtime.heartbeat();
  }

  private describeRegions(): string {
    const own = this.config.privateRegion;
    return own ? `private region ${own.region} of account ${own.accountId}` : this.config.AGENT_REGIONS.join(', ');
  }

  private startHeartbeat(): void {
    const subjects = subjectsFor(this.config.NATS_SUBJECT_PREFIX);
    const own = this.config.privateRegion;
    // A private region's agent beats on its region's subject, never on the public one.
    const subject = own ? subjects.privateHeartbeat(own.accountId, own.region) : subjects.heartbeat;
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

  /** Takes no new work, lets running checks finish (AGENT_DRAIN_SECONDS), then closes the link. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.server.stopTaking();
    clearInterval(this.heartbeatTimer);
    await this.runtime.stop(this.config.AGENT_DRAIN_SECONDS * 1000);
    // Every check has its result by now (run or cancelled): the batches' last replies go out before the link drains.
    await Promise.allSettled([...this.batches]);
    await this.link.drain();
  }

  get registry(): Registry {
    return this.metrics.registry;
  }
}
