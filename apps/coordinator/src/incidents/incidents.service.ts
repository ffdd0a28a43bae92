import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, unixSeconds, type Clock } from '#runtime';
import { paginationOf, pageRequest, type Pagination } from '../common/pagination.js';
import { notFound } from '../errors.js';
import { validateInput } from '../common/validate.js';
import { DEFAULT_INCIDENTS_PER_PAGE, IncidentCommentDto, type ListIncidentsQuery } from './incident.dto.js';
import { toIncidentJson, type IncidentJson } from './incident.mapper.js';
import { IncidentsRepository } from './incidents.repository.js';

@Injectable()
export class IncidentsService {
  constructor(
    private readonly incidents: IncidentsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(
    accountId: string,
    query: ListIncidentsQuery,
  ): Promise<{ incidents: IncidentJson[]; pagination: Pagination }> {
    const page = pageRequest(query, DEFAULT_INCIDENTS_PER_PAGE);
    const { total, incidents } = await this.incidents.list({
      accountId,
      monitorId: query.monitor_id,
      resolved: query.resolved === undefined ? undefined : query.resolved === 'true',
      order: query.order ?? 'desc',
      page,
    });
    const now = unixSeconds(this.clock);
    return { incidents: incidents.map((i) => toIncidentJson(i, now)), pagination: paginationOf(page, total) };
  }

  async get(accountId: string, id: string): Promise<IncidentJson> {
    const incident = await this.incidents.findOne(accountId, id);
    if (!incident) throw notFound.incident();
    return toIncidentJson(incident, unixSeconds(this.clock));
  }

  /** PUT: the incident must exist (404) before the body is judged (422). */
  async comment(accountId: string, id: string, body: unknown): Promise<IncidentJson> {
    if (!(await this.incidents.findOne(accountId, id))) throw notFound.incident();
    const dto = validateInput(IncidentCommentDto, body === undefined ? {} : body);
    const now = unixSeconds(this.clock);
    const incident = await this.incidents.setComment(accountId, id, dto.comment, now);
    if (!incident) throw notFound.incident();
    return toIncidentJson(incident, now);
  }
}
