import type { DynamicModule, LoggerService } from '@nestjs/common';
import { NatsLink, natsSecurityOf } from '#runtime';
import { CoordinatorConfig } from '../config.js';

// Only types from @nestjs/common here: main.ts imports this file before Nest is loaded (see startNatsLink).

/**
 * The coordinator's one NATS link (probe requests, heartbeats, replica notices): a `NatsLink`,
 * or null without NATS_URL. It never blocks start-up; read `connected`, `state` and `lastError`
 * for readiness, and use `onConnected` for subscriptions.
 */
export const NATS_LINK = Symbol('NATS_LINK');

export interface NatsLinkSetup {
  logger: LoggerService;
  /** Called when the first connection failed for NATS_CONNECT_TIMEOUT_SECONDS (main exits). */
  onGiveUp(message: string): void;
}

/**
 * Creates the coordinator's link and starts connecting (in the background); null without NATS_URL.
 * main.ts calls this before Nest's modules are even loaded, so the first log line says at once
 * where the process is connecting.
 */
export function startNatsLink(config: CoordinatorConfig, setup: NatsLinkSetup): NatsLink | null {
  if (!config.NATS_URL) return null;
  const { logger } = setup;
  const link = new NatsLink(
    config.NATS_URL,
    'picket-coordinator',
    {
      log: (m) => {
        logger.log(m, 'NATS');
      },
      warn: (m) => {
        logger.warn(m, 'NATS');
      },
      error: (m) => {
        logger.error(m, 'NATS');
      },
    },
    {
      connectTimeoutSeconds: config.NATS_CONNECT_TIMEOUT_SECONDS,
      security: natsSecurityOf(config),
      onGiveUp: (message) => {
        setup.onGiveUp(message);
      },
    },
  );
  link.start();
  return link;
}

/** Where a link the module starts itself logs when the app was built with `logger: false` (tests). */
const SILENT: LoggerService = { log: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Provides NATS_LINK to every module (global: probing uses it, /readyz reads it). `link` is the
 * one main.ts already started (null: no NATS_URL); without one (in-process tests, tools) the
 * provider starts its own, whose give-up is only logged: there is no process of its own to end.
 */
export class NatsLinkModule {
  static forRoot(options: { link?: NatsLink | null; logger: LoggerService | false }): DynamicModule {
    return {
      module: NatsLinkModule,
      global: true,
      providers: [
        {
          provide: NATS_LINK,
          inject: [CoordinatorConfig],
          useFactory: (config: CoordinatorConfig): NatsLink | null => {
            if (options.link !== undefined) return options.link;
            const logger = options.logger === false ? SILENT : options.logger;
            return startNatsLink(config, {
              logger,
              onGiveUp: (message) => {
                logger.error(message, 'NATS');
              },
            });
          },
        },
      ],
      exports: [NATS_LINK],
    };
  }
}
