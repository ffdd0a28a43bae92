import type { INestApplicationContext } from '@nestjs/common';
import { parseArgs } from 'node:util';
import { agentsListing } from '../agents/agents-list.js';
import { AgentsStore } from '../agents/agents.store.js';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../auth/account.entity.js';
import { AccountsService } from '../auth/accounts.service.js';
import { parsePermissionList, PERMISSIONS } from '../auth/permissions.js';
import { checkInput, displayName, isPlainObject } from '#validation';
import { completeDetails, PushDetails } from '../contacts/channels.js';
import { ContactsService } from '../contacts/contacts.service.js';
import { ContactsRepository } from '../contacts/contacts.repository.js';
import { SecretBox } from '../secrets/secret-box.js';
import { AccountsRepository } from '../auth/accounts.repository.js';
import { isObjectId } from '#runtime';
import { emailAddress } from '../contacts/channels.js';
import { isRole, ROLES } from '../users/roles.js';
import type { UserEntity } from '../users/user.entity.js';
import { UsersService } from '../users/users.service.js';
import { natsInit, NatsInitRefused, writeAgentCreds, writePublicAgentCreds } from '../nats-auth/nats-init.js';
import { revokeNatsUser } from '../nats-auth/nats-revoke.js';
import { natsSecurityOf } from '#runtime';
import { NATS_USER_KEY_PATTERN } from '#contracts';
import { CoordinatorConfig, loadCoordinatorConfig } from '../config.js';
import { PrivateRegionsRepository } from '../regions/private-regions.repository.js';

/** A user as the CLI prints it: never the password hash. */
const userRow = (u: UserEntity) => ({
  user_id: u.id,
  account_id: u.accountId,
  email: u.email,
  name: u.name,
  role: u.role,
  disabled: u.disabled,
  created_at: u.createdAt,
  last_login_at: u.lastLoginAt,
});

/** A mistake in how the command was called (exit 2) as opposed to a refused action (exit 1). */
export class UsageError extends Error {}
export class CommandError extends Error {}

type Flags = Record<string, string | undefined>;

interface Command {
  usage: string;
  flags: readonly string[];
  run(app: INestApplicationContext, flags: Flags): Promise<Record<string, unknown>>;
}

/** A command that needs neither the database nor the services: run without starting them. */
interface OfflineCommand {
  usage: string;
  flags: readonly string[];
  offline: true;
  run(flags: Flags): Promise<Record<string, unknown>>;
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** An agent id, as AGENT_ID allows it. */
const AGENT_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** The admin commands; each prints one JSON object on one line. */
export const COMMANDS: Record<string, Command> = {
  'accounts create': {
    usage: 'accounts create --name <name>',
    flags: ['name'],
    async run(app, flags) {
      const name = required(flags, 'name');
      const problem = displayName(100)(name);
      if (problem) throw new UsageError(`--name ${problem}`);
      const { account, keyId, apiKey } = await app.get(AccountsService).createAccount(name);
      return { account_id: account.id, key_id: keyId, api_key: apiKey };
    },
  },
  'accounts list': {
    usage: 'accounts list',
    flags: [],
    async run(app) {
      const accounts = await app.get(AccountsService).listAccounts();
      return {
        accounts: accounts.map((a) => ({
          account_id: a.id,
          name: a.name,
          subscription_status: a.subscriptionStatus,
          created_at: a.createdAt,
        })),
      };
    },
  },
  'accounts set-subscription': {
    usage: 'accounts set-subscription --account <id> --status active|inactive',
    flags: ['account', 'status'],
    async run(app, flags) {
      const accountId = required(flags, 'account');
      const status = required(flags, 'status');
      if (!(SUBSCRIPTION_STATUSES as readonly string[]).includes(status)) {
        throw new UsageError('--status must be active or inactive');
      }
      await app.get(AccountsService).setSubscription(accountId, status as SubscriptionStatus);
      return { account_id: accountId, subscription_status: status };
    },
  },
  'keys create': {
    usage: `keys create --account <id> [--name <name>] [--permissions ${PERMISSIONS.slice(0, 2).join(',')},…]`,
    flags: ['account', 'name', 'permissions'],
    async run(app, flags) {
      const accountId = required(flags, 'account');
      const name = flags.name ?? '';
      const nameProblem = name === '' ? null : displayName(100)(name);
      if (nameProblem) throw new UsageError(`--name ${nameProblem}`);
      let permissions = [...PERMISSIONS];
      if (flags.permissions !== undefined) {
        const parsed = parsePermissionList(flags.permissions);
        if ('unknown' in parsed) {
          throw new UsageError(
            `--permissions has unknown names: ${parsed.unknown.join(', ') || '(empty)'}; known: ${PERMISSIONS.join(', ')}`,
          );
        }
        permissions = parsed.permissions;
      }
      const { keyId, apiKey } = await app.get(AccountsService).createKey(accountId, permissions, name);
      return { key_id: keyId, api_key: apiKey };
    },
  },
  'keys list': {
    usage: 'keys list --account <id>',
    flags: ['account'],
    async run(app, flags) {
      const keys = await app.get(AccountsService).listKeys(required(flags, 'account'));
      return {
        keys: keys.map((k) => ({
          key_id: k.id,
          name: k.name,
          prefix: k.prefix,
          permissions: k.permissions.split(',').filter((p) => p !== ''),
          created_at: k.createdAt,
          last_used_at: k.lastUsedAt,
          revoked: k.revokedAt !== null,
        })),
      };
    },
  },
  'keys revoke': {
    usage: 'keys revoke --key <key_id>',
    flags: ['key'],
    async run(app, flags) {
      await app.get(AccountsService).revokeKey(required(flags, 'key'));
      return { revoked: true };
    },
  },
  'users create': {
    usage: `users create --account <id> --email <email> [--role ${ROLES.join('|')}]`,
    flags: ['account', 'email', 'role'],
    async run(app, flags) {
      const accountId = required(flags, 'account');
      const email = required(flags, 'email');
      const problem = emailAddress(email);
      if (problem) throw new UsageError(`--email ${problem}`);
      const role = flags.role ?? 'admin';
      if (!isRole(role)) throw new UsageError(`--role must be one of: ${ROLES.join(', ')}`);
      const { user, setPasswordUrl } = await app.get(UsersService).cliCreate(accountId, email, role);
      return { ...userRow(user), set_password_url: setPasswordUrl };
    },
  },
  'users reset-password': {
    usage: 'users reset-password --user <user_id>',
    flags: ['user'],
    async run(app, flags) {
      const { user, setPasswordUrl } = await app.get(UsersService).cliResetPassword(required(flags, 'user'));
      return { user_id: user.id, set_password_url: setPasswordUrl };
    },
  },
  'users list': {
    usage: 'users list --account <id>',
    flags: ['account'],
    async run(app, flags) {
      return { users: (await app.get(UsersService).cliList(required(flags, 'account'))).map(userRow) };
    },
  },
  'users disable': {
    usage: 'users disable --user <user_id>',
    flags: ['user'],
    async run(app, flags) {
      const user = await app.get(UsersService).cliDisable(required(flags, 'user'));
      return { user_id: user.id, disabled: true };
    },
  },
  'agents list': {
    usage: 'agents list',
    flags: [],
    async run(app) {
      return { ...agentsListing(await app.get(AgentsStore).list(), Date.now()) };
    },
  },
  'push register': {
    usage: "push register --account <id> --name <name> --subscription '<PushSubscription JSON>'",
    flags: ['account', 'name', 'subscription'],
    async run(app, flags) {
      const accountId = required(flags, 'account');
      const name = required(flags, 'name');
      const nameProblem = displayName(100)(name);
      if (nameProblem) throw new UsageError(`--name ${nameProblem}`);
      let subscription: unknown;
      try {
        subscription = JSON.parse(required(flags, 'subscription'));
      } catch {
        throw new UsageError('--subscription must be the JSON of a PushSubscription');
      }
      if (!isPlainObject(subscription)) throw new UsageError('--subscription must be a JSON object');
      const checked = checkInput(
        PushDetails,
        { endpoint: subscription.endpoint, keys: subscription.keys },
        'subscription',
      );
      if (!checked.value) {
        throw new UsageError(checked.problems.map((p) => `${p.field} ${p.message}`).join('; '));
      }
      if (!isObjectId(accountId) || !(await app.get(AccountsRepository).findAccount(accountId))) {
        throw new CommandError(`no account with id ${accountId}`);
      }
      const contact = await app
        .get(ContactsService)
        .insert(accountId, name, 'push', completeDetails('push', { ...checked.value }));
      return { contact_id: contact.id };
    },
  },
  'secrets rotate': {
    usage: 'secrets rotate',
    flags: [],
    /**
     * Re-seals every contact secret with SECRETS_KEY (those sealed with SECRETS_KEY_PREVIOUS, and
     * any still in plain text); afterwards SECRETS_KEY_PREVIOUS can go (docs/decisions/0020-secrets-at-rest.md).
     */
    async run(app) {
      const contacts = app.get(ContactsRepository);
      const sealed = await contacts.sealPlaintextRows();
      const resealed = await contacts.resealWithCurrentKey();
      const byKey = Object.fromEntries(await contacts.sealedByKey());
      return { key_id: app.get(SecretBox).currentKeyId, resealed: resealed + sealed, sealed_by_key: byKey };
    },
  },
  'nats agent-creds': {
    usage: 'nats agent-creds --dir <dir> --account <id> --region <id> --agent <agent id> --out <file>',
    flags: ['dir', 'account', 'region', 'agent', 'out'],
    /**
     * Creds for one agent of an account's private region, from `nats init`'s material: the server
     * confines it to that region (docs/decisions/0030-private-regions.md). Until enrollment tokens
     * exist, this is how an operator gives a private agent credentials of its own.
     */
    async run(app, flags) {
      const [dir, accountId, region, agent, out] = ['dir', 'account', 'region', 'agent', 'out'].map((f) =>
        required(flags, f),
      ) as [string, string, string, string, string];
      if (!AGENT_NAME.test(agent))
        throw new UsageError('--agent must be 1-64 letters, digits, dots, dashes or underscores');
      if (!(await app.get(PrivateRegionsRepository).findOne(accountId, region))) {
        throw new CommandError(`account ${accountId} has no private region "${region}"`);
      }
      const prefix = app.get(CoordinatorConfig).NATS_SUBJECT_PREFIX;
      return refusedAsCommandError(() => writeAgentCreds({ dir, prefix, accountId, region, agent, out }));
    },
  },
};

/** Refusals of the NATS material helpers as the CLI's refusals (exit 1, the message alone). */
async function refusedAsCommandError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof NatsInitRefused) throw new CommandError(error.message);
    throw error;
  }
}

/** The commands that run without the application (no DATABASE_URL needed). */
export const OFFLINE_COMMANDS: Record<string, OfflineCommand> = {
  'nats init': {
    usage: 'nats init --dir <dir>',
    flags: ['dir'],
    offline: true,
    /** NATS JWT material for private regions' agents (docs/decisions/0030-private-regions.md). */
    async run(flags) {
      return refusedAsCommandError(() => natsInit(required(flags, 'dir')));
    },
  },
  'nats public-agent-creds': {
    usage: 'nats public-agent-creds --dir <dir> --out <file>',
    flags: ['dir', 'out'],
    offline: true,
    /**
     * New shared creds for the agents of public regions, with this version's rights, from `nats
     * init`'s material and NATS_SUBJECT_PREFIX: how agents whose `agent.creds` predates batched
     * probe traffic get it (docs/decisions/0034-batched-probe-traffic.md).
     */
    async run(flags) {
      const dir = required(flags, 'dir');
      const out = required(flags, 'out');
      const prefix = loadCoordinatorConfig(process.env).NATS_SUBJECT_PREFIX;
      return refusedAsCommandError(() => writePublicAgentCreds({ dir, prefix, out }));
    },
  },
  'nats revoke': {
    usage: 'nats revoke --dir <dir> --user <user public key>',
    flags: ['dir', 'user'],
    offline: true,
    /**
     * Revokes an agent's NATS user (the user_public_key `nats agent-creds` printed): saved in the
     * account JWT of `--dir`, pushed to the servers at NATS_URL with the system user, which
     * disconnect it and refuse it from then on (docs/decisions/0030-private-regions.md).
     */
    async run(flags) {
      const dir = required(flags, 'dir');
      const user = required(flags, 'user');
      if (!NATS_USER_KEY_PATTERN.test(user))
        throw new UsageError('--user must be a NATS user public key (U followed by 55 characters)');
      const config = loadCoordinatorConfig(process.env);
      if (!config.NATS_URL) throw new UsageError('NATS_URL is required: the servers to push the revocation to');
      const natsUrl = config.NATS_URL;
      return refusedAsCommandError(() =>
        revokeNatsUser({
          dir,
          user,
          natsUrl,
          security: natsSecurityOf(config),
          now: new Date(),
          // NATS_CONNECT_TIMEOUT_SECONDS=0, its default, retries forever: a command gives up after 10 s instead.
          connectTimeoutSeconds: config.NATS_CONNECT_TIMEOUT_SECONDS || 10,
        }),
      );
    },
  },
};

export function helpText(): string {
  return [
    'usage: npm run -s cli -- <command> [flags]',
    '',
    ...[...Object.values(COMMANDS), ...Object.values(OFFLINE_COMMANDS)].map((c) => `  ${c.usage}`),
    '',
    'Each command prints one JSON object on one line. DATABASE_URL selects the database',
    '(default sqlite:./data/picket.db); pending migrations are applied first (not for nats).',
  ].join('\n');
}

/** Finds the command named by the first two words and parses its flags. */
export function parseCommand(argv: readonly string[]): { command: Command | OfflineCommand; flags: Flags } {
  const name = argv.slice(0, 2).join(' ');
  const command = COMMANDS[name] ?? OFFLINE_COMMANDS[name];
  if (!command) throw new UsageError(argv.length === 0 ? 'no command given' : `unknown command "${name}"`);
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({
      args: argv.slice(2),
      options: Object.fromEntries(command.flags.map((f) => [f, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return { command, flags: values as Flags };
}
