import { Logger, type Provider } from '@nestjs/common';
import { connectNats, type NatsConnection } from '#runtime';
import { CoordinatorConfig } from '../config.js';

/** The coordinator's one NATS connection (probe requests, heartbeats, replica notices); null without NATS_URL. */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

export const natsConnectionProvider: Provider = {
  provide: NATS_CONNECTION,
  inject: [CoordinatorConfig],
  useFactory: async (config: CoordinatorConfig): Promise<NatsConnection | null> => {
    if (!config.NATS_URL) return null;
    const logger = new Logger('NATS');
    return connectNats(config.NATS_URL, 'picket-coordinator', {
      log: (m) => {
        logger.log(m);
      },
      warn: (m) => {
        logger.warn(m);
      },
    });
  },
};
