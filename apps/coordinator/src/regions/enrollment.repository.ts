import { Injectable } from '@nestjs/common';
import { IsNull, Not } from 'typeorm';
import { Database } from '../database/database.js';
import { AgentTokenEntity, PrivateRegionAgentEntity } from './enrollment.entity.js';
import { PrivateRegionEntity } from './private-region.entity.js';

/** What became of an enrollment token presented by an agent. */
export type Exchange =
  | { outcome: 'enrolled' | 'again'; agent: PrivateRegionAgentEntity }
  | { outcome: 'unknown' | 'used' | 'expired' }
  | { outcome: 'elsewhere'; accountId: string; regionId: string };

export interface ExchangeInput {
  tokenHash: string;
  publicKey: string;
  name: string;
  /** The region the agent is configured for. */
  accountId: string;
  regionId: string;
  /** Unix seconds. */
  now: number;
  /** The id of the agent row, should one be made. */
  agentId: string;
}

/** Enrollment tokens and enrolled agents of private regions (docs/decisions/0030-private-regions.md). */
@Injectable()
export class EnrollmentRepository {
  constructor(private readonly db: Database) {}

  async insertToken(token: AgentTokenEntity): Promise<void> {
    await this.db.manager.insert(AgentTokenEntity, token);
  }

  /**
   * Consumes the token for `publicKey` in one transaction: the first agent to present it is
   * enrolled; the same agent presenting it again (its answer was lost) gets its enrollment back;
   * anyone else is refused. An expired token, one whose region is gone, or an agent configured
   * for another region enrolls nobody (and the token stays unused in the last case).
   */
  exchange(input: ExchangeInput): Promise<Exchange> {
    return this.db.transaction(async (m) => {
      const token = await m.findOneBy(AgentTokenEntity, { tokenHash: input.tokenHash });
      if (!token) return { outcome: 'unknown' };
      if (token.accountId !== input.accountId || token.regionId !== input.regionId) {
        return { outcome: 'elsewhere', accountId: token.accountId, regionId: token.regionId };
      }
      if (token.usedAt !== null) {
        const agent =
          token.usedByKey === input.publicKey
            ? await m.findOneBy(PrivateRegionAgentEntity, { tokenId: token.id, revokedAt: IsNull() })
            : null;
        return agent ? { outcome: 'again', agent } : { outcome: 'used' };
      }
      if (token.expiresAt <= input.now) return { outcome: 'expired' };
      if (!(await m.existsBy(PrivateRegionEntity, { accountId: token.accountId, regionId: token.regionId }))) {
        return { outcome: 'unknown' };
      }
      const taken = await m.update(
        AgentTokenEntity,
        { id: token.id, usedAt: IsNull() },
        { usedAt: input.now, usedByKey: input.publicKey },
      );
      if ((taken.affected ?? 0) === 0) return { outcome: 'used' };
      const agent: PrivateRegionAgentEntity = {
        id: input.agentId,
        accountId: token.accountId,
        regionId: token.regionId,
        name: input.name,
        publicKey: input.publicKey,
        tokenId: token.id,
        enrolledAt: input.now,
        revokedAt: null,
      };
      await m.insert(PrivateRegionAgentEntity, agent);
      return { outcome: 'enrolled', agent };
    });
  }

  /** The region's enrolled agents not revoked, oldest first. */
  agents(accountId: string, regionId: string): Promise<PrivateRegionAgentEntity[]> {
    return this.db.manager.find(PrivateRegionAgentEntity, {
      where: { accountId, regionId, revokedAt: IsNull() },
      order: { enrolledAt: 'ASC', id: 'ASC' },
    });
  }

  /**
   * Marks the agent revoked at `at`: 'revoked', or 'already' when it was (so a repeated request
   * can push the revocation again), or 'none' when the region has no such agent.
   */
  async revoke(
    accountId: string,
    regionId: string,
    agentId: string,
    at: number,
  ): Promise<'revoked' | 'already' | 'none'> {
    return this.db.transaction(async (m) => {
      const agent = await m.findOneBy(PrivateRegionAgentEntity, { id: agentId, accountId, regionId });
      if (!agent) return 'none';
      if (agent.revokedAt !== null) return 'already';
      await m.update(PrivateRegionAgentEntity, { id: agentId }, { revokedAt: at });
      return 'revoked';
    });
  }

  /** Every revoked agent's key and instant (unix seconds): the account JWT's revocations. */
  async revocations(): Promise<Record<string, number>> {
    const rows = await this.db.manager.find(PrivateRegionAgentEntity, {
      select: { publicKey: true, revokedAt: true },
      where: { revokedAt: Not(IsNull()) },
      order: { publicKey: 'ASC' },
    });
    return Object.fromEntries(rows.map((row) => [row.publicKey, row.revokedAt ?? 0]));
  }
}
