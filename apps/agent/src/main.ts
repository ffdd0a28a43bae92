import { Logger } from '@nestjs/common';
import { ConfigError } from '#runtime';
import { createAgentApp } from './app.js';
import { loadAgentConfig } from './config.js';

async function main(): Promise<void> {
  const config = loadAgentConfig(process.env);
  const app = await createAgentApp(config);
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
