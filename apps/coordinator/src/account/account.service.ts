import { Injectable } from '@nestjs/common';
import { AccountsRepository } from '../auth/accounts.repository.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';

/** GET /api/account (DECISIONS §2). */
export interface AccountJson {
  id: string;
  name: string;
  subscription_status: 'active' | 'inactive';
  monitors_count: number;
  up_monitors: number;
  down_monitors: number;
  paused_monitors: number;
  created_at: number;
}

@Injectable()
export class AccountService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly monitors: MonitorsRepository,
  ) {}

  async get(accountId: string): Promise<AccountJson> {
    const account = await this.accounts.findAccount(accountId);
    if (!account) throw new Error(`authenticated account ${accountId} does not exist`);
    const counts = await this.monitors.countByStatus(accountId);
    return {
      id: account.id,
      name: account.name,
      subscription_status: account.subscriptionStatus,
      monitors_count: counts.total,
      up_monitors: counts.up,
      down_monitors: counts.down,
      paused_monitors: counts.paused,
      created_at: account.createdAt,
    };
  }
}
