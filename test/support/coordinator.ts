import type { LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Clock } from '#runtime';
import { createCoordinatorApp } from '../../apps/coordinator/src/app.js';
import { AccountsService } from '../../apps/coordinator/src/auth/accounts.service.js';
import type { Permission } from '../../apps/coordinator/src/auth/permissions.js';
import { loadCoordinatorConfig } from '../../apps/coordinator/src/config.js';
import { ApiClient } from './api-client.js';
import { withTestSecretsKey } from './databases.js';
import { TEST_PASSWORD_COST } from './password-cost.js';

export interface RunningCoordinator {
  app: NestFastifyApplication;
  baseUrl: string;
  /** A new account with an all-permissions key, and a client using that key. */
  newAccount(name?: string): Promise<{ accountId: string; apiKey: string; client: ApiClient }>;
  /** Another key for an account, with only the given permissions. */
  newKey(accountId: string, permissions: readonly Permission[]): Promise<{ keyId: string; client: ApiClient }>;
  client(apiKey?: string): ApiClient;
  close(): Promise<void>;
}

/** Starts a real coordinator on 127.0.0.1 (ephemeral port) over the given database. */
export async function startCoordinator(
  databaseUrl: string,
  options: { clock?: Clock; env?: Record<string, string>; logger?: LoggerService | false } = {},
): Promise<RunningCoordinator> {
  // API suites run without checks unless they ask for them (CHECKS_ENABLED: 'true').
  const config = loadCoordinatorConfig(
    withTestSecretsKey({
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'error',
      CHECKS_ENABLED: 'false',
      ...TEST_PASSWORD_COST,
      ...options.env,
    }),
  );
  const app = await createCoordinatorApp(config, { clock: options.clock, logger: options.logger ?? false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const accounts = app.get(AccountsService);
  return {
    app,
    baseUrl,
    async newAccount(name = 'test') {
      const { account, apiKey } = await accounts.createAccount(name);
      return { accountId: account.id, apiKey, client: new ApiClient(baseUrl, apiKey) };
    },
    async newKey(accountId, permissions) {
      const { keyId, apiKey } = await accounts.createKey(accountId, permissions);
      return { keyId, client: new ApiClient(baseUrl, apiKey) };
    },
    client: (apiKey) => new ApiClient(baseUrl, apiKey),
    close: () => app.close(),
  };
}

/** A logger that keeps every line, so a test can search what Picket logged. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  private add(level: string, message: unknown, rest: unknown[]): void {
    this.lines.push(
      [level, message, ...rest].map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join(' '),
    );
  }
  log(message: unknown, ...rest: unknown[]): void {
    this.add('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.add('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.add('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.add('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.add('verbose', message, rest);
  }
}
