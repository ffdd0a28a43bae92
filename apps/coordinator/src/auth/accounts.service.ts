import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, isObjectId, newObjectId, unixSeconds, type Clock } from '#runtime';
import { AccountEntity, type SubscriptionStatus } from './account.entity.js';
import { AccountsRepository } from './accounts.repository.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { bootstrapKeyProblem } from '../config/api-key-pattern.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.js';
import { PERMISSIONS, type Permission } from './permissions.js';

export class AdminError extends Error {}

/**
 * Operator actions on accounts and keys: what the admin CLI and first-start bootstrap do.
 * Keys are returned in clear exactly once, here; only their hash is stored.
 */
@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A new account with one key holding every permission, named `keyName`. A preset key (the
   * bootstrap's) must have the key format and not be too regular to be secret.
   */
  async createAccount(
    name: string,
    presetKey?: string,
    keyName = 'initial',
  ): Promise<{ account: AccountEntity; keyId: string; apiKey: string }> {
    const made = this.newAccount(name, presetKey, keyName);
    await this.accounts.insertAccountWithKey(made.account, made.key);
    return made;
  }

  /**
   * The first account (`createAccount`'s), only while the database has none; null when one
   * exists, however recently another process made it (the bootstrap of two servers at once).
   */
  async createFirstAccount(
    name: string,
    presetKey: string | undefined,
    keyName: string,
  ): Promise<{ account: AccountEntity; keyId: string; apiKey: string } | null> {
    const made = this.newAccount(name, presetKey, keyName);
    return (await this.accounts.insertAccountWithKey(made.account, made.key, true)) ? made : null;
  }

  /** An account and its all-permission key, not yet stored; a preset key is checked first. */
  private newAccount(name: string, presetKey: string | undefined, keyName: string) {
    const problem = presetKey === undefined ? null : bootstrapKeyProblem(presetKey);
    if (problem !== null) throw new AdminError(`the API key ${problem}`);
    const now = this.clock.now();
    const account = Object.assign(new AccountEntity(), {
      id: newObjectId(now),
      name,
      subscriptionStatus: 'active' as const,
      createdAt: Math.floor(now / 1000),
    });
    const apiKey = presetKey ?? generateApiKey();
    const key = this.keyEntity(account.id, apiKey, PERMISSIONS, keyName);
    return { account, key, keyId: key.id, apiKey };
  }

  async createKey(
    accountId: string,
    permissions: readonly Permission[],
    name = '',
  ): Promise<{ keyId: string; apiKey: string }> {
    await this.existingAccount(accountId);
    const apiKey = generateApiKey();
    const key = this.keyEntity(accountId, apiKey, permissions, name);
    await this.accounts.insertKey(key);
    return { keyId: key.id, apiKey };
  }

  listAccounts(): Promise<AccountEntity[]> {
    return this.accounts.listAccounts();
  }

  /** The account's keys, revoked ones included, oldest first: never the keys themselves, which are not stored. */
  async listKeys(accountId: string): Promise<ApiKeyEntity[]> {
    await this.existingAccount(accountId);
    return this.accounts.keysOf(accountId);
  }

  async revokeKey(keyId: string): Promise<void> {
    if (!isObjectId(keyId) || !(await this.accounts.revokeKey(keyId, unixSeconds(this.clock)))) {
      throw new AdminError(`no API key with id ${keyId}`);
    }
  }

  async setSubscription(accountId: string, status: SubscriptionStatus): Promise<void> {
    if (!isObjectId(accountId) || !(await this.accounts.setSubscription(accountId, status))) {
      throw new AdminError(`no account with id ${accountId}`);
    }
  }

  private async existingAccount(accountId: string): Promise<AccountEntity> {
    const account = isObjectId(accountId) ? await this.accounts.findAccount(accountId) : null;
    if (!account) throw new AdminError(`no account with id ${accountId}`);
    return account;
  }

  private keyEntity(accountId: string, apiKey: string, permissions: readonly Permission[], name: string): ApiKeyEntity {
    const now = this.clock.now();
    return Object.assign(new ApiKeyEntity(), {
      id: newObjectId(now),
      accountId,
      name,
      keyHash: hashApiKey(apiKey),
      prefix: displayPrefix(apiKey),
      permissions: permissions.join(','),
      createdAt: Math.floor(now / 1000),
      revokedAt: null,
      lastUsedAt: null,
    });
  }
}
