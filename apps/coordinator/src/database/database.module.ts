import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type BeforeApplicationShutdown,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { openDataSource, type DatabaseTarget, type Entities } from './data-source.js';
import { Database, DATA_SOURCE } from './database.js';
import { migrate } from './migrate.js';
import { WalCheckpointer } from './wal-checkpointer.js';

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  constructor(@Inject(DATA_SOURCE) private readonly dataSource: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/**
 * The embedded database's write-ahead log checkpointed from a worker thread while the server
 * runs (docs/decisions/0047-wal-checkpoints-off-the-event-loop.md). Stopped before the connection
 * closes, so that the connection, the last one open, folds the log into the file as it closes.
 */
@Injectable()
export class WalCheckpointing implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('WalCheckpointer');
  /** The worker, when it started (SQLite on a file, and the worker could open it). */
  checkpointer: WalCheckpointer | null = null;

  constructor(private readonly db: Database) {}

  async onModuleInit(): Promise<void> {
    if (this.db.dialect !== 'sqlite') return;
    const main = this.db.sqliteConnection();
    if (main.memory) return;
    try {
      this.checkpointer = await WalCheckpointer.start(main, {
        onFailure: (error) => this.logger.warn(`checkpoint of the write-ahead log failed: ${error}`),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn(`write-ahead log checkpoints stay on the main thread: ${message}`);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.checkpointer?.stop();
  }
}

export interface DatabaseModuleOptions {
  /** Checkpoint SQLite's write-ahead log from a worker thread (the server; not short commands). */
  walCheckpointWorker?: boolean;
}

/** The database connection, migrated to the current schema before anything uses it; `entities` from the composition root. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(target: DatabaseTarget, entities: Entities, options: DatabaseModuleOptions = {}): DynamicModule {
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
        ...(options.walCheckpointWorker ? [WalCheckpointing] : []),
      ],
      exports: [Database, DATA_SOURCE],
    };
  }
}
