import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { passCreateGate, type CreateGate } from '../auth/account-gate.js';
import { pageOffset, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { ContactEntity } from './contact.entity.js';
import type { Channel } from './channels.js';
import { afterDelivery, type DeliveryEnd } from './contact-health.js';
import type { ContactSort } from './contact.dto.js';

export interface ContactListQuery {
  accountId: string;
  search?: string;
  channel?: Channel;
  sort: ContactSort;
  order: 'asc' | 'desc';
  page: PageRequest;
}

/** Sort keys as SQL; names compare lower-cased with Unicode rules on both databases. */
const SORT_EXPRESSIONS: { readonly [K in ContactSort]: (db: Database) => string } = {
  name: (db) => db.lower('c.name'),
  created_at: () => 'c.created_at',
};

function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

@Injectable()
export class ContactsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inside the dispatcher's transaction `m`: the contact's health after a delivery ended
   * (contact-health.ts). Returns true when this delivery deactivated the contact.
   */
  async recordDelivery(m: EntityManager, contactId: string, end: DeliveryEnd): Promise<boolean> {
    const contact = await m.findOne(ContactEntity, {
      where: { id: contactId },
      ...(this.db.dialect === 'postgres' ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!contact) return false;
    const next = afterDelivery(contact, end);
    if (
      next.active === contact.active &&
      next.consecutiveFailures === contact.consecutiveFailures &&
      JSON.stringify(next.error) === JSON.stringify(contact.error)
    ) {
      return false;
    }
    await m.update(
      ContactEntity,
      { id: contactId },
      { active: next.active, consecutiveFailures: next.consecutiveFailures, error: next.error },
    );
    return next.deactivated;
  }

  async list(query: ContactListQuery): Promise<{ total: number; contacts: ContactEntity[] }> {
    const qb = this.db.manager
      .createQueryBuilder(ContactEntity, 'c')
      .where('c.account_id = :accountId', { accountId: query.accountId });
    if (query.channel !== undefined) qb.andWhere('c.channel = :channel', { channel: query.channel });
    if (query.search !== undefined && query.search !== '') {
      // Both sides lower-cased by the same Unicode-aware function (SQLite's LOWER folds ASCII only).
      qb.andWhere(`${this.db.lower('c.name')} LIKE ${this.db.lower(':search')} ESCAPE '\\'`, {
        search: likePattern(query.search),
      });
    }
    const total = await qb.getCount();
    const offset = pageOffset(query.page, total);
    if (offset === null) return { total, contacts: [] };
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const contacts = await qb
      .orderBy(SORT_EXPRESSIONS[query.sort](this.db), direction)
      .addOrderBy('c.id', direction)
      .offset(offset)
      .limit(query.page.perPage)
      .getMany();
    return { total, contacts };
  }

  findOne(accountId: string, id: string): Promise<ContactEntity | null> {
    return this.db.manager.findOneBy(ContactEntity, { id, accountId });
  }

  async save(contact: ContactEntity): Promise<void> {
    await this.db.transaction((m) => m.save(ContactEntity, contact).then(() => undefined));
  }

  /**
   * Stores a new contact after `gate` (the quota, judged with the account locked in the same
   * transaction: account-gate.ts, docs/decisions/0018-abuse-limits-and-quotas.md).
   */
  async insertGated(contact: ContactEntity, gate: CreateGate): Promise<void> {
    await this.db.transaction(async (m) => {
      const count = (tx: EntityManager) => tx.countBy(ContactEntity, { accountId: contact.accountId });
      await passCreateGate(m, this.db.dialect, contact.accountId, 'contacts', count, gate);
      await m.save(ContactEntity, contact);
    });
  }

  /** Deletes a contact; it leaves every monitor's contact list (foreign keys cascade). */
  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const result = await m.delete(ContactEntity, { id, accountId });
      return (result.affected ?? 0) > 0;
    });
  }
}
