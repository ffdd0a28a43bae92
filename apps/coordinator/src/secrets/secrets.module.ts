import { Global, Logger, Module } from '@nestjs/common';
import { CoordinatorConfig } from '../config.js';
import { SecretBox } from './secret-box.js';
import { secretBoxFor } from './secrets-keys.js';

/** The keys that seal secrets at rest, chosen once at boot (docs/decisions/0020-secrets-at-rest.md). */
@Global()
@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [CoordinatorConfig],
      useFactory: (config: CoordinatorConfig) => {
        const logger = new Logger('Secrets');
        return secretBoxFor(config, (message) => logger.log(message));
      },
    },
  ],
  exports: [SecretBox],
})
export class SecretsModule {}
