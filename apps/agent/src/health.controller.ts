import { Controller, Get } from '@nestjs/common';
import { AgentRuntime } from './agent-runtime.js';

@Controller()
export class HealthController {
  constructor(private readonly runtime: AgentRuntime) {}

  /** Liveness and what the agent is doing: the body of its heartbeat. */
  @Get('healthz')
  health() {
    return { status: 'ok', ...this.runtime.heartbeat(), nats: !this.runtime.nats.isClosed() };
  }
}
