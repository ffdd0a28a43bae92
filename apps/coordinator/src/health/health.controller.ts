import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.guard.js';
import { Readiness } from './readiness.service.js';

/**
 * Liveness and readiness for orchestrators and load balancers: public, no API key, no rate
 * limit, cheap. `/healthz` says only that the process answers (it never looks at a
 * dependency, so a database outage does not get the process restarted); `/readyz` says
 * whether it should get traffic, naming what is wrong when not.
 */
@Controller()
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  @Get('healthz')
  @Public()
  @Header('cache-control', 'no-store')
  health() {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Public()
  @Header('cache-control', 'no-store')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const answer = await this.readiness.answer();
    void reply.status(answer.httpStatus);
    return answer.body;
  }
}
