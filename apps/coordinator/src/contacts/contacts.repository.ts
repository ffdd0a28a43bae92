import { Injectable } from '@nestjs/common';
import { pageOffset, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { ContactEntity } from './contact.entity.js';
import type { Channel } from './channels.js';
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

  /** Deletes a contact; it leaves every monitor's contact list (foreign keys cascade). */
  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const result = await m.delete(ContactEntity, { id, accountId });
      return (result.affected ?? 0) > 0;
    });
  }
}
