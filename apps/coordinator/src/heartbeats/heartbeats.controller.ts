import { Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.guard.js';
import { ApiOperation, type OperationDeclaration } from '../openapi/api-operation.js';
import { HeartbeatPings } from './heartbeat-pings.js';

const PING_TEXT = 'OK';

function pingOperation(method: 'GET' | 'POST', fail: boolean): OperationDeclaration {
  const verb = method === 'GET' ? 'Get' : 'Post';
  return {
    operationId: fail ? `heartbeatFail${verb}` : `heartbeatPing${verb}`,
    tag: 'Heartbeats',
    summary: fail ? `Report a failure of the watched job (${method})` : `Ping a heartbeat monitor (${method})`,
    description:
      (fail
        ? 'The watched job failed: the heartbeat monitor is down at once (recorded like a ping). '
        : 'The watched job ran: recorded as an UP result; the monitor is down when no ping arrives within ' +
          '`period + grace`. ') +
      `${method === 'GET' ? 'HEAD works too.' : 'A body, if any, must be JSON and is ignored.'} ` +
      "A paused monitor's pings are recorded but alert nobody. At most 60 pings per minute per token.",
    id: 'PingToken',
    success: { description: '`OK`: recorded.', text: 'text/plain' },
    errors: ['NOT_FOUND', 'RATE_LIMIT_EXCEEDED'],
  };
}

/**
 * `GET|POST|HEAD /ping/<token>` and `/ping/<token>/fail` (docs/decisions/0027-heartbeat-monitors.md):
 * public (the token is the credential), answered `OK` as text. Fastify adds HEAD to every GET.
 */
@Controller('ping')
export class HeartbeatsController {
  constructor(private readonly pings: HeartbeatPings) {}

  @Get(':id')
  @Public()
  @ApiOperation(pingOperation('GET', false))
  async pingGet(@Param('id') token: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.answer(token, false, reply);
  }

  @Post(':id')
  @HttpCode(200)
  @Public()
  @ApiOperation(pingOperation('POST', false))
  async pingPost(@Param('id') token: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.answer(token, false, reply);
  }

  @Get(':id/fail')
  @Public()
  @ApiOperation(pingOperation('GET', true))
  async failGet(@Param('id') token: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.answer(token, true, reply);
  }

  @Post(':id/fail')
  @HttpCode(200)
  @Public()
  @ApiOperation(pingOperation('POST', true))
  async failPost(@Param('id') token: string, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    return this.answer(token, true, reply);
  }

  private async answer(token: string, fail: boolean, reply: FastifyReply): Promise<string> {
    await this.pings.ping(token, fail);
    void reply.header('cache-control', 'no-store').type('text/plain; charset=utf-8');
    return PING_TEXT;
  }
}
