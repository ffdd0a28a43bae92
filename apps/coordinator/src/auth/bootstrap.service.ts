import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CoordinatorConfig } from '../config.js';
import { DATA_SOURCE } from '../database/database.js';
import { exclusively } from '../database/migrate.js';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';
import { hashApiKey } from './api-key.js';
import { UsersService } from '../users/users.service.js';

/**
 * Shows the first-start key to the operator: plain text on stderr, written directly, never as a
 * log record, so neither LOG_FORMAT=json lines nor anything parsing the log stream carry it
 * (docs/operations.md, "Logs"). Only when the app logs at all (tests start it with `logger: false`).
 */
export function showKeyOnce(text: string, write: (text: string) => void = (t) => process.stderr.write(t)): void {
  if (Logger.isLevelEnabled('fatal')) write(`${text}\n`);
}

/**
 * First start on an empty database: create the account `default` and show its API key
 * once (or register BOOTSTRAP_API_KEY instead). Serialised with migrations, so two
 * replicas starting together create one account. Then, at every start while the database has
 * no user, show a setup URL for the dashboard's first admin (a new one-time token each start,
 * valid 24 h; docs/decisions/0022-users-and-sessions.md).
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly config: CoordinatorConfig,
    private readonly accounts: AccountsRepository,
    private readonly service: AccountsService,
    private readonly users: UsersService,
    @Inject(DATA_SOURCE) private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await exclusively(this.dataSource, async () => {
      await this.firstAccount();
      await this.setupUrl();
    });
  }

  /** The dashboard's first admin: the setup URL on stderr (never in the log records), while no user exists. */
  private async setupUrl(): Promise<void> {
    const url = await this.users.issueSetupUrl();
    if (url === null) return;
    const rule = '='.repeat(78);
    showKeyOnce(
      [
        rule,
        'DASHBOARD SETUP: no user exists yet. Open this URL to create the first admin (valid 24 h, once):',
        `  ${url}`,
        'A new URL is printed at each start until the first admin exists (PUBLIC_URL sets its base).',
        rule,
      ].join('\n'),
    );
    this.logger.warn(
      'No dashboard user exists yet: a one-time setup URL was shown on stderr, outside the log records.',
    );
  }

  private async firstAccount(): Promise<void> {
    const preset = this.config.BOOTSTRAP_API_KEY;
    const warnIfPresetUnused = async () => {
      if (preset && !(await this.accounts.findKeyByHash(hashApiKey(preset)))) {
        this.logger.warn('BOOTSTRAP_API_KEY is not registered: it is only used when the database is empty.');
      }
    };
    if ((await this.accounts.countAccounts()) > 0) return warnIfPresetUnused();
    // Checked again where it is written: another process may have made it since.
    const first = await this.service.createFirstAccount('default', preset, 'bootstrap');
    if (first === null) return warnIfPresetUnused();
    const { account, keyId, apiKey } = first;
    if (preset) {
      this.logger.log(
        `Created account "default" (${account.id}) with the key from BOOTSTRAP_API_KEY, key id ${keyId} ` +
          '(`keys list` shows it, `keys revoke` retires it).',
      );
      return;
    }
    const rule = '='.repeat(78);
    showKeyOnce(
      [
        rule,
        'FIRST START: created the account "default"',
        `  API key (shown once, store it now): ${apiKey}`,
        `  account id: ${account.id}, key id: ${keyId}`,
        'Use it as: Authorization: Bearer <key>. More keys: npm run -s cli -- keys create --account <id>',
        rule,
      ].join('\n'),
    );
    // The log keeps the event, never the key.
    this.logger.warn(
      `FIRST START: created the account "default" (${account.id}) and its key ${keyId}; the key was shown once on ` +
        'stderr, outside the log records. Lost it? Create another: npm run -s cli -- keys create --account <id>',
    );
  }
}
