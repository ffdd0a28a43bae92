import { Logger } from '@nestjs/common';
import type { Server } from 'node:https';
import { ConfigError } from '#runtime';
import { createCoordinatorApp } from './app.js';
import { loadCoordinatorConfig } from './config.js';
import { loadTlsFiles } from './tls/tls-files.js';

async function main(): Promise<void> {
  const config = loadCoordinatorConfig(process.env);
  const app = await createCoordinatorApp(config);
  // SIGTERM and SIGINT stop the process gracefully; SIGHUP is left to the TLS reload (Nest would treat it as a stop).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(config.PORT, config.HOST);
  if (config.TLS_CERT_FILE && config.TLS_KEY_FILE) {
    reloadTlsOnSighup(app.getHttpServer() as Server, config.TLS_CERT_FILE, config.TLS_KEY_FILE);
  }
  const target = config.database;
  new Logger('Picket').log(
    `coordinator listening on ${config.TLS_CERT_FILE ? 'https' : 'http'}://${config.HOST}:${config.PORT} ` +
      `(database: ${target.dialect === 'sqlite' ? `SQLite ${target.path}` : 'PostgreSQL'})`,
  );
}

/** SIGHUP: read the certificate and key again and use them for new connections; a bad pair keeps the old one. */
function reloadTlsOnSighup(server: Server, certFile: string, keyFile: string): void {
  const logger = new Logger('TLS');
  process.on('SIGHUP', () => {
    try {
      server.setSecureContext(loadTlsFiles(certFile, keyFile));
      logger.log(`certificate reloaded from ${certFile}`);
    } catch (error) {
      logger.error(
        `certificate not reloaded, the previous one stays in use: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`picket: ${error.message}\n`);
  } else {
    process.stderr.write(
      `picket: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
