import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { EnrollReply, EnrollRequestDto } from '#contracts';
import { CLOCK, isObjectId, Mutex, newObjectId, unixSeconds, type Clock } from '#runtime';
import { AppError, notFound } from '../errors.js';
import { NatsAuthority } from '../nats-auth/nats-authority.js';
import { EnrollmentRepository } from './enrollment.repository.js';
import { PrivateAgents } from './private-agents.js';
import { PrivateRegionsRepository } from './private-regions.repository.js';

/** How long an enrollment token can be used (docs/decisions/0030-private-regions.md). */
export const ENROLL_TOKEN_TTL_SECONDS = 24 * 3600;
/** How often each replica makes sure the servers hold every revocation (a push lost to an outage, or overwritten). */
export const REVOCATION_SYNC_MS = 60_000;

export interface AgentTokenJson {
  token: string;
  account_id: string;
  region: string;
  created_at: number;
  expires_at: number;
}

export interface EnrolledAgentJson {
  id: string;
  name: string;
  public_key: string;
  enrolled_at: number;
  online: boolean;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Enrollment of private regions' agents (docs/decisions/0030-private-regions.md): one-time tokens,
 * their exchange for NATS credentials, the enrolled agents and their revocation, which the servers
 * enforce once the account JWT carrying it is pushed.
 */
@Injectable()
export class EnrollmentService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Enrollment');
  private readonly pushing = new Mutex();
  /** The account JWT and revocations last taken by the servers from this replica. */
  private lastPushed: string | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly repository: EnrollmentRepository,
    private readonly regions: PrivateRegionsRepository,
    private readonly authority: NatsAuthority,
    private readonly presence: PrivateAgents,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.authority.enabled) return;
    void this.syncQuietly();
    this.timer = setInterval(() => void this.syncQuietly(), REVOCATION_SYNC_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A one-time token for an agent of the account's region; the token is shown here only. */
  async createToken(accountId: string, regionId: string): Promise<AgentTokenJson> {
    await this.ownRegion(accountId, regionId);
    if (!this.authority.enabled) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'Agent enrollment needs NATS with JWT authentication: the operator sets NATS_AUTH_DIR to the directory `npm run cli -- nats init` wrote (docs/operations.md, "Private regions").',
      );
    }
    const now = unixSeconds(this.clock);
    const id = newObjectId(this.clock.now());
    const expiresAt = now + ENROLL_TOKEN_TTL_SECONDS;
    const token = await this.authority.enrollmentToken(`enroll:${id}`, new Date(expiresAt * 1000));
    await this.repository.insertToken({
      id,
      accountId,
      regionId,
      tokenHash: sha256(token),
      createdAt: now,
      expiresAt,
      usedAt: null,
      usedByKey: null,
    });
    return { token, account_id: accountId, region: regionId, created_at: now, expires_at: expiresAt };
  }

  /** An agent's enrollment request, answered over NATS (never throws: the agent gets a reason). */
  async exchange(request: EnrollRequestDto): Promise<EnrollReply> {
    const result = await this.repository.exchange({
      tokenHash: sha256(request.token),
      publicKey: request.public_key,
      name: request.agent_id,
      accountId: request.account_id,
      regionId: request.region,
      now: unixSeconds(this.clock),
      agentId: newObjectId(this.clock.now()),
    });
    if (!('agent' in result)) {
      const reason =
        result.outcome === 'elsewhere'
          ? `the token is for ${result.accountId}/${result.regionId}, not AGENT_PRIVATE_REGION ${request.account_id}/${request.region}`
          : {
              unknown: 'the enrollment token is not known (its region may have been deleted)',
              used: 'the enrollment token was already used; create a new one',
              expired: 'the enrollment token has expired; create a new one',
            }[result.outcome];
      this.logger.warn(`enrollment of agent ${request.agent_id} refused: ${reason}`);
      return { ok: false, error: reason };
    }
    const { agent } = result;
    const jwt = await this.authority.agentJwt({
      userPublicKey: agent.publicKey,
      accountId: agent.accountId,
      region: agent.regionId,
      name: agent.id,
    });
    this.logger.log(
      `agent ${agent.name} (${agent.id}) enrolled in private region ${agent.regionId} of account ${agent.accountId}`,
    );
    return { ok: true, jwt, agent: agent.id, account_id: agent.accountId, region: agent.regionId };
  }

  async agents(accountId: string, regionId: string): Promise<EnrolledAgentJson[]> {
    await this.ownRegion(accountId, regionId);
    const rows = await this.repository.agents(accountId, regionId);
    const online = this.presence.onlineIds(accountId, regionId);
    return rows.map((agent) => ({
      id: agent.id,
      name: agent.name,
      public_key: agent.publicKey,
      enrolled_at: agent.enrolledAt,
      online: online.has(agent.name),
    }));
  }

  /**
   * Revokes an enrolled agent: recorded first, then pushed to NATS, which disconnects it and
   * refuses it from then on. When NATS does not take it now, 503: it stays recorded, is pushed
   * again every REVOCATION_SYNC_MS, and repeating the request pushes it again.
   */
  async revoke(accountId: string, regionId: string, agentId: string): Promise<void> {
    await this.ownRegion(accountId, regionId);
    const outcome = isObjectId(agentId)
      ? await this.repository.revoke(accountId, regionId, agentId, unixSeconds(this.clock))
      : 'none';
    if (outcome === 'none') throw notFound.agent();
    try {
      await this.sync();
    } catch (error) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `The agent is revoked, but NATS has not taken the revocation yet (${error instanceof Error ? error.message : String(error)}); it is pushed again every minute, or repeat this request.`,
      );
    }
  }

  /**
   * Pushes the account JWT with every recorded revocation when it differs from what this replica
   * last pushed (a CLI revocation in NATS_AUTH_DIR or a new revocation in the database).
   */
  async sync(): Promise<void> {
    if (!this.authority.enabled) return;
    await this.pushing.run(async () => {
      const revoked = await this.repository.revocations();
      const base = this.authority.accountJwt();
      const state = JSON.stringify([base, revoked]);
      if (Object.keys(revoked).length === 0 || state === this.lastPushed) return;
      await this.authority.pushRevocations(base, revoked);
      this.lastPushed = state;
      this.logger.log(`NATS holds ${Object.keys(revoked).length} revoked agents`);
    });
  }

  private async syncQuietly(): Promise<void> {
    try {
      await this.sync();
    } catch (error) {
      this.logger.error(
        `revocations not pushed to NATS yet: ${error instanceof Error ? error.message : String(error)}; next try in ${REVOCATION_SYNC_MS / 1000} s`,
      );
    }
  }

  private async ownRegion(accountId: string, regionId: string): Promise<void> {
    if (!(await this.regions.findOne(accountId, regionId))) throw notFound.region();
  }
}
