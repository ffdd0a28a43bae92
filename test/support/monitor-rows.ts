import type { DataSource } from 'typeorm';
import { MonitorEntity } from '../../apps/coordinator/src/monitors/monitor.entity.js';

/** A pending https monitor row written straight to the database, for repository-level tests. */
export async function insertMonitorRow(ds: DataSource, id: string, accountId: string, nowS: number): Promise<void> {
  await ds.manager.insert(MonitorEntity, {
    id,
    accountId,
    name: id,
    active: true,
    checkInterval: 60,
    timeout: 30,
    failThreshold: 2,
    regions: ['eu-west-1', 'us-east-1'],
    monitorType: 'https',
    settings: { url: 'https://example.com/' },
    lastStatus: 'pending',
    lastStatusChange: nowS,
    createdAt: nowS,
    updatedAt: nowS,
  });
}
