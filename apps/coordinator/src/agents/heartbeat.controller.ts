import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { AgentHeartbeatDto, asPublicHeartbeat } from '#contracts';
import { checkInput } from '#validation';
import { AgentsRegistry } from './agents.registry.js';

/** The pattern agents' heartbeats are routed to (probing/nats-routes.ts). */
export const HEARTBEAT_PATTERN = 'agent-heartbeat';

/**
 * Agents' heartbeats from NATS (the coordinator's microservice, NATS mode): validated at the
 * edge (docs/decisions/0013-validation-decorator.md), recorded. A malformed heartbeat, or one that
 * names a private region, is ignored;
 * the agent's next one counts.
 */
@Controller()
export class HeartbeatController {
  constructor(private readonly agents: AgentsRegistry) {}

  @EventPattern(HEARTBEAT_PATTERN)
  heartbeat(@Payload() payload: unknown): void {
    const { value } = checkInput(AgentHeartbeatDto, payload);
    // A heartbeat naming a private region has no place here (docs/decisions/0030-private-regions.md).
    const heartbeat = value && asPublicHeartbeat({ ...value });
    if (heartbeat) this.agents.record(heartbeat);
  }
}
