import { Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, RequirePermission } from '../auth/auth.guard.js';
import type { Principal } from '../auth/auth.service.js';
import { IncidentIdPipe } from '../common/object-id.pipe.js';
import { ApiOperation, pageQuery } from '../openapi/api-operation.js';
import { COMMENT_MAX, DEFAULT_INCIDENTS_PER_PAGE, ListIncidentsQuery } from './incident.dto.js';
import { IncidentsService } from './incidents.service.js';

@Controller('api/incidents')
export class IncidentsController {
  constructor(private readonly incidents: IncidentsService) {}

  @Get()
  @RequirePermission('incidents:read')
  @ApiOperation({
    operationId: 'listIncidents',
    tag: 'Incidents',
    summary: 'List incidents',
    description:
      "A page of the account's incidents (one per outage of an active monitor), newest first. " +
      'Unknown or invalid query parameters get 422.',
    query: {
      ...pageQuery(DEFAULT_INCIDENTS_PER_PAGE, 'By started_at: `desc` is newest first.'),
      monitor_id: {
        description: "Only incidents of this monitor. An unknown id or another account's matches nothing (empty page).",
      },
      resolved: { description: 'Only resolved (`true`) or open (`false`) incidents.' },
    },
    success: { description: 'A page of incidents.', schema: 'IncidentListResponse' },
    errors: ['VALIDATION_ERROR'],
  })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListIncidentsQuery) {
    return { status: 'ok', data: await this.incidents.list(principal.accountId, query) };
  }

  @Get(':id')
  @RequirePermission('incidents:read')
  @ApiOperation({
    operationId: 'getIncident',
    tag: 'Incidents',
    summary: 'Get an incident',
    id: 'IncidentId',
    success: { description: 'The incident.', schema: 'IncidentResponse' },
    errors: ['INCIDENT_NOT_FOUND'],
  })
  async get(@CurrentPrincipal() principal: Principal, @Param('id', IncidentIdPipe) id: string) {
    return { status: 'ok', data: await this.incidents.get(principal.accountId, id) };
  }

  @Put(':id/comment')
  @RequirePermission('incidents:write')
  @ApiOperation({
    operationId: 'commentIncident',
    tag: 'Incidents',
    summary: "Set an incident's comment",
    description: `Replaces \`user_comment\` (at most ${COMMENT_MAX} code points; \`""\` clears it). The incident is looked up (404) before the body is judged (422).`,
    id: 'IncidentId',
    body: { schema: 'IncidentComment', required: true, description: 'The new comment.' },
    success: { description: 'The incident after the change.', schema: 'IncidentResponse' },
    errors: ['INCIDENT_NOT_FOUND', 'VALIDATION_ERROR'],
  })
  async comment(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IncidentIdPipe) id: string,
    @Body() body: unknown,
  ) {
    return { status: 'ok', data: await this.incidents.comment(principal.accountId, id, body) };
  }
}
