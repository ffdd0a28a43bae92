import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { fromWireRequest, PROBE_QUEUE_GROUP, subjectsFor, WireProbeRequestDto } from '#contracts';
import type { Msg, Subscription } from '#runtime';
import { checkInput } from '#validation';
import { AgentRuntime } from './agent-runtime.js';
import { AgentConfig } from './config.js';

/**
 * Takes probe requests for the agent's regions from NATS (one queue group per region, so
 * exactly one agent of a region answers), validates them, runs them and replies. Subscribes
 * when the link first connects; the client renews the subscriptions after each reconnection.
 */
@Injectable()
export class ProbeHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ProbeHandler');
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly config: AgentConfig,
    private readonly runtime: AgentRuntime,
  ) {}

  onApplicationBootstrap(): void {
    const subjects = subjectsFor(this.config.NATS_SUBJECT_PREFIX);
    this.runtime.link.onConnected((nats) => {
      if (this.runtime.shuttingDown) return;
      this.subscriptions = this.config.AGENT_REGIONS.map((region) =>
        nats.subscribe(subjects.probe(region), {
          queue: PROBE_QUEUE_GROUP,
          callback: (error, msg) => {
            if (error) this.logger.warn(`subscription error: ${error.message}`);
            else void this.handle(msg);
          },
        }),
      );
      this.logger.log(`taking probe work for ${this.config.AGENT_REGIONS.join(', ')}`);
    });
  }

  async handle(msg: Msg): Promise<void> {
    let payload: unknown;
    try {
      payload = JSON.parse(msg.string());
    } catch {
      this.logger.warn(`dropped a probe request that is not JSON (${msg.subject})`);
      return;
    }
    const { value, problems } = checkInput(WireProbeRequestDto, payload);
    const request = value ? fromWireRequest(value) : null;
    if (!request) {
      this.logger.warn(
        `dropped an invalid probe request: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
      );
      return;
    }
    const result = await this.runtime.executor.execute(request);
    msg.respond(JSON.stringify(result));
  }

  /** First step of shutdown: take no new work (running checks finish in AgentRuntime). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.runtime.link.drainSubscriptions(this.subscriptions);
  }
}
