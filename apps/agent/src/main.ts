import { Logger } from '@nestjs/common';
import { ConfigError, serverCommandLine } from '#runtime';
import { loadAgentConfig, needsEnrollment } from './config.js';
import { EnrollmentRefused } from './enrollment-refused.js';
import { createAgentLogger } from './logger.js';
import { createAgentNatsLink } from './nats-link.js';

const USAGE = [
  'usage: npm run agent [-- --help]',
  '       node dist/apps/agent/src/main.js [--help]',
  '',
  'Starts a Picket agent: it takes check requests for its regions from NATS, runs them and',
  'answers the coordinators, and serves /healthz, /readyz and /metrics. Runs until SIGTERM',
  '(it drains running checks first) or SIGINT.',
  '',
  'It takes no arguments: configuration comes from environment variables, validated at start',
  '(NATS_URL is required; AGENT_REGIONS, AGENT_ID, AGENT_PRIVATE_REGION, AGENT_ENROLL_TOKEN, ...). Each one is',
  'described in README.md, section "Configuration", "The agent".',
].join('\n');

async function main(): Promise<void> {
  const config = loadAgentConfig(process.env);
  // Every Logger, the NATS link's before Nest is loaded included, prints what LOG_LEVEL and LOG_FORMAT ask for.
  const logger = createAgentLogger(config);
  Logger.overrideLogger(logger);
  if (needsEnrollment(config)) {
    // Before anything connects: the link below authenticates with the credentials written here.
    const { enrollAgent } = await import('./enrollment.js');
    await enrollAgent(config, new Logger('Enrollment'));
  } else if (config.AGENT_ENROLL_TOKEN) {
    new Logger('Enrollment').log(`${config.NATS_CREDS_FILE} exists: enrolled before, AGENT_ENROLL_TOKEN not used`);
  }
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

const stop = serverCommandLine(process.argv.slice(2), USAGE, 'picket agent');
if (stop !== null) process.exitCode = stop;
else main().catch(failed);

function failed(error: unknown): void {
  process.stderr.write(
    `picket agent: ${error instanceof ConfigError || error instanceof EnrollmentRefused ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
