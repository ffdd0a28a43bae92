import 'reflect-metadata';
import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AgentModule } from './agent.module.js';
import type { AgentConfig } from './config.js';

export async function createAgentApp(
  config: AgentConfig,
  logger?: LoggerService | false,
): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    AgentModule.forRoot(config),
    new FastifyAdapter({ logger: false }),
    { logger: logger ?? undefined, abortOnError: false },
  );
  await app.init();
  return app;
}
