import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { IncidentIdPipe } from '../common/object-id.pipe.js';
import { ListIncidentsQuery } from './incident.dto.js';
import { IncidentsService } from './incidents.service.js';

@Controller('api/incidents')
export class IncidentsController {
  constructor(private readonly incidents: IncidentsService) {}

  @Get()
  @RequirePermission('incidents:read')
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListIncidentsQuery) {
    return { status: 'ok', data: await this.incidents.list(principal.accountId, query) };
  }

  @Get(':id')
  @RequirePermission('incidents:read')
  async get(@CurrentPrincipal() principal: Principal, @Param('id', IncidentIdPipe) id: string) {
    return { status: 'ok', data: await this.incidents.get(principal.accountId, id) };
  }

  @Put(':id/comment')
  @RequirePermission('incidents:write')
  async comment(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IncidentIdPipe) id: string,
    @Body() body: unknown,
  ) {
    return { status: 'ok', data: await this.incidents.comment(principal.accountId, id, body) };
  }
}
