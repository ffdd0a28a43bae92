import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AgentRuntime } from './agent-runtime.js';
import { agentReadiness } from './readiness.js';

@Controller()
export class HealthController {
  constructor(private readonly runtime: AgentRuntime) {}

  /**
   * Liveness and what the agent is doing: the body of its heartbeat. Always 200 while the process
   * answers (a NATS outage must not get it restarted); `nats` is true only while connected.
   */
  @Get('healthz')
  @Header('cache-control', 'no-store')
  health() {
    const link = this.runtime.link;
    return { status: 'ok', ...this.runtime.heartbeat(), nats: link.connected, nats_state: link.state };
  }

  /** Whether the agent can take probe work now: 503 naming what is wrong when not. */
  @Get('readyz')
  @Header('cache-control', 'no-store')
  ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const answer = agentReadiness(this.runtime.link.problemNow, this.runtime.shuttingDown);
    void reply.status(answer.httpStatus);
    return answer.body;
  }
}
