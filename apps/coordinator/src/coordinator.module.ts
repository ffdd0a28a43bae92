import { Module, type DynamicModule } from '@nestjs/common';
import type { Clock } from '#runtime';
import { AccountModule } from './account/account.module.js';
import { AuthModule } from './auth/auth.module.js';
import { BootstrapService } from './auth/bootstrap.service.js';
import { CoordinatorConfig } from './config.js';
import { ContactsModule } from './contacts/contacts.module.js';
import { CoreModule } from './core.module.js';
import { DatabaseModule } from './database/database.module.js';
import { ENTITIES } from './entities.js';
import { HealthModule, StoppingMarker } from './health/health.module.js';
import { HistoryModule } from './history/history.module.js';
import { IncidentsModule } from './incidents/incidents.module.js';
import { LiveModule } from './live/live.module.js';
import { MaintenanceModule } from './maintenance/maintenance.module.js';
import { MonitorsModule } from './monitors/monitors.module.js';
import { MonitorSummaryModule } from './summary/monitor-summary.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { HeartbeatsModule } from './heartbeats/heartbeats.module.js';
import { ProbingModule } from './probing/probing.module.js';
import { StatusPagesModule } from './status-pages/status-pages.module.js';
import { RegionsModule } from './regions/regions.module.js';
import { SecretsModule } from './secrets/secrets.module.js';
import { UsersModule } from './users/users.module.js';

/** The coordinator: REST API, state, scheduling, evaluation, incidents and notifications. */
@Module({})
export class CoordinatorModule {
  static forRoot(config: CoordinatorConfig, clock: Clock): DynamicModule {
    return {
      module: CoordinatorModule,
      imports: [
        CoreModule.forRoot(config, clock),
        DatabaseModule.forRoot(config.database, ENTITIES, { walCheckpointWorker: true }),
        SecretsModule,
        HealthModule,
        AuthModule,
        AccountModule,
        MonitorSummaryModule,
        MonitorsModule,
        ContactsModule,
        HistoryModule,
        IncidentsModule,
        OpenApiModule,
        ProbingModule,
        LiveModule,
        HeartbeatsModule,
        StatusPagesModule,
        UsersModule,
        MaintenanceModule,
        RegionsModule,
      ],
      providers: [BootstrapService, StoppingMarker],
    };
  }
}
