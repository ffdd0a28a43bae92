import { Injectable } from '@nestjs/common';
import { pageOffset, pageRequest, paginationOf, PageQuery, type Pagination } from '../common/pagination.js';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { Database } from '../database/database.js';
import { notFound } from '../errors.js';
import { NotificationAttemptEntity, NotificationEntity } from './notification.entity.js';
import type { NotificationEventType } from './notification-event.js';
import type { DeliveryClass } from './notifier.js';

export const DEFAULT_DELIVERIES_PER_PAGE = 50;

/** GET /api/contacts/{id}/deliveries: the page fields only. */
export class ListDeliveriesQuery extends PageQuery {}

/**
 * One delivery attempt as the API shows it. `reason` is the attempt's short, safe detail
 * (docs/decisions/0011-notification-channels.md §1: never a provider body, a URL or a secret).
 */
export interface DeliveryJson {
  id: string;
  notification_id: string;
  event: NotificationEventType;
  monitor_id: string;
  attempted_at: number;
  outcome: DeliveryClass;
  status_code: number | null;
  reason: string;
  duration_ms: number;
}

interface DeliveryRow {
  id: string;
  notification_id: string;
  event: NotificationEventType;
  monitor_id: string;
  attempted_at: string | number;
  outcome: DeliveryClass;
  status: number | string | null;
  detail: string;
  duration_ms: number | string;
}

/**
 * A contact's delivery log (the outbox's attempts; contact tests are answered at once and not
 * logged), for its own account only: another account's contact is the same 404 as an unknown one.
 */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly db: Database,
  ) {}

  async list(
    accountId: string,
    contactId: string,
    query: ListDeliveriesQuery,
  ): Promise<{ deliveries: DeliveryJson[]; pagination: Pagination }> {
    if (!(await this.contacts.findOne(accountId, contactId))) throw notFound.contact();
    const page = pageRequest(query, DEFAULT_DELIVERIES_PER_PAGE);
    // Both through idx_notification_attempts_contact (contact_id, attempted_at, id).
    const total = await this.db.manager.count(NotificationAttemptEntity, { where: { contactId } });
    const offset = pageOffset(page, total);
    if (offset === null) return { deliveries: [], pagination: paginationOf(page, total) };
    const direction = (query.order ?? 'desc') === 'asc' ? 'ASC' : 'DESC';
    const rows = await this.db.manager
      .createQueryBuilder(NotificationAttemptEntity, 'a')
      .innerJoin(NotificationEntity, 'n', 'n.id = a.notification_id')
      .select('a.id', 'id')
      .addSelect('a.notification_id', 'notification_id')
      .addSelect('n.event', 'event')
      .addSelect('n.monitor_id', 'monitor_id')
      .addSelect('a.attempted_at', 'attempted_at')
      .addSelect('a.outcome', 'outcome')
      .addSelect('a.status', 'status')
      .addSelect('a.detail', 'detail')
      .addSelect('a.duration_ms', 'duration_ms')
      .where('a.contact_id = :contactId', { contactId })
      .orderBy('a.attempted_at', direction)
      .addOrderBy('a.id', direction)
      .offset(offset)
      .limit(page.perPage)
      .getRawMany<DeliveryRow>();
    return { deliveries: rows.map(toDeliveryJson), pagination: paginationOf(page, total) };
  }
}

function toDeliveryJson(row: DeliveryRow): DeliveryJson {
  return {
    id: row.id,
    notification_id: row.notification_id,
    event: row.event,
    monitor_id: row.monitor_id,
    attempted_at: Math.floor(Number(row.attempted_at) / 1000),
    outcome: row.outcome,
    status_code: row.status === null ? null : Number(row.status),
    reason: row.detail,
    duration_ms: Number(row.duration_ms),
  };
}
