import { Logger } from '@nestjs/common';
import { ConfigError, createLevelLogger } from '#runtime';
import { loadAgentConfig } from './config.js';
import { createAgentNatsLink } from './nats-link.js';

async function main(): Promise<void> {
  const config = loadAgentConfig(process.env);
  // Every Logger, the NATS link's before Nest is loaded included, prints what LOG_LEVEL asks for.
  const logger = createLevelLogger(config.LOG_LEVEL);
  Logger.overrideLogger(logger);
  const natsLink = createAgentNatsLink(config, (message) => {
    new Logger('NATS').error(message);
    process.exit(1);
  });
  // Connecting starts before Nest and the probers are loaded (most of a second): the first line
  // says where the agent connects, and the HTTP server comes up whether NATS answers or not.
  natsLink.start();
  const { createAgentApp } = await import('./app.js');
  const app = await createAgentApp(config, { natsLink, logger });
  app.enableShutdownHooks();
  await app.listen(config.AGENT_HTTP_PORT, config.AGENT_HTTP_HOST);
  new Logger('Agent').log(
    `agent ${config.AGENT_ID} up for ${config.AGENT_REGIONS.join(', ')}; health on http://${config.AGENT_HTTP_HOST}:${config.AGENT_HTTP_PORT}/healthz`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `picket agent: ${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
