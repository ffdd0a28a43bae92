import type { DataSource } from 'typeorm';
import { openDataSource, parseDatabaseUrl } from '../../apps/coordinator/src/database/data-source.js';
import { ENTITIES } from '../../apps/coordinator/src/entities.js';

/** Connections a test opens to one database, as separate processes would; `closeAll` after each test. */
export class OpenedDataSources {
  readonly all: DataSource[] = [];

  async open(databaseUrl: string): Promise<DataSource> {
    const ds = await openDataSource(parseDatabaseUrl(databaseUrl)!, ENTITIES);
    this.all.push(ds);
    return ds;
  }

  async closeAll(): Promise<void> {
    for (const ds of this.all.splice(0)) if (ds.isInitialized) await ds.destroy();
  }
}
