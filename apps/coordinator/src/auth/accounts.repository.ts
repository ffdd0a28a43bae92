import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { Database } from '../database/database.js';
import { AccountEntity, type SubscriptionStatus } from './account.entity.js';
import { ApiKeyEntity } from './api-key.entity.js';

/** What authentication reads of an API key (AccountsRepository.findKeyByHash). */
export type KeyForAuth = Pick<
  ApiKeyEntity,
  'id' | 'accountId' | 'keyHash' | 'permissions' | 'revokedAt' | 'lastUsedAt'
>;

interface KeyRow {
  id: string;
  account_id: string;
  key_hash: string;
  permissions: string;
  revoked_at: number | string | null;
  last_used_at: number | string | null;
}

/** Accounts and their API keys. */
@Injectable()
export class AccountsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Inserts the account and its key in one transaction. With `onlyIfFirst`, nothing is written
   * (false) when any account exists: checked inside the transaction, which on SQLite holds the
   * file's write lock from its start, so two processes starting on an empty database make one.
   */
  async insertAccountWithKey(account: AccountEntity, key: ApiKeyEntity, onlyIfFirst = false): Promise<boolean> {
    return this.db.transaction(async (m) => {
      if (onlyIfFirst && (await m.count(AccountEntity)) > 0) return false;
      await m.insert(AccountEntity, account);
      await m.insert(ApiKeyEntity, key);
      return true;
    });
  }

  async insertKey(key: ApiKeyEntity): Promise<void> {
    await this.db.transaction((m) => m.insert(ApiKeyEntity, key).then(() => undefined));
  }

  findAccount(id: string): Promise<AccountEntity | null> {
    return this.db.manager.findOneBy(AccountEntity, { id });
  }

  async countAccounts(): Promise<number> {
    return this.db.manager.count(AccountEntity);
  }

  /** Every account, oldest first (the admin CLI's `accounts list`). */
  listAccounts(): Promise<AccountEntity[]> {
    return this.db.manager.find(AccountEntity, { order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** An account's keys, revoked ones included, oldest first (`keys list`). */
  keysOf(accountId: string): Promise<ApiKeyEntity[]> {
    return this.db.manager.find(ApiKeyEntity, { where: { accountId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** A page of an account's keys in use (revoked ones left out), by creation, and how many there are. */
  pageKeys(
    accountId: string,
    offset: number | null,
    limit: number,
    order: 'ASC' | 'DESC',
  ): Promise<[ApiKeyEntity[], number]> {
    const where = { accountId, revokedAt: IsNull() };
    return Promise.all([
      offset === null
        ? Promise.resolve([])
        : this.db.manager.find(ApiKeyEntity, {
            where,
            order: { createdAt: order, id: order },
            skip: offset,
            take: limit,
          }),
      this.db.manager.countBy(ApiKeyEntity, where),
    ]);
  }

  /** Revokes a key of this account still in use; false when there is none (unknown, revoked, another account's). */
  async revokeKeyOf(accountId: string, id: string, at: number): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const result = await m.update(ApiKeyEntity, { id, accountId, revokedAt: IsNull() }, { revokedAt: at });
      return (result.affected ?? 0) > 0;
    });
  }

  /**
   * The key whose hash is `keyHash`, with what authentication reads of it. Every API request
   * asks, so it is one plain statement and no entity: the query builder and hydration cost more
   * than the indexed read (docs/decisions/0038-the-monitor-list-in-plain-sql.md).
   */
  async findKeyByHash(keyHash: string): Promise<KeyForAuth | null> {
    const rows = await this.db.manager.query<KeyRow[]>(
      'SELECT "id", "account_id", "key_hash", "permissions", "revoked_at", "last_used_at" ' +
        `FROM "api_keys" WHERE "key_hash" = ${this.db.placeholder(1)} LIMIT 1`,
      [keyHash],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      id: row.id,
      accountId: row.account_id,
      keyHash: row.key_hash,
      permissions: row.permissions,
      revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    };
  }

  findKey(id: string): Promise<ApiKeyEntity | null> {
    return this.db.manager.findOneBy(ApiKeyEntity, { id });
  }

  /** Marks a key revoked; returns false when there is no such key. */
  async revokeKey(id: string, at: number): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const key = await m.findOneBy(ApiKeyEntity, { id });
      if (!key) return false;
      if (key.revokedAt === null) await m.update(ApiKeyEntity, { id }, { revokedAt: at });
      return true;
    });
  }

  async touchKey(id: string, at: number): Promise<void> {
    await this.db.transaction((m) => m.update(ApiKeyEntity, { id }, { lastUsedAt: at }).then(() => undefined));
  }

  /** Returns false when there is no such account. */
  async setSubscription(id: string, status: SubscriptionStatus): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const result = await m.update(AccountEntity, { id }, { subscriptionStatus: status });
      return (result.affected ?? 0) > 0;
    });
  }
}
