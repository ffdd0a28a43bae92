import { Global, Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { openDataSource, type DatabaseTarget, type Entities } from './data-source.js';
import { Database, DATA_SOURCE } from './database.js';
import { migrate } from './migrate.js';

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** The database connection, migrated to the current schema before anything uses it; `entities` from the composition root. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(target: DatabaseTarget, entities: Entities): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DATA_SOURCE,
          useFactory: async () => {
            const dataSource = await openDataSource(target, entities);
            try {
              await migrate(dataSource);
            } catch (error) {
              await dataSource.destroy();
              throw error;
            }
            return dataSource;
          },
        },
        Database,
        DataSourceCloser,
      ],
      exports: [Database, DATA_SOURCE],
    };
  }
}
