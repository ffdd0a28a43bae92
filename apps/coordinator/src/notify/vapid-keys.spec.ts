import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { OpenedDataSources } from '../../../../test/support/data-sources.js';
import { testDatabases, type TestDatabase } from '../../../../test/support/databases.js';
import { migrate } from '../database/migrate.js';
import { loadOrCreateVapidKeys } from './vapid-keys.js';

/** The deployment's VAPID pair: made once, whoever starts first, even two servers at once. */
describe.each(testDatabases())('VAPID keys on $name', (kind) => {
  let db: TestDatabase;
  const sources = new OpenedDataSources();
  beforeAll(() => Logger.overrideLogger(false));

  afterEach(async () => {
    await sources.closeAll();
    await db.drop();
  });

  async function connect(): Promise<DataSource> {
    const ds = await sources.open(db.url);
    return ds;
  }

  it('two processes starting together on an empty database end up with the same pair, kept afterwards', async () => {
    db = await kind.create();
    const [a, b] = [await connect(), await connect()];
    await migrate(a);
    const pair = (name: string) => () => ({ publicKey: `public-${name}`, privateKey: `private-${name}` });
    const [fromA, fromB] = await Promise.all([
      loadOrCreateVapidKeys(a, pair('a')),
      loadOrCreateVapidKeys(b, pair('b')),
    ]);
    expect(fromB).toEqual(fromA);
    expect(['public-a', 'public-b']).toContain(fromA.publicKey);
    await expect(loadOrCreateVapidKeys(await connect(), pair('c'))).resolves.toEqual(fromA);
  });
});
