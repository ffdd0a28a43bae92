import { Injectable } from '@nestjs/common';
import { In, IsNull, MoreThanOrEqual, Not } from 'typeorm';
import { pageOffset, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { IncidentEntity } from '../incidents/incident.entity.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import { StatusPageEntity } from './status-page.entity.js';

/** Two pages claimed one custom domain at once: the unique index refused the second. */
export class CustomDomainTakenError extends Error {}

/** Status pages in storage, and what their public side reads. Account scoping is in every query that has one. */
@Injectable()
export class StatusPagesRepository {
  constructor(private readonly db: Database) {}

  async list(
    accountId: string,
    order: 'asc' | 'desc',
    page: PageRequest,
  ): Promise<{ total: number; pages: StatusPageEntity[] }> {
    const total = await this.db.manager.countBy(StatusPageEntity, { accountId });
    const offset = pageOffset(page, total);
    if (offset === null) return { total, pages: [] };
    const direction = order === 'asc' ? 'ASC' : 'DESC';
    const pages = await this.db.manager.find(StatusPageEntity, {
      where: { accountId },
      order: { createdAt: direction, id: direction },
      skip: offset,
      take: page.perPage,
    });
    return { total, pages };
  }

  findOne(accountId: string, id: string): Promise<StatusPageEntity | null> {
    return this.db.manager.findOneBy(StatusPageEntity, { id, accountId });
  }

  /** Any account's page: for the public side only. */
  findPublic(id: string): Promise<StatusPageEntity | null> {
    return this.db.manager.findOneBy(StatusPageEntity, { id });
  }

  async idOfDomain(domain: string): Promise<string | null> {
    const page = await this.db.manager.findOne(StatusPageEntity, {
      select: { id: true },
      where: { customDomain: domain },
    });
    return page?.id ?? null;
  }

  async domainTaken(domain: string, exceptPageId: string): Promise<boolean> {
    return this.db.manager.exists(StatusPageEntity, { where: { customDomain: domain, id: Not(exceptPageId) } });
  }

  /** Which of these ids are monitors of the account. */
  async ownedMonitorIds(accountId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const found = await this.db.manager.find(MonitorEntity, {
      select: { id: true },
      where: { accountId, id: In([...ids]) },
    });
    return new Set(found.map((m) => m.id));
  }

  /** Inserts or updates; a custom domain taken meanwhile → CustomDomainTakenError. */
  /**
   * Hashes the basic-auth passwords still stored in plain text (rows from before hashing), each
   * only if unchanged meanwhile. Returns how many.
   */
  async hashPlaintextPasswords(
    hash: (plain: string) => Promise<string>,
    isHash: (stored: string) => boolean,
  ): Promise<number> {
    const pages = await this.db.manager.find(StatusPageEntity, {
      select: { id: true, basicAuth: true },
      where: { basicAuth: Not(IsNull()) },
    });
    let hashed = 0;
    for (const page of pages) {
      if (page.basicAuth === null || isHash(page.basicAuth)) continue;
      const stored = await hash(page.basicAuth);
      const result = await this.db.transaction((m) =>
        m.update(StatusPageEntity, { id: page.id, basicAuth: page.basicAuth ?? IsNull() }, { basicAuth: stored }),
      );
      hashed += result.affected ?? 0;
    }
    return hashed;
  }

  async save(page: StatusPageEntity, isNew: boolean): Promise<void> {
    try {
      await this.db.transaction(async (m) => {
        if (isNew) await m.insert(StatusPageEntity, page);
        else await m.save(StatusPageEntity, page);
      });
    } catch (error) {
      if (page.customDomain !== null && (await this.domainTaken(page.customDomain, page.id))) {
        throw new CustomDomainTakenError();
      }
      throw error;
    }
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const result = await m.delete(StatusPageEntity, { id, accountId });
      return (result.affected ?? 0) > 0;
    });
  }

  /** The page's monitors that still exist (any order; the caller orders them). */
  monitorsOf(page: StatusPageEntity): Promise<MonitorEntity[]> {
    if (page.monitors.length === 0) return Promise.resolve([]);
    return this.db.manager.findBy(MonitorEntity, { accountId: page.accountId, id: In(page.monitors) });
  }

  /** Newest first, at most `limit`: incidents of these monitors that started at `from` or later, or are still open. */
  recentIncidents(
    accountId: string,
    monitorIds: readonly string[],
    from: number,
    limit: number,
  ): Promise<IncidentEntity[]> {
    if (monitorIds.length === 0) return Promise.resolve([]);
    const monitorId = In([...monitorIds]);
    return this.db.manager.find(IncidentEntity, {
      where: [
        { accountId, monitorId, startedAt: MoreThanOrEqual(from) },
        { accountId, monitorId, resolvedAt: IsNull() },
      ],
      order: { startedAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}
