import type BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSource, type DataSourceOptions, type MixedList } from 'typeorm';
import { AgentEntity } from '../agents/agent.entity.js';
import { AccountEntity } from '../auth/account.entity.js';
import { ApiKeyEntity } from '../auth/api-key.entity.js';
import { CoordinatorMemberEntity, PartitionLeaseEntity } from '../cluster/cluster.entity.js';
import { ContactEntity } from '../contacts/contact.entity.js';
import { CheckResultEntity, CheckRollupEntity } from '../history/check-result.entity.js';
import { IncidentEntity } from '../incidents/incident.entity.js';
import { MonitorContactEntity, MonitorEntity } from '../monitors/monitor.entity.js';
import {
  CertificateAlertEntity,
  NotificationAttemptEntity,
  NotificationEntity,
  ServerSettingEntity,
} from '../notify/notification.entity.js';
import { RateLimitEntity } from '../rate-limit/rate-limit.entity.js';
import { StatusPageEntity } from '../status-pages/status-page.entity.js';
import { POSTGRES_MIGRATIONS } from './migrations/postgres/index.js';
import { SQLITE_MIGRATIONS } from './migrations/sqlite/index.js';

export type Dialect = 'sqlite' | 'postgres';

/** A Unicode-aware LOWER registered on every SQLite connection; for queries only, never in the schema. */
export const SQLITE_UNICODE_LOWER = 'picket_lower';

import type { DatabaseTarget } from './database-url.js';

export { parseDatabaseUrl, type DatabaseTarget } from './database-url.js';

export const ENTITIES = [
  AccountEntity,
  ApiKeyEntity,
  ContactEntity,
  MonitorEntity,
  MonitorContactEntity,
  CheckResultEntity,
  CheckRollupEntity,
  IncidentEntity,
  NotificationEntity,
  NotificationAttemptEntity,
  CertificateAlertEntity,
  ServerSettingEntity,
  PartitionLeaseEntity,
  CoordinatorMemberEntity,
  AgentEntity,
  RateLimitEntity,
  StatusPageEntity,
];

/** `sqlite:<path>` (a file path, or `:memory:`) or `postgres://…` / `postgresql://…`. */
export function dataSourceOptions(target: DatabaseTarget): DataSourceOptions {
  const common = {
    entities: ENTITIES,
    migrationsTableName: 'picket_migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
  } as const;
  if (target.dialect === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      database: target.path,
      enableWAL: target.path !== ':memory:',
      prepareDatabase: (db: Pick<BetterSqlite3.Database, 'pragma' | 'function'>) => {
        db.pragma('busy_timeout = 2000');
        db.pragma('foreign_keys = ON');
        db.pragma('synchronous = NORMAL');
        // SQLite's LOWER folds ASCII only; Database.lower() uses this for Unicode, as PostgreSQL does.
        db.function(SQLITE_UNICODE_LOWER, { deterministic: true }, (value: unknown) =>
          typeof value === 'string' ? value.toLowerCase() : value,
        );
      },
      migrations: SQLITE_MIGRATIONS as MixedList<string | (new () => object)>,
    };
  }
  return {
    ...common,
    type: 'postgres',
    url: target.url,
    applicationName: 'picket',
    extra: { max: 10, connectionTimeoutMillis: 5000 },
    migrations: POSTGRES_MIGRATIONS as MixedList<string | (new () => object)>,
  };
}

/** Connects (creating the SQLite file's folder if needed); does not migrate. */
export async function openDataSource(target: DatabaseTarget): Promise<DataSource> {
  if (target.dialect === 'sqlite' && target.path !== ':memory:') {
    mkdirSync(dirname(resolve(target.path)), { recursive: true });
  }
  const dataSource = new DataSource(dataSourceOptions(target));
  await dataSource.initialize();
  return dataSource;
}
