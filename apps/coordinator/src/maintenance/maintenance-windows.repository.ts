import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { pageOffset, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import { MaintenanceWindowEntity } from './maintenance-window.entity.js';

/** Maintenance windows in storage; every query is scoped by account, except `all` (the calendar's load). */
@Injectable()
export class MaintenanceWindowsRepository {
  constructor(private readonly db: Database) {}

  async list(
    accountId: string,
    order: 'asc' | 'desc',
    page: PageRequest,
  ): Promise<{ total: number; windows: MaintenanceWindowEntity[] }> {
    const total = await this.db.manager.countBy(MaintenanceWindowEntity, { accountId });
    const offset = pageOffset(page, total);
    if (offset === null) return { total, windows: [] };
    const direction = order === 'asc' ? 'ASC' : 'DESC';
    const windows = await this.db.manager.find(MaintenanceWindowEntity, {
      where: { accountId },
      order: { createdAt: direction, id: direction },
      skip: offset,
      take: page.perPage,
    });
    return { total, windows };
  }

  findOne(accountId: string, id: string): Promise<MaintenanceWindowEntity | null> {
    return this.db.manager.findOneBy(MaintenanceWindowEntity, { id, accountId });
  }

  /** Every window of every account (the calendar keeps them in memory). */
  all(): Promise<MaintenanceWindowEntity[]> {
    return this.db.manager.find(MaintenanceWindowEntity, { order: { id: 'ASC' } });
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

  async save(window: MaintenanceWindowEntity, isNew: boolean): Promise<void> {
    await this.db.transaction(async (m) => {
      if (isNew) await m.insert(MaintenanceWindowEntity, window);
      else await m.save(MaintenanceWindowEntity, window);
    });
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const result = await m.delete(MaintenanceWindowEntity, { id, accountId });
      return (result.affected ?? 0) > 0;
    });
  }
}
