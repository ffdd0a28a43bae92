import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { OpenedDataSources } from '../../../../test/support/data-sources.js';
import { testDatabases, type TestDatabase } from '../../../../test/support/databases.js';
import { insertMonitorRow } from '../../../../test/support/monitor-rows.js';
import { undoThrough } from '../../../../test/support/migrations.js';
import { AccountEntity } from '../auth/account.entity.js';
import { Database } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { MonitorEntity } from './monitor.entity.js';
import { MonitorsRepository } from './monitors.repository.js';

/**
 * Each account's monitor count, kept by triggers whoever writes
 * (docs/decisions/0035-monitor-counts-and-page-from-either-end.md): the migration on a populated
 * table, inserts and deletes by the application and by another connection, an account's deletion.
 */

const NOW_S = 1_780_000_000;
const A = 'a'.repeat(24);
const B = 'b'.repeat(24);
const C = 'c'.repeat(24);
const id = (n: number) => n.toString(16).padStart(24, '0');

describe.each(testDatabases())('monitor counts on $name', (kind) => {
  let db: TestDatabase;
  const sources = new OpenedDataSources();
  beforeAll(() => Logger.overrideLogger(false));

  async function connect(): Promise<{ ds: DataSource; repository: MonitorsRepository }> {
    const ds = await sources.open(db.url);
    return { ds, repository: new MonitorsRepository(new Database(ds)) };
  }

  /** What the counter says and what counting the table says, per account. */
  async function both(ds: DataSource, repository: MonitorsRepository) {
    const kept: Record<string, number> = {};
    const counted: Record<string, number> = {};
    for (const account of [A, B, C]) {
      kept[account] = await repository.countOfAccount(ds.manager, account);
      counted[account] = await ds.manager.countBy(MonitorEntity, { accountId: account });
    }
    return { kept, counted };
  }

  async function accounts(ds: DataSource) {
    for (const account of [A, B, C]) {
      await ds.manager.insert(AccountEntity, {
        id: account,
        name: account,
        subscriptionStatus: 'active',
        createdAt: NOW_S,
      });
    }
  }

  afterEach(async () => {
    await sources.closeAll();
    await db.drop();
  });

  it('the migration counts the monitors already there, and reverting it leaves monitors writable', async () => {
    db = await kind.create();
    const { ds, repository } = await connect();
    await migrate(ds);
    await undoThrough(ds, 'MonitorCounts1766200000000');
    await accounts(ds);
    for (let n = 1; n <= 37; n++) await insertMonitorRow(ds, id(n), n % 3 === 0 ? B : A, NOW_S);

    expect((await migrate(ds))[0]).toBe('MonitorCounts1766200000000');
    const after = await both(ds, repository);
    expect(after.kept).toEqual({ [A]: 25, [B]: 12, [C]: 0 });
    expect(after.kept).toEqual(after.counted);

    await undoThrough(ds, 'MonitorCounts1766200000000');
    await insertMonitorRow(ds, id(100), C, NOW_S);
    await ds.manager.delete(MonitorEntity, { id: id(1) });
    expect(await ds.manager.countBy(MonitorEntity, {})).toBe(37);
  });

  it('follows inserts, deletes (also from another connection), a moved monitor, and a deleted account', async () => {
    db = await kind.create();
    const { ds, repository } = await connect();
    await migrate(ds);
    await accounts(ds);
    for (let n = 1; n <= 10; n++) await insertMonitorRow(ds, id(n), n <= 6 ? A : B, NOW_S);
    expect((await both(ds, repository)).kept).toEqual({ [A]: 6, [B]: 4, [C]: 0 });

    // Through the repository: a delete, and a delete of a monitor of another account (nothing).
    expect(await repository.delete(A, id(1))).toBe(true);
    expect(await repository.delete(A, id(7))).toBe(false);
    // Another process on the same database (the CLI, another replica), in one statement.
    const other = await connect();
    await other.ds.manager.delete(MonitorEntity, { accountId: B, id: id(8) });
    await other.ds.query(
      kind.name === 'postgres'
        ? `UPDATE "monitors" SET "account_id" = $1 WHERE "id" = $2`
        : `UPDATE "monitors" SET "account_id" = ? WHERE "id" = ?`,
      [C, id(9)],
    );
    // An update that leaves the account alone changes nothing.
    await other.ds.manager.update(MonitorEntity, { id: id(2) }, { active: false, name: 'renamed' });
    let now = await both(ds, repository);
    expect(now.kept).toEqual({ [A]: 5, [B]: 2, [C]: 1 });
    expect(now.kept).toEqual(now.counted);

    // A rolled-back insert leaves no trace.
    await expect(
      ds.transaction(async (m) => {
        await m.insert(MonitorEntity, { ...(await m.findOneByOrFail(MonitorEntity, { id: id(2) })), id: id(50) });
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');

    // Deleting the account takes its monitors and its counter with it.
    await ds.manager.delete(AccountEntity, { id: B });
    now = await both(ds, repository);
    expect(now.kept).toEqual({ [A]: 5, [B]: 0, [C]: 1 });
    expect(now.kept).toEqual(now.counted);
    const rows: unknown[] = await ds.query(`SELECT "account_id" FROM "monitor_counts" ORDER BY "account_id"`);
    expect(rows).toEqual([{ account_id: A }, { account_id: C }]);
  });
});
