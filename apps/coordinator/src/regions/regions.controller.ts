import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { ApiOperation } from '../openapi/api-operation.js';
import { CreateRegionDto } from './region.dto.js';
import { PrivateRegionIdPipe } from './region-id.pipe.js';
import { RegionsService } from './regions.service.js';

/** Regions: the public ones and the account's private ones (docs/decisions/0030-private-regions.md). */
@Controller('api/regions')
export class RegionsController {
  constructor(private readonly regions: RegionsService) {}

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
}
