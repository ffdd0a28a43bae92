import { Controller, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import {
  batchElements,
  fromWireRequest,
  WireProbeRequestDto,
  type ProbeBatchReply,
  type ProbeRequest,
  type ProbeResult,
} from '#contracts';
import { NOT_JSON } from '#runtime/nats-server';
import { checkInput } from '#validation';
import { AgentRuntime } from './agent-runtime.js';
import { PROBE_BATCH_PATTERN, PROBE_PATTERN } from './probe-routes.js';

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
    const request = this.valid(payload);
    return request ? this.runtime.execute(request) : undefined;
  }

  /**
   * A batch of probe requests: each element is validated on its own (an invalid one is dropped
   * and logged, the coordinator's deadline makes it UNKNOWN), all run at once, and their results
   * go back as they finish, several per reply (AgentRuntime.executeBatch).
   */
  @MessagePattern(PROBE_BATCH_PATTERN)
  batch(@Payload() payload: unknown): Observable<ProbeBatchReply> | undefined {
    if (payload === NOT_JSON) {
      this.logger.warn('dropped a probe batch that is not JSON');
      return undefined;
    }
    const { elements, problem } = batchElements(payload, 'checks');
    if (!elements) {
      this.logger.warn(`dropped an invalid probe batch: ${problem}`);
      return undefined;
    }
    const requests = elements.map((element) => this.valid(element)).filter((r): r is ProbeRequest => r !== null);
    if (requests.length === 0) return undefined;
    return new Observable<ProbeBatchReply>((subscriber) => {
      void this.runtime
        .executeBatch(requests, (results) => subscriber.next({ results }))
        .then(() => subscriber.complete());
    });
  }

  private valid(payload: unknown): ProbeRequest | null {
    const { value, problems } = checkInput(WireProbeRequestDto, payload);
    const request = value ? fromWireRequest(value) : null;
    if (!request) {
      this.logger.warn(
        `dropped an invalid probe request: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
      );
    }
    return request;
  }
}
