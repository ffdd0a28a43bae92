import { Logger } from '@nestjs/common';
import { NatsLink, natsSecurityOf } from '#runtime';
import type { AgentConfig } from './config.js';

/** The agent's one NATS link (probe work, replies, heartbeats); never null: NATS_URL is required. */
export const AGENT_NATS_LINK = Symbol('AGENT_NATS_LINK');

/**
 * The agent's link, not started. main.ts starts it before Nest is loaded, so the first log line
 * says at once where the agent connects; `onGiveUp` gets the message when the first connection
 * failed for NATS_CONNECT_TIMEOUT_SECONDS.
 */
export function createAgentNatsLink(config: AgentConfig, onGiveUp: (message: string) => void): NatsLink {
  const logger = new Logger('NATS');
  return new NatsLink(
    config.NATS_URL,
    `picket-agent-${config.AGENT_ID}`,
    {
      log: (m) => logger.log(m),
      warn: (m) => logger.warn(m),
      error: (m) => logger.error(m),
    },
    { connectTimeoutSeconds: config.NATS_CONNECT_TIMEOUT_SECONDS, onGiveUp, security: natsSecurityOf(config) },
  );
}
