import { Injectable } from '@nestjs/common';
import { IsNull, LessThan, MoreThan, Not, type EntityManager } from 'typeorm';
import { lockAccount } from '../auth/account-gate.js';
import { AccountEntity } from '../auth/account.entity.js';
import { Database } from '../database/database.js';
import { SessionEntity } from '../sessions/session.entity.js';
import { OneTimeTokenEntity, UserEntity, type OneTimePurpose } from './user.entity.js';

/** Users and their one-time tokens. Every query of the API's is scoped by account in the SQL. */
@Injectable()
export class UsersRepository {
  constructor(private readonly db: Database) {}

  get dialect(): Database['dialect'] {
    return this.db.dialect;
  }

  countUsers(): Promise<number> {
    return this.db.manager.count(UserEntity);
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.db.manager.findOneBy(UserEntity, { id });
  }

  findInAccount(accountId: string, id: string): Promise<UserEntity | null> {
    return this.db.manager.findOneBy(UserEntity, { id, accountId });
  }

  findByEmailKey(emailKey: string): Promise<UserEntity | null> {
    return this.db.manager.findOneBy(UserEntity, { emailKey });
  }

  /** A page of an account's users, oldest first, and how many there are. */
  page(
    accountId: string,
    offset: number | null,
    limit: number,
    order: 'ASC' | 'DESC',
  ): Promise<[UserEntity[], number]> {
    return Promise.all([
      offset === null
        ? Promise.resolve([])
        : this.db.manager.find(UserEntity, {
            where: { accountId },
            order: { createdAt: order, id: order },
            skip: offset,
            take: limit,
          }),
      this.db.manager.countBy(UserEntity, { accountId }),
    ]);
  }

  /** Every user of an account, oldest first (`users list`). */
  ofAccount(accountId: string): Promise<UserEntity[]> {
    return this.db.manager.find(UserEntity, { where: { accountId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findAccount(id: string): Promise<AccountEntity | null> {
    return this.db.manager.findOneBy(AccountEntity, { id });
  }

  /** The account first-start setup makes an admin of: the oldest named `default`, else the oldest. */
  async defaultAccount(): Promise<AccountEntity | null> {
    return (
      (await this.db.manager.findOne(AccountEntity, { where: { name: 'default' }, order: { createdAt: 'ASC' } })) ??
      (await this.db.manager.findOne(AccountEntity, { where: {}, order: { createdAt: 'ASC' } }))
    );
  }

  /** Runs `work` in a transaction holding the account's lock (admin counts stay true under concurrent changes). */
  inAccount<T>(accountId: string, work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(async (m) => {
      await lockAccount(m, this.db.dialect, accountId);
      return work(m);
    });
  }

  transaction<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async insertToken(token: OneTimeTokenEntity, m: EntityManager = this.db.manager): Promise<void> {
    await m.insert(OneTimeTokenEntity, token);
  }

  /** A token usable at `now` for one of `purposes`, locked by the transaction on PostgreSQL. */
  usableToken(
    m: EntityManager,
    tokenHash: string,
    purposes: readonly OneTimePurpose[],
    now: number,
  ): Promise<OneTimeTokenEntity | null> {
    return m
      .findOne(OneTimeTokenEntity, {
        where: { tokenHash, usedAt: IsNull(), expiresAt: MoreThan(now) },
        ...(this.db.dialect === 'postgres' ? { lock: { mode: 'pessimistic_write' as const } } : {}),
      })
      .then((token) => (token && purposes.includes(token.purpose) ? token : null));
  }

  /** Marks a user's open tokens (or every open setup token) used. */
  async retireTokens(m: EntityManager, where: { userId: string } | { purpose: 'setup' }, at: number): Promise<void> {
    await m.update(OneTimeTokenEntity, { ...where, usedAt: IsNull() }, { usedAt: at });
  }

  /** Forgets tokens that expired a day ago or more. */
  async pruneTokens(now: number): Promise<void> {
    await this.db.manager.delete(OneTimeTokenEntity, { expiresAt: LessThan(now - 86_400) });
  }

  /** Deletes every session of a user (sign-out everywhere). */
  async revokeSessions(m: EntityManager, userId: string): Promise<void> {
    await m.delete(SessionEntity, { userId });
  }

  async setLastLogin(id: string, at: number): Promise<void> {
    await this.db.transaction((m) => m.update(UserEntity, { id }, { lastLoginAt: at }).then(() => undefined));
  }

  /**
   * The account's other admins who can sign in (enabled, with a password: an invitation not yet
   * taken does not count). Users of other accounts never appear: `accountId` is in the WHERE.
   */
  otherAdmins(m: EntityManager, accountId: string, exceptId: string): Promise<number> {
    return m.countBy(UserEntity, {
      accountId,
      role: 'admin',
      disabled: false,
      passwordHash: Not(IsNull()),
      id: Not(exceptId),
    });
  }
}
