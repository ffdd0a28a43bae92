import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, NatsContext, Payload } from '@nestjs/microservices';
import { AgentHeartbeatDto, privateHeartbeatSource } from '#contracts';
import { checkInput } from '#validation';
import { CoordinatorConfig } from '../config.js';
import { PrivateAgents } from './private-agents.js';

/** The pattern private regions' heartbeats are routed to (probing/nats-routes.ts). */
export const PRIVATE_HEARTBEAT_PATTERN = 'private-agent-heartbeat';

/**
 * Heartbeats of private regions' agents: the account and region come from the subject (which NATS
 * permissions confine an enrolled agent to), never from the payload; the payload must name that
 * region alone. Anything else is ignored.
 */
@Controller()
export class PrivateHeartbeatController {
  constructor(
    private readonly agents: PrivateAgents,
    private readonly config: CoordinatorConfig,
  ) {}

  @EventPattern(PRIVATE_HEARTBEAT_PATTERN)
  heartbeat(@Payload() payload: unknown, @Ctx() context: unknown): void {
    if (!(context instanceof NatsContext)) return;
    const source = privateHeartbeatSource(this.config.NATS_SUBJECT_PREFIX, context.getSubject());
    if (!source) return;
    const { value } = checkInput(AgentHeartbeatDto, payload);
    if (!value || value.regions.length !== 1 || value.regions[0] !== source.region) return;
    this.agents.record(source.accountId, source.region, { ...value });
  }
}
