import { Controller, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { fromWireRequest, WireProbeRequestDto, type ProbeResult } from '#contracts';
import { NOT_JSON } from '#runtime/nats-server';
import { checkInput } from '#validation';
import { AgentRuntime } from './agent-runtime.js';
import { PROBE_PATTERN } from './probe-routes.js';

/**
 * Probe requests from NATS (@nestjs/microservices over the agent's NatsLink; one queue group
 * per region, so exactly one agent of a region answers): validated at the edge
 * (docs/decisions/0013-validation-decorator.md), run, answered
 * with the result. An invalid request is dropped and logged, unanswered.
 */
@Controller()
export class ProbeController {
  private readonly logger = new Logger('Probes');

  constructor(private readonly runtime: AgentRuntime) {}

  @MessagePattern(PROBE_PATTERN)
  probe(@Payload() payload: unknown): Promise<ProbeResult> | undefined {
    if (payload === NOT_JSON) {
      this.logger.warn('dropped a probe request that is not JSON');
      return undefined;
    }
    const { value, problems } = checkInput(WireProbeRequestDto, payload);
    const request = value ? fromWireRequest(value) : null;
    if (!request) {
      this.logger.warn(
        `dropped an invalid probe request: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
      );
      return undefined;
    }
    return this.runtime.execute(request);
  }
}
