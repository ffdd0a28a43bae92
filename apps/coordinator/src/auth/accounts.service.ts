import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, isObjectId, newObjectId, unixSeconds, type Clock } from '#runtime';
import { AccountEntity, type SubscriptionStatus } from './account.entity.js';
import { AccountsRepository } from './accounts.repository.js';
import { ApiKeyEntity } from './api-key.entity.js';
import { API_KEY_PATTERN, displayPrefix, generateApiKey, hashApiKey } from './api-key.js';
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

  async createAccount(name: string, presetKey?: string): Promise<{ account: AccountEntity; apiKey: string }> {
    if (presetKey !== undefined && !API_KEY_PATTERN.test(presetKey)) {
      throw new AdminError('an API key must be pkt_ followed by 64 lowercase hex characters');
    }
    const now = this.clock.now();
    const account = Object.assign(new AccountEntity(), {
      id: newObjectId(now),
      name,
      subscriptionStatus: 'active' as const,
      createdAt: Math.floor(now / 1000),
    });
    const apiKey = presetKey ?? generateApiKey();
    await this.accounts.insertAccountWithKey(account, this.keyEntity(account.id, apiKey, PERMISSIONS));
    return { account, apiKey };
  }

  async createKey(accountId: string, permissions: readonly Permission[]): Promise<{ keyId: string; apiKey: string }> {
    if (!isObjectId(accountId) || !(await this.accounts.findAccount(accountId))) {
      throw new AdminError(`no account with id ${accountId}`);
    }
    const apiKey = generateApiKey();
    const key = this.keyEntity(accountId, apiKey, permissions);
    await this.accounts.insertKey(key);
    return { keyId: key.id, apiKey };
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

  private keyEntity(accountId: string, apiKey: string, permissions: readonly Permission[]): ApiKeyEntity {
    const now = this.clock.now();
    return Object.assign(new ApiKeyEntity(), {
      id: newObjectId(now),
      accountId,
      keyHash: hashApiKey(apiKey),
      prefix: displayPrefix(apiKey),
      permissions: permissions.join(','),
      createdAt: Math.floor(now / 1000),
      revokedAt: null,
      lastUsedAt: null,
    });
  }
}
