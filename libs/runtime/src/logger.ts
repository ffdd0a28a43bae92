// Nest's logger class is decorated: the metadata polyfill must be there before it loads.
import 'reflect-metadata';
import type { LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
// The logger alone, not @nestjs/common's index (rxjs and every decorator): an app can log with
// it before the rest of Nest is loaded.
import { ConsoleLogger } from '@nestjs/common/services/console-logger.service.js';

/** The values of LOG_LEVEL. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const NEST_LEVELS: { readonly [K in LogLevel]: NestLogLevel[] } = {
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  info: ['fatal', 'error', 'warn', 'log'],
  warn: ['fatal', 'error', 'warn'],
  error: ['fatal', 'error'],
};

/** Nest's own boot chatter (every module and route), shown only at LOG_LEVEL=debug. */
const FRAMEWORK_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

class LevelLogger extends ConsoleLogger {
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

/** A Nest logger that prints what LOG_LEVEL asks for (`json`: one JSON object a line). */
export function createLevelLogger(level: LogLevel, options: { json?: boolean } = {}): LoggerService {
  return new LevelLogger(level === 'debug', options.json ?? false, NEST_LEVELS[level]);
}
