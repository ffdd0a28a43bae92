import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.guard.js';
import { ApiOperation } from '../openapi/api-operation.js';
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
  @ApiOperation({
    operationId: 'getHealth',
    tag: 'Meta',
    summary: 'Liveness',
    description:
      'Whether the process answers; never looks at the database or NATS, so an outage of either does not get a ' +
      'healthy process restarted. Served without an API key and without rate limit.',
    success: { description: 'The process is alive.', schema: 'Health' },
  })
  @Header('cache-control', 'no-store')
  health() {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Public()
  @ApiOperation({
    operationId: 'getReadiness',
    tag: 'Meta',
    summary: 'Readiness',
    description:
      'Whether this coordinator should get traffic: the database answers (probed at most once a second, 2 s ' +
      'timeout), migrations are applied, NATS is connected (with NATS_URL), and it is not shutting down. When one ' +
      'fails the answer is **503** with the same body, `failing` naming the part. `degraded` (200) means it serves ' +
      'while a database outage left results or status changes held in memory. No API key, no rate limit.',
    success: { description: 'Ready or degraded (503 with the same body when unavailable).', schema: 'Readiness' },
  })
  @Header('cache-control', 'no-store')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const answer = await this.readiness.answer();
    void reply.status(answer.httpStatus);
    return answer.body;
  }
}
