import {
  createAccount,
  decode,
  type Account,
  createOperator,
  createUser,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
  fromSeed,
  type KeyPair,
  type UserPermissionsLimits,
} from '@nats-io/jwt';
import {
  DEFAULT_SUBJECT_PREFIX,
  enrollInboxPrefix,
  PROBE_BATCH_MAX_CHECKS,
  PROBE_QUEUE_GROUP,
  subjectsFor,
} from '#contracts';

/**
 * NATS decentralised (JWT) authentication material for private regions
 * (docs/decisions/0030-private-regions.md, increment B), made with the official `@nats-io/jwt`
 * and `@nats-io/nkeys` libraries. Pure functions of their inputs and of fresh random keys.
 */

/** The NATS account every Picket process uses (coordinators, public and private agents). */
export const PICKET_ACCOUNT_NAME = 'PICKET';
export const SYSTEM_ACCOUNT_NAME = 'SYS';

/** How long a probe's reply inbox stays open to the agent that received the request (NATS: ns). */
export const REPLY_WINDOW_NANOS = 120 * 1_000_000_000;

/**
 * Replies an agent may send to one request: one for a single check, up to one per check for a
 * batch (docs/decisions/0034-batched-probe-traffic.md). Credentials issued before batches
 * (max 1) cannot subscribe to batch subjects either, so their agents take single checks only.
 */
export const AGENT_REPLIES = { max: PROBE_BATCH_MAX_CHECKS, ttl: REPLY_WINDOW_NANOS };

export interface NatsAuthMaterial {
  operator: { publicKey: string; seed: string; jwt: string };
  /** Signs accounts (and their re-signing, for revocations); the identity seed can stay offline. */
  operatorSigningSeed: string;
  systemAccount: { publicKey: string; seed: string; jwt: string };
  /** A system-account user: pushes account JWT updates to a `full` resolver. */
  systemUserCreds: string;
  account: { publicKey: string; seed: string; jwt: string };
  /** The key the coordinator signs agents' user JWTs with (an account signing key). */
  accountSigningSeed: string;
  coordinatorCreds: string;
  /** The user every agent of public regions shares (publicAgentPermissions for NATS_SUBJECT_PREFIX's default). */
  publicAgentCreds: string;
}

/** An account's limits: none (the JWT default is zero connections and subscriptions); no JetStream. */
export const UNLIMITED_ACCOUNT: NonNullable<Account['limits']> = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
};

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const seedOf = (kp: KeyPair): string => text(kp.getSeed());

/** Creds file text (JWT and seed) for a user key pair. */
export function credsText(jwt: string, user: KeyPair): string {
  return text(fmtCreds(jwt, user));
}

/**
 * The operator (with one signing key), the system account, the Picket account (with one
 * signing key), a system user and the coordinator's user. The coordinator's user has the
 * account's full rights: it is the party that dispatches every region's work.
 */
export async function createNatsAuthMaterial(operatorName = 'picket'): Promise<NatsAuthMaterial> {
  const operator = createOperator();
  const operatorSigner = createOperator();
  const system = createAccount();
  const account = createAccount();
  const accountSigner = createAccount();
  const signer = { signer: operatorSigner };
  const operatorJwt = await encodeOperator(operatorName, operator, {
    signing_keys: [operatorSigner.getPublicKey()],
    system_account: system.getPublicKey(),
  });
  const systemJwt = await encodeAccount(SYSTEM_ACCOUNT_NAME, system, { limits: UNLIMITED_ACCOUNT }, signer);
  const accountJwt = await encodeAccount(
    PICKET_ACCOUNT_NAME,
    account,
    { signing_keys: [accountSigner.getPublicKey()], limits: UNLIMITED_ACCOUNT },
    signer,
  );
  const systemUser = createUser();
  const coordinator = createUser();
  const publicAgent = createUser();
  const byAccountSigner = { signer: accountSigner };
  return {
    operator: { publicKey: operator.getPublicKey(), seed: seedOf(operator), jwt: operatorJwt },
    operatorSigningSeed: seedOf(operatorSigner),
    systemAccount: { publicKey: system.getPublicKey(), seed: seedOf(system), jwt: systemJwt },
    systemUserCreds: credsText(await encodeUser('picket-system', systemUser, system), systemUser),
    account: { publicKey: account.getPublicKey(), seed: seedOf(account), jwt: accountJwt },
    accountSigningSeed: seedOf(accountSigner),
    coordinatorCreds: credsText(
      await encodeUser('picket-coordinator', coordinator, account.getPublicKey(), {}, byAccountSigner),
      coordinator,
    ),
    publicAgentCreds: credsText(
      await encodeUser(
        'picket-agent',
        publicAgent,
        account.getPublicKey(),
        publicAgentPermissions(DEFAULT_SUBJECT_PREFIX),
        byAccountSigner,
      ),
      publicAgent,
    ),
  };
}

/**
 * What an agent of public regions may do, as the `agent` user of `deploy/nats/picket-auth.conf`:
 * receive any public region's probe requests in the agents' queue group, beat on the public
 * heartbeat subject, and answer the requests it received (batches too). Private regions' subjects are not
 * among them (they are `<prefix>.private.…`, not `<prefix>.probe.<region>`).
 */
export function publicAgentPermissions(prefix: string): Pick<UserPermissionsLimits, 'pub' | 'sub' | 'resp'> {
  const subjects = subjectsFor(prefix);
  return {
    pub: { allow: [subjects.heartbeat] },
    sub: { allow: [`${prefix}.probe.* ${PROBE_QUEUE_GROUP}`, `${prefix}.probe.*.batch ${PROBE_QUEUE_GROUP}`] },
    resp: { ...AGENT_REPLIES },
  };
}

/**
 * What a private region's agent may do, and nothing else: receive its region's probe requests
 * in the agents' queue group, beat on its region's heartbeat subject, and answer the requests it
 * received (one reply each, one per check of a batch, within the reply window).
 */
export function privateAgentPermissions(
  prefix: string,
  accountId: string,
  region: string,
): Pick<UserPermissionsLimits, 'pub' | 'sub' | 'resp'> {
  const subjects = subjectsFor(prefix);
  return {
    pub: { allow: [subjects.privateHeartbeat(accountId, region)] },
    sub: {
      allow: [
        `${subjects.privateProbe(accountId, region)} ${PROBE_QUEUE_GROUP}`,
        `${subjects.privateProbeBatch(accountId, region)} ${PROBE_QUEUE_GROUP}`,
      ],
    },
    resp: { ...AGENT_REPLIES },
  };
}

export interface PrivateAgentUser {
  /** Subject prefix (NATS_SUBJECT_PREFIX). */
  prefix: string;
  accountId: string;
  region: string;
  /** Names the user in its JWT (e.g. the agent id). */
  name: string;
  /** The Picket account's public key (the JWT's issuer account). */
  accountPublicKey: string;
  /** The account signing key's seed (SA…). */
  signingSeed: string;
  /** After this instant the server refuses the JWT; none: no expiry. */
  expiresAt?: Date;
}

/** A user JWT (and creds file text) for one private region's agent, with a fresh key pair. */
export async function privateAgentUser(
  input: PrivateAgentUser,
): Promise<{ publicKey: string; jwt: string; creds: string }> {
  const user = createUser();
  const jwt = await privateAgentJwt({ ...input, userPublicKey: user.getPublicKey() });
  return { publicKey: user.getPublicKey(), jwt, creds: credsText(jwt, user) };
}

/**
 * The user JWT of a private region's agent whose key pair the agent made itself (enrollment:
 * only the public key reaches the coordinator), signed by the account signing key.
 */
export function privateAgentJwt(input: PrivateAgentUser & { userPublicKey: string }): Promise<string> {
  return encodeUser(
    input.name,
    input.userPublicKey,
    input.accountPublicKey,
    privateAgentPermissions(input.prefix, input.accountId, input.region),
    { signer: accountSigner(input.signingSeed), ...expiry(input.expiresAt) },
  );
}

/**
 * A new user for the agents of public regions (publicAgentPermissions for `prefix`), signed by
 * the account signing key `nats init` wrote: what `nats public-agent-creds` hands out when the
 * shared `agent.creds` must be made again (new rights, another prefix, a leaked file).
 */
export async function publicAgentUser(input: {
  prefix: string;
  accountPublicKey: string;
  signingSeed: string;
}): Promise<{ publicKey: string; creds: string }> {
  const user = createUser();
  const jwt = await encodeUser('picket-agent', user, input.accountPublicKey, publicAgentPermissions(input.prefix), {
    signer: accountSigner(input.signingSeed),
  });
  return { publicKey: user.getPublicKey(), creds: credsText(jwt, user) };
}

export interface EnrollmentTokenInput {
  prefix: string;
  /** Names the token's user (e.g. `enroll:<token id>`). */
  name: string;
  accountPublicKey: string;
  signingSeed: string;
  expiresAt: Date;
}

/**
 * An enrollment token: a bearer user JWT (the server takes it without a key's signature, so the
 * JWT alone is the credential) that may publish enrollment requests and read its own replies,
 * nothing else, until `expiresAt`. Once used, the coordinator refuses it (its hash is consumed).
 */
export async function enrollmentTokenJwt(input: EnrollmentTokenInput): Promise<string> {
  const user = createUser();
  return encodeUser(
    input.name,
    user,
    input.accountPublicKey,
    {
      bearer_token: true,
      pub: { allow: [subjectsFor(input.prefix).enroll] },
      sub: { allow: [`${enrollInboxPrefix(user.getPublicKey())}.>`] },
    },
    { signer: accountSigner(input.signingSeed), ...expiry(input.expiresAt) },
  );
}

function accountSigner(seed: string): KeyPair {
  const signer = fromSeed(new TextEncoder().encode(seed.trim()));
  if (!signer.getPublicKey().startsWith('A')) throw new Error('the signing seed is not an account key');
  return signer;
}

const expiry = (at: Date | undefined): { exp?: number } => (at ? { exp: Math.floor(at.getTime() / 1000) } : {});

/**
 * A nats-server (2.9) configuration trusting the operator: the `full` resolver stores account
 * JWTs in `resolverDir` (so pushed updates such as revocations survive a restart), preloaded
 * with the system and Picket accounts.
 */
export function natsServerConfig(
  material: NatsAuthMaterial,
  files: { operatorJwt: string; resolverDir: string },
): string {
  return [
    '# Generated by `npm run cli -- nats init` (docs/decisions/0030-private-regions.md).',
    `operator: "${files.operatorJwt}"`,
    `system_account: ${material.systemAccount.publicKey}`,
    'resolver: {',
    '  type: full',
    `  dir: "${files.resolverDir}"`,
    '  allow_delete: false',
    '  interval: "2m"',
    '}',
    'resolver_preload: {',
    `  ${material.systemAccount.publicKey}: "${material.systemAccount.jwt}"`,
    `  ${material.account.publicKey}: "${material.account.jwt}"`,
    '}',
    '',
  ].join('\n');
}

/**
 * The account JWT again, re-signed by the operator signing key, with `revoked` added (user public
 * key → unix seconds): the server refuses each user's JWTs issued at or before its instant and
 * closes its connections once the update reaches a `full` resolver (pushed on
 * `$SYS.REQ.ACCOUNT.<account>.CLAIMS.UPDATE`). Revocations already in the JWT are kept.
 */
export async function accountJwtRevoking(
  accountJwt: string,
  operatorSigningSeed: string,
  revoked: Readonly<Record<string, number>>,
): Promise<string> {
  const claims = decode<Account>(accountJwt);
  const signer = fromSeed(new TextEncoder().encode(operatorSigningSeed.trim()));
  if (!signer.getPublicKey().startsWith('O')) throw new Error('the operator signing seed is not an operator key');
  const { type: _type, version: _version, ...account } = claims.nats;
  return encodeAccount(
    claims.name,
    claims.sub,
    { ...account, revocations: { ...account.revocations, ...revoked } },
    {
      signer,
    },
  );
}

/** The subject a system-account user publishes an account JWT update to. */
export const accountUpdateSubject = (accountPublicKey: string): string =>
  `$SYS.REQ.ACCOUNT.${accountPublicKey}.CLAIMS.UPDATE`;
