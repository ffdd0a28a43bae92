import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { decode } from '@nats-io/jwt';
import { NatsLink, type NatsSecurity } from '#runtime';
import { initFile, NATS_INIT_FILES, NatsInitRefused } from './nats-init.js';
import { accountJwtRevoking, accountUpdateSubject } from './nats-jwt.js';

export interface RevokeRequest {
  /** The directory `nats init` wrote. */
  dir: string;
  /** The user's public key. */
  user: string;
  /** Where the servers are (NATS_URL), and the TLS settings to reach them; the system user's creds replace any credentials. */
  natsUrl: string;
  security: NatsSecurity;
  now: Date;
  /** How long to try to reach NATS. */
  connectTimeoutSeconds: number;
}

/**
 * Revokes a user of the Picket account (docs/decisions/0030-private-regions.md): the account
 * JWT, re-signed with the user's key under `revocations`, is saved over `picket-account.jwt`
 * first (so every later revocation keeps this one), then pushed with the system user to the
 * servers' `full` resolver, which closes the user's connections and refuses it from then on.
 * A push that fails leaves the saved JWT in place: running the command again pushes it.
 */
export async function revokeNatsUser(request: RevokeRequest): Promise<Record<string, unknown>> {
  const path = (name: string) => initFile(request.dir, name);
  const accountFile = path(NATS_INIT_FILES.accountJwt);
  const systemCreds = path(NATS_INIT_FILES.systemCreds); // missing: refused before anything is saved
  const updated = await accountJwtRevoking(
    readFileSync(accountFile, 'utf8').trim(),
    readFileSync(path(NATS_INIT_FILES.operatorSigningSeed), 'utf8'),
    { [request.user]: Math.floor(request.now.getTime() / 1000) },
  );
  const staged = `${accountFile}.new`;
  writeFileSync(staged, `${updated}\n`, { mode: 0o600 });
  renameSync(staged, accountFile);
  try {
    const accountPublicKey = await pushAccountJwt({ ...request, systemCreds, accountJwt: updated });
    return { revoked: request.user, account_public_key: accountPublicKey, pushed: true };
  } catch (error) {
    throw new NatsInitRefused(
      `${error instanceof Error ? error.message : String(error)}; the revocation is saved, run the command again`,
    );
  }
}

export interface AccountPush {
  natsUrl: string;
  /** TLS settings; any credentials are replaced by the system user's. */
  security: NatsSecurity;
  /** The system user's creds file (`nats init`'s system.creds). */
  systemCreds: string;
  accountJwt: string;
  connectTimeoutSeconds: number;
}

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Sends an account JWT to the servers' `full` resolver with the system user, over a connection
 * of its own, and resolves with the account's public key once a server took it (code 200).
 * Rejects with the server's reason, or when NATS is not reached in time.
 */
export async function pushAccountJwt(push: AccountPush): Promise<string> {
  const accountPublicKey = decode(push.accountJwt).sub;
  const { user: _user, pass: _pass, token: _token, credsFile: _creds, ...tls } = push.security;
  let gaveUp: (reason: Error) => void = () => undefined;
  const givenUp = new Promise<never>((_resolve, reject) => (gaveUp = reject));
  const link = new NatsLink(push.natsUrl, 'picket-account-update', quiet, {
    connectTimeoutSeconds: push.connectTimeoutSeconds,
    security: { ...tls, credsFile: push.systemCreds },
    onGiveUp: (message) => gaveUp(new Error(message)),
  });
  link.start();
  try {
    const nc = await Promise.race([link.whenConnected(), givenUp]);
    const answer = await nc.request(accountUpdateSubject(accountPublicKey), push.accountJwt, { timeout: 10_000 });
    const reply = answer.json<{ data?: { code?: number; message?: string }; error?: { description?: string } }>();
    if (reply.data?.code !== 200) {
      throw new Error(
        `the server did not take the account update (${reply.error?.description ?? reply.data?.message ?? JSON.stringify(reply)})`,
      );
    }
    return accountPublicKey;
  } finally {
    await link.close();
  }
}
