import { Injectable } from '@nestjs/common';
import { In, IsNull, Not, type EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { passCreateGate, type CreateGate } from '../auth/account-gate.js';
import { pageOffset, type PageRequest } from '../common/pagination.js';
import { Database } from '../database/database.js';
import { SecretBox, SecretsKeyError } from '../secrets/secret-box.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import { ContactEntity } from './contact.entity.js';
import type { Channel } from './channels.js';
import { channelsWithSecrets, hasSecretFields, joinSecrets, splitSecrets } from './contact-secrets.js';
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

/** Rows sealed or re-sealed per round of the boot-time sealing and of `secrets rotate`. */
const SEAL_BATCH = 200;

/**
 * Contacts in the database. Their secret fields are sealed here and nowhere else
 * (docs/decisions/0020-secrets-at-rest.md): every write seals them with the current key, and
 * every read that returns a contact opens them, so the services and notifiers see plain details.
 */
@Injectable()
export class ContactsRepository {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
  ) {}

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
    return { total, contacts: contacts.map((c) => this.opened(c)) };
  }

  async findOne(accountId: string, id: string): Promise<ContactEntity | null> {
    const contact = await this.db.manager.findOneBy(ContactEntity, { id, accountId });
    return contact && this.opened(contact);
  }

  /** A contact by id alone, details opened (the dispatcher's read before a delivery). */
  async findById(id: string): Promise<ContactEntity | null> {
    const contact = await this.db.manager.findOneBy(ContactEntity, { id });
    return contact && this.opened(contact);
  }

  async save(contact: ContactEntity): Promise<void> {
    const row = this.sealed(contact);
    await this.db.transaction((m) => m.save(ContactEntity, row).then(() => undefined));
  }

  /**
   * Stores a new contact after `gate` (the quota, judged with the account locked in the same
   * transaction: account-gate.ts, docs/decisions/0018-abuse-limits-and-quotas.md).
   */
  async insertGated(contact: ContactEntity, gate: CreateGate): Promise<void> {
    await this.db.transaction(async (m) => {
      const count = (tx: EntityManager) => tx.countBy(ContactEntity, { accountId: contact.accountId });
      await passCreateGate(m, this.db.dialect, contact.accountId, 'contacts', count, gate);
      await m.save(ContactEntity, this.sealed(contact));
    });
  }

  /**
   * Deletes a contact; it leaves every monitor's contact list (foreign keys cascade) and every
   * escalation step that names it (in the same transaction; a step left without contacts stays,
   * docs/decisions/0029-notification-rules.md).
   */
  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const result = await m.delete(ContactEntity, { id, accountId });
      if ((result.affected ?? 0) === 0) return false;
      const naming = await m
        .createQueryBuilder(MonitorEntity, 'm')
        .where('m.account_id = :accountId', { accountId })
        .andWhere('m.notification_rules LIKE :id', { id: `%"${id}"%` })
        .getMany();
      for (const monitor of naming) {
        const rules = monitor.notificationRules!;
        const escalation = rules.escalation.map((s) => ({ ...s, contacts: s.contacts.filter((c) => c !== id) }));
        await m.update(MonitorEntity, { id: monitor.id }, { notificationRules: { ...rules, escalation } });
      }
      return true;
    });
  }

  /**
   * Seals the secrets of rows stored before sealing existed (or by an older replica), oldest
   * first, each only if still unsealed (another replica may be doing the same). Returns how many.
   */
  async sealPlaintextRows(): Promise<number> {
    const channels = channelsWithSecrets();
    let sealed = 0;
    for (;;) {
      const rows = await this.db.manager.find(ContactEntity, {
        where: { sealedSecrets: IsNull(), channel: In(channels) },
        order: { id: 'ASC' },
        take: SEAL_BATCH,
      });
      if (rows.length === 0) return sealed;
      for (const row of rows) {
        const columns = sealedColumns(this.sealed(row));
        const result = await this.db.transaction((m) =>
          m.update(ContactEntity, { id: row.id, sealedSecrets: IsNull() }, columns),
        );
        sealed += result.affected ?? 0;
      }
    }
  }

  /** Re-seals with the current key every row sealed with another (`secrets rotate`). Returns how many. */
  async resealWithCurrentKey(): Promise<number> {
    let resealed = 0;
    const current = this.box.currentKeyId;
    for (;;) {
      const rows = await this.db.manager.find(ContactEntity, {
        where: { secretsKeyId: Not(current) },
        order: { id: 'ASC' },
        take: SEAL_BATCH,
      });
      if (rows.length === 0) return resealed;
      for (const row of rows) {
        const before = row.secretsKeyId ?? undefined;
        const columns = sealedColumns(this.sealed(this.opened(row)));
        const result = await this.db.transaction((m) =>
          m.update(ContactEntity, { id: row.id, secretsKeyId: before }, columns),
        );
        resealed += result.affected ?? 0;
      }
    }
  }

  /** Rows sealed per key id (rotation progress; the boot check). */
  async sealedByKey(): Promise<Map<string, number>> {
    const rows = await this.db.manager
      .createQueryBuilder(ContactEntity, 'c')
      .select('c.secrets_key_id', 'key_id')
      .addSelect('COUNT(*)', 'n')
      .where('c.secrets_key_id IS NOT NULL')
      .groupBy('c.secrets_key_id')
      .getRawMany<{ key_id: string; n: string | number }>();
    return new Map(rows.map((r) => [r.key_id, Number(r.n)]));
  }

  /**
   * At boot: every key that sealed a stored row is configured, and opens one of its rows; else
   * SecretsKeyError, which stops the process with a message naming SECRETS_KEY (a wrong key
   * fails here, before any delivery, rather than on each).
   */
  async checkKeys(): Promise<void> {
    for (const keyId of (await this.sealedByKey()).keys()) {
      if (!this.box.knows(keyId)) throw new SecretsKeyError(this.box.unknownKeyMessage(keyId));
      const row = await this.db.manager.findOne(ContactEntity, { where: { secretsKeyId: keyId } });
      if (row) this.opened(row);
    }
  }

  /** The row's details with its secrets opened (a row from before sealing is returned as it is). */
  private opened(row: ContactEntity): ContactEntity {
    if (row.sealedSecrets === null || row.sealedSecrets === undefined) return row;
    const secrets = JSON.parse(this.box.open(row.sealedSecrets, sealContext(row.id))) as Record<string, unknown>;
    row.details = joinSecrets(row.channel, row.details, secrets);
    return row;
  }

  /** A copy of `contact` as stored: secrets sealed with the current key, [REDACTED] in the details. */
  private sealed(contact: ContactEntity): ContactEntity {
    if (!hasSecretFields(contact.channel)) {
      return Object.assign(new ContactEntity(), contact, { sealedSecrets: null, secretsKeyId: null });
    }
    const { stored, secrets } = splitSecrets(contact.channel, contact.details);
    return Object.assign(new ContactEntity(), contact, {
      details: stored,
      sealedSecrets: this.box.seal(JSON.stringify(secrets), sealContext(contact.id)),
      secretsKeyId: this.box.currentKeyId,
    });
  }
}

/** The columns sealing writes, for an update. */
function sealedColumns(row: ContactEntity): QueryDeepPartialEntity<ContactEntity> {
  return {
    details: row.details as QueryDeepPartialEntity<Record<string, unknown>>,
    sealedSecrets: row.sealedSecrets ?? null,
    secretsKeyId: row.secretsKeyId ?? null,
  };
}

/** The additional authenticated data of a contact's sealed secrets: they open only in their own row. */
function sealContext(contactId: string): string {
  return `contacts/${contactId}`;
}
