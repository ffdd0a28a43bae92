import type { EntityManager } from 'typeorm';
import type { Dialect } from '../database/data-source.js';
import { AppError } from '../errors.js';
import { AccountEntity } from './account.entity.js';

/**
 * What an account must pass before a create (docs/decisions/0018-abuse-limits-and-quotas.md):
 * at most `limit` of the thing (MAX_MONITORS_PER_ACCOUNT, MAX_CONTACTS_PER_ACCOUNT), and, when
 * `whenInactive` is given, an active subscription (refused with that message).
 */
export interface CreateGate {
  readonly limit: number;
  readonly whenInactive?: string;
}

/**
 * The account row, locked until the transaction `m` ends against every other gated write of the
 * same account, on any replica: on PostgreSQL `FOR NO KEY UPDATE` (it queues gated writes and
 * subscription changes, yet not the inserts that merely reference the account); on SQLite the
 * transaction already holds the database's write lock (`BEGIN IMMEDIATE`, database.ts).
 */
export function lockAccount(m: EntityManager, dialect: Dialect, accountId: string): Promise<AccountEntity | null> {
  return m.findOne(AccountEntity, {
    where: { id: accountId },
    ...(dialect === 'postgres' ? { lock: { mode: 'for_no_key_update' as const } } : {}),
  });
}

/** 402 when the account's subscription is not active (a gated write, inside its transaction). */
export function assertSubscriptionActive(account: AccountEntity | null, message: string): void {
  if (account !== null && account.subscriptionStatus !== 'active') {
    throw new AppError('SUBSCRIPTION_NOT_ACTIVE', message);
  }
}

/**
 * Inside the transaction that inserts one more `what`: locks the account, then refuses with 402
 * (inactive subscription, when the gate asks) or 403 QUOTA_EXCEEDED (the account already has
 * `limit`, as `count` finds them under the lock). Two creates racing for the last place are
 * serialised by the lock, so exactly one gets it.
 */
export async function passCreateGate(
  m: EntityManager,
  dialect: Dialect,
  accountId: string,
  what: 'monitors' | 'contacts',
  count: (m: EntityManager) => Promise<number>,
  gate: CreateGate,
): Promise<void> {
  const account = await lockAccount(m, dialect, accountId);
  if (gate.whenInactive !== undefined) assertSubscriptionActive(account, gate.whenInactive);
  if ((await count(m)) >= gate.limit) {
    throw new AppError(
      'QUOTA_EXCEEDED',
      `This account has reached its quota of ${gate.limit} ${what}; delete some before creating more.`,
    );
  }
}
