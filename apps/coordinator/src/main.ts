import { Logger } from '@nestjs/common';
import { ConfigError } from '#runtime';
import { createCoordinatorApp } from './app.js';
import { loadCoordinatorConfig } from './config.js';

async function main(): Promise<void> {
  const config = loadCoordinatorConfig(process.env);
  const app = await createCoordinatorApp(config);
  app.enableShutdownHooks();
  await app.listen(config.PORT, config.HOST);
  const target = config.database;
  new Logger('Picket').log(
    `coordinator listening on http://${config.HOST}:${config.PORT} ` +
      `(database: ${target.dialect === 'sqlite' ? `SQLite ${target.path}` : 'PostgreSQL'})`,
  );
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
