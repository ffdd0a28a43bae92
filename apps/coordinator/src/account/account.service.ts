import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, unixSeconds, type Clock } from '#runtime';
import { AccountsRepository } from '../auth/accounts.repository.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';

/** GET /api/account (docs/decisions/0003-auth-permissions-rate-limit.md). */
export interface AccountJson {
  id: string;
  name: string;
  subscription_status: 'active' | 'inactive';
  monitors_count: number;
  /** Counts by effective status (monitor-status.ts): a monitor Picket cannot see is neither up nor down. */
  up_monitors: number;
  down_monitors: number;
  unknown_monitors: number;
  paused_monitors: number;
  created_at: number;
}

@Injectable()
export class AccountService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly monitors: MonitorsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async get(accountId: string): Promise<AccountJson> {
    const account = await this.accounts.findAccount(accountId);
    if (!account) throw new Error(`authenticated account ${accountId} does not exist`);
    const counts = await this.monitors.countByStatus(accountId, unixSeconds(this.clock));
    return {
      id: account.id,
      name: account.name,
      subscription_status: account.subscriptionStatus,
      monitors_count: counts.total,
      up_monitors: counts.up,
      down_monitors: counts.down,
      unknown_monitors: counts.unknown,
      paused_monitors: counts.paused,
      created_at: account.createdAt,
    };
  }
}
