// Nest's logger class is decorated: the metadata polyfill must be there before it loads.
import 'reflect-metadata';
import type { LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
// The logger alone, not @nestjs/common's index (rxjs and every decorator): an app can log with
// it before the rest of Nest is loaded.
import { ConsoleLogger } from '@nestjs/common/services/console-logger.service.js';

/** The values of LOG_LEVEL. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The values of LOG_FORMAT: plain lines, or one JSON object a line. */
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const NEST_LEVELS: { readonly [K in LogLevel]: NestLogLevel[] } = {
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  info: ['fatal', 'error', 'warn', 'log'],
  warn: ['fatal', 'error', 'warn'],
  error: ['fatal', 'error'],
};

/** Nest's own boot chatter (every module and route), shown only at LOG_LEVEL=debug. */
const FRAMEWORK_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory']);

/**
 * The `level` of a JSON line: LOG_LEVEL's words, so a line's level is the LOG_LEVEL that shows
 * it. Nest's `log` is `info`; `verbose` (shown with debug) is `debug`; `fatal` stays, the word
 * log pipelines know for it.
 */
const JSON_LEVELS: { readonly [K in NestLogLevel]: LogLevel | 'fatal' } = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'debug',
};

class LevelLogger extends ConsoleLogger {
  constructor(
    private readonly showFrameworkLogs: boolean,
    json: boolean,
    colors: boolean,
    logLevels: NestLogLevel[],
  ) {
    super({ json, colors, logLevels });
  }

  protected override getJsonLogObject(
    message: unknown,
    options: Parameters<ConsoleLogger['getJsonLogObject']>[1],
  ): ReturnType<ConsoleLogger['getJsonLogObject']> {
    const record = super.getJsonLogObject(message, options);
    // Nest types `level` as its own words; the line carries LOG_LEVEL's.
    return { ...record, level: JSON_LEVELS[record.level] as NestLogLevel };
  }

  override log(message: unknown, ...rest: unknown[]): void {
    const context = rest.at(-1);
    if (!this.showFrameworkLogs && typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context)) return;
    super.log(message, ...rest);
  }
}

export interface LevelLoggerOptions {
  /** One JSON object a line (LOG_FORMAT=json): never coloured. */
  json?: boolean;
  /** Whether stdout is a terminal (default: `process.stdout.isTTY`); text is coloured only there. */
  isTTY?: boolean;
}

/**
 * A Nest logger that prints what LOG_LEVEL asks for. Text is coloured only on a terminal (and not
 * with NO_COLOR): a file or a pipe gets plain lines.
 */
export function createLevelLogger(level: LogLevel, options: LevelLoggerOptions = {}): LoggerService {
  const json = options.json ?? false;
  const tty = options.isTTY ?? process.stdout.isTTY === true;
  const colors = !json && tty && !process.env['NO_COLOR'];
  return new LevelLogger(level === 'debug', json, colors, NEST_LEVELS[level]);
}
