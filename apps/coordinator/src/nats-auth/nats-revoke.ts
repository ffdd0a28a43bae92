import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { decode } from '@nats-io/jwt';
import { NatsLink, type NatsSecurity } from '#runtime';
import { initFile, NATS_INIT_FILES, NatsInitRefused } from './nats-init.js';
import { accountJwtRevoking, accountUpdateSubject } from './nats-jwt.js';

/** A NATS user's public key (what `nats agent-creds` prints as user_public_key). */
export const USER_PUBLIC_KEY = /^U[A-Z2-7]{55}$/;

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

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

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
  const current = readFileSync(accountFile, 'utf8').trim();
  const accountPublicKey = decode(current).sub;
  const updated = await accountJwtRevoking(
    current,
    readFileSync(path(NATS_INIT_FILES.operatorSigningSeed), 'utf8'),
    request.user,
    request.now,
  );
  const staged = `${accountFile}.new`;
  writeFileSync(staged, `${updated}\n`, { mode: 0o600 });
  renameSync(staged, accountFile);

  const { user: _user, pass: _pass, token: _token, ...tls } = request.security;
  let gaveUp: (reason: Error) => void = () => undefined;
  const givenUp = new Promise<never>((_resolve, reject) => (gaveUp = reject));
  const link = new NatsLink(request.natsUrl, 'picket-cli', quiet, {
    connectTimeoutSeconds: request.connectTimeoutSeconds,
    security: { ...tls, credsFile: systemCreds },
    onGiveUp: (message) => gaveUp(new NatsInitRefused(`${message}; the revocation is saved, run the command again`)),
  });
  link.start();
  try {
    const nc = await Promise.race([link.whenConnected(), givenUp]);
    const answer = await nc.request(accountUpdateSubject(accountPublicKey), updated, { timeout: 10_000 });
    const reply = answer.json<{ data?: { code?: number; message?: string }; error?: { description?: string } }>();
    if (reply.data?.code !== 200) {
      throw new NatsInitRefused(
        `the server did not take the account update (${reply.error?.description ?? reply.data?.message ?? JSON.stringify(reply)}); the revocation is saved, run the command again`,
      );
    }
    return { revoked: request.user, account_public_key: accountPublicKey, pushed: true };
  } finally {
    await link.close();
  }
}
