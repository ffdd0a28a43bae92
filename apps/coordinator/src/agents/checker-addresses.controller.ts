import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CLOCK, type Clock } from '#runtime';
import { Field, oneOf } from '#validation';
import { Public } from '../auth/auth.guard.js';
import { CoordinatorConfig } from '../config.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { AgentsStore } from './agents.store.js';
import { checkerAddresses, checkerAddressesText, type RegionAddresses } from './checker-addresses.js';

export class CheckerAddressesQuery {
  @Field(oneOf(['json', 'txt']), { optional: true }) format?: 'json' | 'txt';
}

/** The list is read from the database at most this often per coordinator. */
const CACHE_MS = 30_000;

/**
 * GET /web_api/checker_ip_addresses (public, docs/decisions/0009-checker-addresses.md): where
 * checks come from, for firewall allow-lists.
 */
@Controller('web_api')
export class CheckerAddressesController {
  private cached: { at: number; regions: RegionAddresses[] } | null = null;

  constructor(
    private readonly agents: AgentsStore,
    private readonly config: CoordinatorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('checker_ip_addresses')
  @Public()
  @ApiOperation({
    operationId: 'getCheckerAddresses',
    tag: 'Meta',
    summary: 'Checker IP addresses',
    description:
      'Every region with the addresses its checks come from (agents seen in the last 24 h plus CHECKER_ADDRESSES), ' +
      'for firewall allow-lists. Served without an API key. `?format=txt` answers text/plain, one address per line.',
    query: { format: { default: 'json', description: '`txt`: text/plain, one address per line.' } },
    success: {
      description: 'The regions and their addresses (JSON), or with `format=txt` the addresses (text/plain).',
      schema: 'CheckerAddressesResponse',
      text: 'text/plain',
    },
  })
  async list(@Query() query: CheckerAddressesQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const regions = await this.regions();
    reply.header('cache-control', 'public, max-age=60');
    if (query.format === 'txt') {
      reply.type('text/plain; charset=utf-8');
      return checkerAddressesText(regions);
    }
    return { status: 'ok', data: { regions } };
  }

  private async regions(): Promise<RegionAddresses[]> {
    const now = this.clock.now();
    if (this.cached && now - this.cached.at < CACHE_MS) return this.cached.regions;
    const regions = checkerAddresses(await this.agents.list(), this.config.checkerAddresses, now);
    this.cached = { at: now, regions };
    return regions;
  }
}
