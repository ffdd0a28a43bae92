import type { DataSource } from 'typeorm';
import { exclusively } from '../database/migrate.js';
import { ServerSettingEntity } from './notification.entity.js';

const VAPID_KEY = 'vapid_keys';

export interface StoredVapidKeys {
  publicKey: string;
  privateKey: string;
}

/**
 * The deployment's VAPID key pair for Web Push: created on first start and kept in the
 * database, so every coordinator replica signs with the same key and browser subscriptions
 * stay valid across restarts.
 */
export async function loadOrCreateVapidKeys(
  dataSource: DataSource,
  generate: () => StoredVapidKeys,
): Promise<StoredVapidKeys> {
  return exclusively(dataSource, async () => {
    const stored = await dataSource.manager.findOneBy(ServerSettingEntity, { key: VAPID_KEY });
    if (stored) return JSON.parse(stored.value) as StoredVapidKeys;
    // Another process may have stored a pair since the read (SQLite: exclusively only retries a
    // busy database): the first pair stored wins, and everyone reads it back.
    await dataSource
      .createQueryBuilder()
      .insert()
      .into(ServerSettingEntity)
      .values({ key: VAPID_KEY, value: JSON.stringify(generate()) })
      .orIgnore()
      .execute();
    const kept = await dataSource.manager.findOneByOrFail(ServerSettingEntity, { key: VAPID_KEY });
    return JSON.parse(kept.value) as StoredVapidKeys;
  });
}
