import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { CreateRegionDto } from './region.dto.js';
import { PrivateRegionIdPipe } from './region-id.pipe.js';
import { EnrollmentService } from './enrollment.service.js';
import { RegionsService } from './regions.service.js';

/** Regions: the public ones and the account's private ones (docs/decisions/0030-private-regions.md). */
@Controller('api/regions')
export class RegionsController {
  constructor(
    private readonly regions: RegionsService,
    private readonly enrollment: EnrollmentService,
  ) {}

  @Get()
  @RequirePermission('regions:read')
  @ApiOperation({
    operationId: 'listRegions',
    tag: 'Regions',
    summary: 'List the regions the account may use',
    description:
      'The 15 public regions (`type: "public"`), then the account\'s private regions (`type: "private"`, with `agents_online`).',
    success: { description: 'Every region the account may list in a monitor.', schema: 'RegionListResponse' },
  })
  async list(@CurrentPrincipal() principal: Principal) {
    return { status: 'ok', data: { regions: await this.regions.list(principal.accountId) } };
  }

  @Get(':id')
  @RequirePermission('regions:read')
  @ApiOperation({
    operationId: 'getRegion',
    tag: 'Regions',
    summary: 'Get a private region',
    id: 'RegionId',
    success: { description: 'The private region, with its agents online now.', schema: 'PrivateRegionResponse' },
    errors: ['REGION_NOT_FOUND'],
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', PrivateRegionIdPipe) id: string) {
    return { status: 'ok', data: await this.regions.get(principal.accountId, id) };
  }

  @Post()
  @RequirePermission('regions:write')
  @ApiOperation({
    operationId: 'createRegion',
    tag: 'Regions',
    summary: 'Create a private region',
    description:
      "Its checks run only on agents started for this account's region; with none online they are UNKNOWN, never DOWN.",
    body: { schema: 'PrivateRegionCreate', required: true, description: 'The new region.' },
    success: { description: 'The region as stored.', schema: 'PrivateRegionResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateRegionDto) {
    return { status: 'ok', data: await this.regions.create(principal.accountId, body) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('regions:write')
  @ApiOperation({
    operationId: 'deleteRegion',
    tag: 'Regions',
    summary: 'Delete a private region',
    description: 'Refused with 409 REGION_IN_USE while monitors list it.',
    id: 'RegionId',
    success: { description: 'Deleted; no body.' },
    errors: ['REGION_NOT_FOUND', 'REGION_IN_USE'],
  })
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', PrivateRegionIdPipe) id: string): Promise<void> {
    await this.regions.delete(principal.accountId, id);
  }

  @Post(':id/agent_tokens')
  @RequirePermission('regions:write')
  @ApiOperation({
    operationId: 'createAgentToken',
    tag: 'Regions',
    summary: 'Create a one-time enrollment token for an agent of the region',
    description:
      'Shown once. An agent started with `AGENT_ENROLL_TOKEN` (and `AGENT_PRIVATE_REGION`, `NATS_URL`, `NATS_CREDS_FILE`) exchanges it within 24 hours for NATS credentials limited to this region. 503 when the coordinator has no NATS JWT authentication (`NATS_AUTH_DIR`).',
    id: 'RegionId',
    success: { description: 'The token, shown this once.', schema: 'AgentTokenResponse' },
    errors: ['REGION_NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  })
  async createToken(@CurrentPrincipal() principal: Principal, @Param('id', PrivateRegionIdPipe) id: string) {
    return { status: 'ok', data: await this.enrollment.createToken(principal.accountId, id) };
  }

  @Get(':id/agents')
  @RequirePermission('regions:read')
  @ApiOperation({
    operationId: 'listRegionAgents',
    tag: 'Regions',
    summary: "List the region's enrolled agents",
    description: 'Agents enrolled with a token and not revoked, oldest first, each with whether it is online now.',
    id: 'RegionId',
    success: { description: 'The enrolled agents.', schema: 'RegionAgentListResponse' },
    errors: ['REGION_NOT_FOUND'],
  })
  async agents(@CurrentPrincipal() principal: Principal, @Param('id', PrivateRegionIdPipe) id: string) {
    return { status: 'ok', data: { agents: await this.enrollment.agents(principal.accountId, id) } };
  }

  @Delete(':id/agents/:agentId')
  @HttpCode(204)
  @RequirePermission('regions:write')
  @ApiOperation({
    operationId: 'revokeRegionAgent',
    tag: 'Regions',
    summary: "Revoke an enrolled agent's credentials",
    description:
      'NATS disconnects the agent and refuses it from then on. 503 when NATS has not taken the revocation yet: it is recorded and pushed again every minute (repeating the request pushes it at once).',
    id: 'RegionId',
    alsoIds: ['RegionAgentId'],
    success: { description: 'Revoked; no body.' },
    errors: ['REGION_NOT_FOUND', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  })
  async revokeAgent(
    @CurrentPrincipal() principal: Principal,
    @Param('id', PrivateRegionIdPipe) id: string,
    @Param('agentId') agentId: string,
  ): Promise<void> {
    await this.enrollment.revoke(principal.accountId, id, agentId);
  }
}
