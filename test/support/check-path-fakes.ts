import type { RegionId } from '#contracts';
import type { PartitionManager } from '../../apps/coordinator/src/cluster/partition-manager.js';
import { MonitorEntity } from '../../apps/coordinator/src/monitors/monitor.entity.js';
import type { MonitorsRepository } from '../../apps/coordinator/src/monitors/monitors.repository.js';
import { MonitorRoster } from '../../apps/coordinator/src/scheduling/monitor-roster.js';

/**
 * Fakes for the unit specs of the check path's stages: the collaborators at the edge of a
 * stage (database, partition leases), never the stage under test.
 */

/** A monitor as the repository loads it; `id` is 24 hex. */
export function monitorEntity(id: string, overrides: Partial<MonitorEntity> = {}): MonitorEntity {
  return Object.assign(new MonitorEntity(), {
    id,
    accountId: 'a'.repeat(24),
    name: `monitor ${id}`,
    active: true,
    checkInterval: 60,
    timeout: 10,
    failThreshold: 2,
    regions: ['eu-west-1', 'us-east-1'] as RegionId[],
    monitorType: 'https',
    settings: { url: 'https://example.test/health' },
    lastStatus: 'pending',
    lastStatusChange: 1_000,
    lastCheckedAt: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    ...overrides,
  });
}

/** Partition leases: this replica owns a monitor unless it is in `lost`; `fence` answers `fenceAnswer`. */
export class FakePartitions {
  readonly lost = new Set<string>();
  generation = 1;
  fenceAnswer = true;
  readonly fenced: { monitorId: string; generation: number }[] = [];
  ownsMonitor(monitorId: string): boolean {
    return !this.lost.has(monitorId);
  }
  generationOf(): number {
    return this.generation;
  }
  fence(_m: unknown, monitorId: string, generation: number): Promise<boolean> {
    this.fenced.push({ monitorId, generation });
    return Promise.resolve(this.fenceAnswer);
  }
  asManager(): PartitionManager {
    return this as unknown as PartitionManager;
  }
}

/** The monitors table, as the roster reads it. */
export class FakeMonitorsTable {
  readonly rows = new Map<string, MonitorEntity>();
  put(...monitors: MonitorEntity[]): void {
    for (const m of monitors) this.rows.set(m.id, m);
  }
  async *pagesOfAll(): AsyncGenerator<MonitorEntity[]> {
    yield [...this.rows.values()].map((m) => ({ ...m }));
  }
  /** The versions in pages of `pageSize` in id order; `betweenPages` runs after each page is read. */
  pageSize = 2;
  betweenPages: () => void = () => undefined;
  async *versionPages(): AsyncGenerator<Map<string, number>> {
    const rows = [...this.rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (let i = 0; i < rows.length; i += this.pageSize) {
      yield new Map(rows.slice(i, i + this.pageSize).map(([id, m]) => [id, m.updatedAt]));
      await Promise.resolve();
      this.betweenPages();
    }
  }
  findById(id: string): Promise<MonitorEntity | null> {
    const row = this.rows.get(id);
    return Promise.resolve(row ? { ...row } : null);
  }
  findByIds(ids: readonly string[]): Promise<MonitorEntity[]> {
    return Promise.resolve(ids.flatMap((id) => (this.rows.has(id) ? [{ ...this.rows.get(id)! }] : [])));
  }
  asRepository(): MonitorsRepository {
    return this as unknown as MonitorsRepository;
  }
}

/** A real roster over fake leases and a fake table, with `monitors` tracked. */
export function rosterWith(...monitors: MonitorEntity[]): {
  roster: MonitorRoster;
  partitions: FakePartitions;
  table: FakeMonitorsTable;
} {
  const partitions = new FakePartitions();
  const table = new FakeMonitorsTable();
  table.put(...monitors);
  const roster = new MonitorRoster(table.asRepository(), partitions.asManager());
  for (const monitor of monitors) roster.apply({ kind: 'saved', monitor: { ...monitor } });
  return { roster, partitions, table };
}
