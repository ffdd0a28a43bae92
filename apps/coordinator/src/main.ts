import type { LoggerService } from '@nestjs/common';
import type { Server } from 'node:https';
import { ConfigError, serverCommandLine } from '#runtime';
import { createCoordinatorApp, createLogger } from './app.js';
import { loadCoordinatorConfig } from './config.js';
import { startNatsLink } from './probing/nats-connection.js';
import { loadTlsFiles } from './config/tls-files.js';

const USAGE = [
  'usage: npm start [-- --help]',
  '       node dist/apps/coordinator/src/main.js [--help]',
  '',
  'Starts the Picket coordinator: the REST API and public status pages, the check scheduler, and,',
  'without NATS_URL, the checks themselves (embedded mode). Runs until SIGTERM or SIGINT.',
  '',
  'It takes no arguments: configuration comes from environment variables, validated at start',
  '(DATABASE_URL, PORT, HOST, NATS_URL, LOG_LEVEL, LOG_FORMAT, ...). Each one is described in',
  'README.md, section "Configuration".',
  '',
  'Accounts, API keys and agents: npm run -s cli -- --help',
].join('\n');

async function main(): Promise<void> {
  const config = loadCoordinatorConfig(process.env);
  const logger = createLogger(config);
  // Connecting starts before Nest is loaded (a second or more): the first line says where to,
  // and a wrong NATS_URL is reported while the rest boots, never waited on in silence.
  const natsLink = startNatsLink(config, {
    logger,
    onGiveUp: (message) => {
      logger.error(message, 'NATS');
      process.exit(1);
    },
  });
  const app = await createCoordinatorApp(config, { logger, natsLink });
  // SIGTERM and SIGINT stop the process gracefully; SIGHUP is left to the TLS reload (Nest would treat it as a stop).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(config.PORT, config.HOST);
  if (config.TLS_CERT_FILE && config.TLS_KEY_FILE) {
    reloadTlsOnSighup(app.getHttpServer() as Server, config.TLS_CERT_FILE, config.TLS_KEY_FILE, logger);
  }
  const target = config.database;
  logger.log(
    `coordinator listening on ${config.TLS_CERT_FILE ? 'https' : 'http'}://${config.HOST}:${config.PORT} ` +
      `(database: ${target.dialect === 'sqlite' ? `SQLite ${target.path}` : 'PostgreSQL'})`,
    'Picket',
  );
}

/** SIGHUP: read the certificate and key again and use them for new connections; a bad pair keeps the old one. */
function reloadTlsOnSighup(server: Server, certFile: string, keyFile: string, logger: LoggerService): void {
  process.on('SIGHUP', () => {
    try {
      server.setSecureContext(loadTlsFiles(certFile, keyFile));
      logger.log(`certificate reloaded from ${certFile}`, 'TLS');
    } catch (error) {
      logger.error(
        `certificate not reloaded, the previous one stays in use: ${error instanceof Error ? error.message : String(error)}`,
        'TLS',
      );
    }
  });
}

const stop = serverCommandLine(process.argv.slice(2), USAGE, 'picket');
if (stop !== null) process.exitCode = stop;
else main().catch(failed);

function failed(error: unknown): void {
  if (error instanceof ConfigError) {
    process.stderr.write(`picket: ${error.message}\n`);
  } else if (
    error instanceof Error &&
    (error.name === 'ReplicaModeConflictError' || error.name === 'SecretsKeyError')
  ) {
    // A refusal with its reason and the fix (cluster/partitions.ts modeConflict), not a crash.
    process.stderr.write(`picket: ${error.message}\n`);
  } else {
    process.stderr.write(
      `picket: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
}
