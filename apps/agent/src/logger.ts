import type { LoggerService } from '@nestjs/common';
import { createLevelLogger } from '#runtime';
import type { AgentConfig } from './config.js';

/** The agent's logger: LOG_LEVEL, and LOG_FORMAT=json for one JSON object a line. Loads no more of Nest than its logger. */
export function createAgentLogger(config: Pick<AgentConfig, 'LOG_LEVEL' | 'LOG_FORMAT'>): LoggerService {
  return createLevelLogger(config.LOG_LEVEL, { json: config.LOG_FORMAT === 'json' });
}
