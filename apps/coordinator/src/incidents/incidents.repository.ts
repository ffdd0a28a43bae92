import { Injectable } from '@nestjs/common';
import { pageOffset, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { IncidentEntity } from './incident.entity.js';

export interface IncidentListQuery {
  accountId: string;
  monitorId?: string;
  resolved?: boolean;
  order: 'asc' | 'desc';
  page: PageRequest;
}

@Injectable()
export class IncidentsRepository {
  constructor(private readonly db: Database) {}

  async list(query: IncidentListQuery): Promise<{ total: number; incidents: IncidentEntity[] }> {
    const qb = this.db.manager
      .createQueryBuilder(IncidentEntity, 'i')
      .where('i.account_id = :accountId', { accountId: query.accountId });
    if (query.monitorId !== undefined) qb.andWhere('i.monitor_id = :monitorId', { monitorId: query.monitorId });
    if (query.resolved !== undefined) {
      qb.andWhere(query.resolved ? 'i.resolved_at IS NOT NULL' : 'i.resolved_at IS NULL');
    }
    const total = await qb.getCount();
    const offset = pageOffset(query.page, total);
    if (offset === null) return { total, incidents: [] };
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const incidents = await qb
      .orderBy('i.started_at', direction)
      .addOrderBy('i.id', direction)
      .offset(offset)
      .limit(query.page.perPage)
      .getMany();
    return { total, incidents };
  }

  findOne(accountId: string, id: string): Promise<IncidentEntity | null> {
    return this.db.manager.findOneBy(IncidentEntity, { id, accountId });
  }

  async setComment(accountId: string, id: string, comment: string, at: number): Promise<IncidentEntity | null> {
    return this.db.transaction(async (m) => {
      const result = await m.update(IncidentEntity, { id, accountId }, { userComment: comment, updatedAt: at });
      if ((result.affected ?? 0) === 0) return null;
      return m.findOneBy(IncidentEntity, { id, accountId });
    });
  }
}
