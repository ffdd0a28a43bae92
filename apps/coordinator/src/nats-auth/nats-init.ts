import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decode } from '@nats-io/jwt';
import { createNatsAuthMaterial, natsServerConfig, privateAgentUser, publicAgentUser } from './nats-jwt.js';

/** The files `nats init` writes, by role, relative to its directory. */
export const NATS_INIT_FILES = {
  config: 'nats-server.conf',
  operatorJwt: 'operator.jwt',
  operatorSeed: 'operator.nk',
  operatorSigningSeed: 'operator-signing.nk',
  systemAccountJwt: 'system-account.jwt',
  systemCreds: 'system.creds',
  accountJwt: 'picket-account.jwt',
  accountSigningSeed: 'account-signing.nk',
  coordinatorCreds: 'coordinator.creds',
  publicAgentCreds: 'agent.creds',
  resolverDir: 'jwt',
} as const;

/** Thrown when `nats init` would overwrite something; nothing has been written then. */
export class NatsInitRefused extends Error {}

/**
 * Writes fresh NATS JWT material and a nats-server configuration using it into `dir` (created
 * 0700 when missing). Every file is 0600, none existing is overwritten: if any is there already,
 * nothing is written. Returns the public keys and the paths written.
 */
export async function natsInit(dir: string): Promise<Record<string, unknown>> {
  const root = resolve(dir);
  const path = (name: string) => join(root, name);
  const taken = Object.values(NATS_INIT_FILES).filter((name) => existsSync(path(name)));
  if (taken.length > 0) {
    throw new NatsInitRefused(`${root} already holds ${taken.join(', ')}: refusing to overwrite`);
  }
  const material = await createNatsAuthMaterial();
  const config = natsServerConfig(material, {
    operatorJwt: path(NATS_INIT_FILES.operatorJwt),
    resolverDir: path(NATS_INIT_FILES.resolverDir),
  });
  const contents: Record<Exclude<keyof typeof NATS_INIT_FILES, 'resolverDir'>, string> = {
    config,
    operatorJwt: material.operator.jwt,
    operatorSeed: material.operator.seed,
    operatorSigningSeed: material.operatorSigningSeed,
    systemAccountJwt: material.systemAccount.jwt,
    systemCreds: material.systemUserCreds,
    accountJwt: material.account.jwt,
    accountSigningSeed: material.accountSigningSeed,
    coordinatorCreds: material.coordinatorCreds,
    publicAgentCreds: material.publicAgentCreds,
  };
  mkdirSync(root, { recursive: true, mode: 0o700 });
  mkdirSync(path(NATS_INIT_FILES.resolverDir), { mode: 0o700 });
  for (const [role, text] of Object.entries(contents)) {
    writeFileSync(path(NATS_INIT_FILES[role as keyof typeof contents]), `${text.trim()}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
  }
  return {
    dir: root,
    config: path(NATS_INIT_FILES.config),
    coordinator_creds: path(NATS_INIT_FILES.coordinatorCreds),
    agent_creds: path(NATS_INIT_FILES.publicAgentCreds),
    account_signing_key: path(NATS_INIT_FILES.accountSigningSeed),
    operator_public_key: material.operator.publicKey,
    system_account_public_key: material.systemAccount.publicKey,
    account_public_key: material.account.publicKey,
  };
}

/** The path of one of the files `nats init` wrote in `dir`; refused when it is not there. */
export function initFile(dir: string, name: string): string {
  const root = resolve(dir);
  const file = join(root, name);
  if (!existsSync(file)) throw new NatsInitRefused(`${file} is missing: run nats init --dir ${root} first`);
  return file;
}

export interface AgentCredsRequest {
  /** The directory `nats init` wrote. */
  dir: string;
  /** NATS_SUBJECT_PREFIX of the coordinators and agents. */
  prefix: string;
  accountId: string;
  region: string;
  /** The agent's id, named in its JWT. */
  agent: string;
  /** Where to write the creds file (0600, never over an existing file). */
  out: string;
}

/**
 * A private region's agent's creds, signed with the account signing key `nats init` wrote:
 * the server lets the agent take that region's work and nothing else
 * (docs/decisions/0030-private-regions.md). The caller has checked that the account owns the
 * region. Returns what to keep to revoke it later: the user's public key.
 */
export async function writeAgentCreds(request: AgentCredsRequest): Promise<Record<string, unknown>> {
  const { accountPublicKey, signingSeed } = accountSigning(request.dir);
  const out = unusedPath(request.out);
  const user = await privateAgentUser({
    prefix: request.prefix,
    accountId: request.accountId,
    region: request.region,
    name: request.agent,
    accountPublicKey,
    signingSeed,
  });
  writeFileSync(out, `${user.creds.trim()}\n`, { mode: 0o600, flag: 'wx' });
  return {
    agent: request.agent,
    account_id: request.accountId,
    region: request.region,
    user_public_key: user.publicKey,
    creds: out,
  };
}

/**
 * New creds for the agents of public regions, from the material `nats init` wrote in `dir`, for
 * subject prefix `prefix`, written to `out` (0600, never over an existing file). The rights are
 * those of this version (batch subjects included, docs/decisions/0034-batched-probe-traffic.md);
 * creds made before keep working until revoked (`nats revoke` with the user key they print).
 */
export async function writePublicAgentCreds(request: {
  dir: string;
  prefix: string;
  out: string;
}): Promise<Record<string, unknown>> {
  const { accountPublicKey, signingSeed } = accountSigning(request.dir);
  const out = unusedPath(request.out);
  const user = await publicAgentUser({ prefix: request.prefix, accountPublicKey, signingSeed });
  writeFileSync(out, `${user.creds.trim()}\n`, { mode: 0o600, flag: 'wx' });
  return { prefix: request.prefix, user_public_key: user.publicKey, creds: out };
}

/** The Picket account's public key and its signing key's seed, from what `nats init` wrote in `dir`. */
function accountSigning(dir: string): { accountPublicKey: string; signingSeed: string } {
  const read = (name: string) => readFileSync(initFile(dir, name), 'utf8');
  return {
    accountPublicKey: decode(read(NATS_INIT_FILES.accountJwt).trim()).sub,
    signingSeed: read(NATS_INIT_FILES.accountSigningSeed),
  };
}

/** `path` made absolute; refused when something is there already. */
function unusedPath(path: string): string {
  const out = resolve(path);
  if (existsSync(out)) throw new NatsInitRefused(`${out} exists: refusing to overwrite`);
  return out;
}
