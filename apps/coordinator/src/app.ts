import 'reflect-metadata';
import { ConsoleLogger, type LoggerService, type LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { systemClock, type Clock } from '#runtime';
import type { CoordinatorConfig, LogLevel } from './config.js';
import { CoordinatorModule } from './coordinator.module.js';
import { configureHttp, createHttpAdapter } from './http/http-setup.js';

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
}

/** Builds and initialises the coordinator (database migrated, routes registered), not yet listening. */
export async function createCoordinatorApp(
  config: CoordinatorConfig,
  options: AppOptions = {},
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    CoordinatorModule.forRoot(config, options.clock ?? systemClock),
    createHttpAdapter(config.tls),
    { bodyParser: false, logger: options.logger ?? createLogger(config), abortOnError: false },
  );
  configureHttp(app);
  await app.init();
  return app;
}
