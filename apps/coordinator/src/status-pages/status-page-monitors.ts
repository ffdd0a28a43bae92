import type { EntityManager } from 'typeorm';
import { StatusPageEntity } from './status-page.entity.js';

/**
 * Takes a deleted monitor off every status page of its account (docs/decisions/0004-monitors.md),
 * inside the transaction that deletes it. A page may so end with no monitors: it stays, shows
 * none, and a later update that supplies `monitors` must again give 1 to 20.
 */
export async function removeMonitorFromStatusPages(
  m: EntityManager,
  accountId: string,
  monitorId: string,
): Promise<void> {
  const pages = await m
    .createQueryBuilder(StatusPageEntity, 'p')
    .where('p.account_id = :accountId', { accountId })
    .andWhere('p.monitors LIKE :listed', { listed: `%"${monitorId}"%` })
    .getMany();
  for (const page of pages) {
    page.monitors = page.monitors.filter((id) => id !== monitorId);
    await m.save(StatusPageEntity, page);
  }
}
