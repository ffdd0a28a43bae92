import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Injectable } from '@nestjs/common';
import { decode } from '@nats-io/jwt';
import { natsSecurityOf } from '#runtime';
import { CoordinatorConfig } from '../config.js';
import { NATS_INIT_FILES } from './nats-init.js';
import { accountJwtRevoking, enrollmentTokenJwt, privateAgentJwt } from './nats-jwt.js';
import { pushAccountJwt } from './nats-revoke.js';

/** How long a revocation push may try to reach NATS before the request answers without it. */
const PUSH_CONNECT_SECONDS = 5;

/**
 * The coordinator's NATS authority (docs/decisions/0030-private-regions.md): with NATS_AUTH_DIR,
 * it signs enrollment tokens and private agents' user JWTs with the account signing key, and
 * pushes the account JWT with revocations to the servers with the system user. The files are read
 * at each use, so a revocation `nats revoke` saved in the directory is kept in the next push.
 */
@Injectable()
export class NatsAuthority {
  constructor(private readonly config: CoordinatorConfig) {}

  /** False without NATS_AUTH_DIR: no enrollment (tokens are refused with 503). */
  get enabled(): boolean {
    return Boolean(this.config.NATS_AUTH_DIR && this.config.NATS_URL);
  }

  private read(name: string): string {
    if (!this.config.NATS_AUTH_DIR) throw new Error('NATS_AUTH_DIR is not set');
    return readFileSync(join(resolve(this.config.NATS_AUTH_DIR), name), 'utf8').trim();
  }

  /** The account JWT as `nats init` (and `nats revoke`) left it. */
  accountJwt(): string {
    return this.read(NATS_INIT_FILES.accountJwt);
  }

  /** A bearer enrollment token named `name`, valid until `expiresAt`. */
  enrollmentToken(name: string, expiresAt: Date): Promise<string> {
    return enrollmentTokenJwt({
      prefix: this.config.NATS_SUBJECT_PREFIX,
      name,
      accountPublicKey: decode(this.accountJwt()).sub,
      signingSeed: this.read(NATS_INIT_FILES.accountSigningSeed),
      expiresAt,
    });
  }

  /** The user JWT of an enrolled agent, for the public key it sent. */
  agentJwt(agent: { userPublicKey: string; accountId: string; region: string; name: string }): Promise<string> {
    return privateAgentJwt({
      ...agent,
      prefix: this.config.NATS_SUBJECT_PREFIX,
      accountPublicKey: decode(this.accountJwt()).sub,
      signingSeed: this.read(NATS_INIT_FILES.accountSigningSeed),
    });
  }

  /**
   * The account JWT with `revoked` (user key → unix seconds) added, re-signed and pushed to the
   * servers; rejects when NATS did not take it. `accountJwt` is the base it was built on.
   */
  async pushRevocations(accountJwt: string, revoked: Readonly<Record<string, number>>): Promise<void> {
    const { NATS_URL: natsUrl, NATS_AUTH_DIR: dir } = this.config;
    if (!natsUrl || !dir) throw new Error('NATS_AUTH_DIR is not set');
    await pushAccountJwt({
      natsUrl,
      security: natsSecurityOf(this.config),
      systemCreds: join(resolve(dir), NATS_INIT_FILES.systemCreds),
      accountJwt: await accountJwtRevoking(accountJwt, this.read(NATS_INIT_FILES.operatorSigningSeed), revoked),
      connectTimeoutSeconds: PUSH_CONNECT_SECONDS,
    });
  }
}
