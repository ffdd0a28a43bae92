import 'reflect-metadata';
import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { drainConnectionsOnClose, type NatsLink } from '#runtime';
import type { NatsLinkServer } from '#runtime/nats-server';
import { AgentModule } from './agent.module.js';
import type { AgentConfig } from './config.js';
import { createAgentLogger } from './logger.js';
import { PROBE_SERVER } from './probe-routes.js';

export interface AgentAppOptions {
  /** Absent: createAgentLogger's. */
  logger?: LoggerService | false;
  /** The link main.ts already started; absent, the app makes its own (in-process tests). */
  natsLink?: NatsLink;
}

/**
 * Builds and initialises the agent, not yet listening on HTTP; its microservice (probe work over
 * NATS) is started and subscribes whenever the link connects: nothing waits for NATS.
 */
export async function createAgentApp(
  config: AgentConfig,
  options: AgentAppOptions = {},
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AgentModule.forRoot(config, undefined, options.natsLink),
    new FastifyAdapter({ logger: false }),
    { logger: options.logger ?? createAgentLogger(config), abortOnError: false },
  );
  drainConnectionsOnClose(app.getHttpAdapter().getInstance());
  app.connectMicroservice({ strategy: app.get<NatsLinkServer>(PROBE_SERVER) }, { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  return app;
}
