import 'reflect-metadata';
import type { LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
// The logger alone, not @nestjs/common's index (rxjs and every decorator, ~0.2 s): main.ts logs
// with it before the rest of Nest is loaded.
import { ConsoleLogger } from '@nestjs/common/services/console-logger.service.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { systemClock, type Clock, type NatsLink } from '#runtime';
import type { CoordinatorConfig, LogLevel } from './config.js';
import { NatsLinkModule } from './probing/nats-connection.js';

const NEST_LEVELS: { readonly [K in LogLevel]: NestLogLevel[] } = {
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  info: ['fatal', 'error', 'warn', 'log'],
  warn: ['fatal', 'error', 'warn'],
  error: ['fatal', 'error'],
};

/** Nest's own boot chatter (every module and route), shown only at LOG_LEVEL=debug. */
const FRAMEWORK_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

class PicketLogger extends ConsoleLogger {
  constructor(
    private readonly showFrameworkLogs: boolean,
    json: boolean,
    logLevels: NestLogLevel[],
  ) {
    super({ json, logLevels });
  }

  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    if (!this.showFrameworkLogs && typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context)) return;
    super.log(message, ...rest);
  }
}

export function createLogger(config: CoordinatorConfig): LoggerService {
  return new PicketLogger(config.LOG_LEVEL === 'debug', config.LOG_FORMAT === 'json', NEST_LEVELS[config.LOG_LEVEL]);
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
    createHttpAdapter(config.tls),
    { bodyParser: false, logger, abortOnError: false },
  );
  configureHttp(app);
  // Heartbeats and monitor notices reach their controllers through Nest's microservice layer.
  connectNatsMicroservice(app, config);
  await app.init();
  await app.startAllMicroservices();
  return app;
}
