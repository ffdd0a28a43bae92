import 'reflect-metadata';
import type { LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLevelLogger, systemClock, type Clock, type NatsLink } from '#runtime';
import type { CoordinatorConfig } from './config.js';
import { NatsLinkModule } from './probing/nats-connection.js';

/** The coordinator's logger: LOG_LEVEL, and LOG_FORMAT=json for one JSON object a line. */
export function createLogger(config: CoordinatorConfig): LoggerService {
  return createLevelLogger(config.LOG_LEVEL, { json: config.LOG_FORMAT === 'json' });
}

export interface AppOptions {
  clock?: Clock;
  logger?: LoggerService | false;
  /**
   * The NATS link main.ts started before loading Nest (null: no NATS_URL). Absent, the app
   * starts its own when NATS_URL is set (in-process tests).
   */
  natsLink?: NatsLink | null;
}

/**
 * Builds and initialises the coordinator (database migrated, routes registered), not yet listening.
 *
 * Nest and the coordinator's modules are imported here, on demand, not at the top of this file:
 * importing them takes about a second, and main.ts (which imports this file for createLogger)
 * must be able to log where it connects before that.
 */
export async function createCoordinatorApp(
  config: CoordinatorConfig,
  options: AppOptions = {},
): Promise<NestFastifyApplication> {
  const [{ NestFactory }, { CoordinatorModule }, { configureHttp, createHttpAdapter }] = await Promise.all([
    import('@nestjs/core'),
    import('./coordinator.module.js'),
    import('./http/http-setup.js'),
  ]);
  const { connectNatsMicroservice } = await import('./probing/nats-routes.js');
  const logger = options.logger ?? createLogger(config);
  const root = CoordinatorModule.forRoot(config, options.clock ?? systemClock);
  // NATS_LINK is global; provided beside the root's own imports so CoordinatorModule stays the root.
  const natsLink = NatsLinkModule.forRoot({ link: options.natsLink, logger });
  const app = await NestFactory.create<NestFastifyApplication>(
    { ...root, imports: [...(root.imports ?? []), natsLink] },
    createHttpAdapter({
      tls: config.tls,
      limits: {
        headersSeconds: config.HTTP_HEADERS_TIMEOUT_SECONDS,
        requestSeconds: config.HTTP_REQUEST_TIMEOUT_SECONDS,
      },
    }),
    { bodyParser: false, logger, abortOnError: false },
  );
  configureHttp(app, { corsOrigins: config.corsOrigins });
  // Heartbeats and monitor notices reach their controllers through Nest's microservice layer.
  connectNatsMicroservice(app, config);
  try {
    await app.init();
  } catch (error) {
    // A refusal at boot (a wrong SECRETS_KEY, docs/decisions/0020-secrets-at-rest.md) leaves nothing running.
    await app.close().catch(() => undefined);
    throw error;
  }
  await app.startAllMicroservices();
  return app;
}
