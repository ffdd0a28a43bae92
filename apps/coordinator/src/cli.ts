import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConfigError } from '#runtime';
import { AdminError } from './auth/accounts.service.js';
import { CliModule } from './cli/cli.module.js';
import { CommandError, helpText, parseCommand, UsageError } from './cli/commands.js';
import { loadCoordinatorConfig } from './config.js';
import { SecretsKeyError } from './secrets/secret-box.js';

/**
 * The admin CLI: `npm run -s cli -- <command> [flags]`. Stdout carries exactly one JSON
 * object on one line; messages go to stderr with a non-zero exit (2 usage, 1 refused).
 */
async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write(`${helpText()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const { command, flags } = parseCommand(argv);
  if ('offline' in command) {
    process.stdout.write(`${JSON.stringify(await command.run(flags))}\n`);
    return 0;
  }
  const config = loadCoordinatorConfig(process.env);
  const app = await NestFactory.createApplicationContext(CliModule.forRoot(config), {
    logger: false,
    abortOnError: false,
  });
  try {
    const result = await command.run(app, flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`picket cli: ${error.message}\n\n${helpText()}\n`);
      process.exitCode = 2;
    } else if (
      error instanceof AdminError ||
      error instanceof CommandError ||
      error instanceof ConfigError ||
      error instanceof SecretsKeyError
    ) {
      process.stderr.write(`picket cli: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`picket cli: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
