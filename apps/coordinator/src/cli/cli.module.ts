import { Module, type DynamicModule } from '@nestjs/common';
import { systemClock } from '#runtime';
import { AgentsModule } from '../agents/agents.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { CoordinatorConfig } from '../config.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { CoreModule } from '../core.module.js';
import { DatabaseModule } from '../database/database.module.js';
import { ENTITIES } from '../entities.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { PrivateRegionsRepository } from '../regions/private-regions.repository.js';
import { UsersModule } from '../users/users.module.js';

/** What the admin CLI needs: the same database (migrated on open) and services as the server. */
@Module({})
export class CliModule {
  static forRoot(config: CoordinatorConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        CoreModule.forRoot(config, systemClock),
        DatabaseModule.forRoot(config.database, ENTITIES),
        SecretsModule,
        AuthModule,
        ContactsModule,
        AgentsModule,
        UsersModule,
      ],
      // The private regions' table alone (nats agent-creds), not the regions' controllers.
      providers: [PrivateRegionsRepository],
    };
  }
}
