import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { lockAccount } from '../auth/account-gate.js';
import { Database } from '../database/database.js';
import { MonitorEntity } from '../monitors/monitor.entity.js';
import { AgentTokenEntity, PrivateRegionAgentEntity } from './enrollment.entity.js';
import { PrivateRegionEntity } from './private-region.entity.js';

/** The region id is taken in the account (the unique index, or the check under the account's lock). */
export class RegionTakenError extends Error {}

/** Monitors still list the region. */
export class RegionInUseError extends Error {
  constructor(readonly monitorIds: string[]) {
    super(`region used by ${monitorIds.length} monitors`);
  }
}

/** Private regions in storage; every query is scoped by account. */
@Injectable()
export class PrivateRegionsRepository {
  constructor(private readonly db: Database) {}

  list(accountId: string): Promise<PrivateRegionEntity[]> {
    return this.db.manager.find(PrivateRegionEntity, { where: { accountId }, order: { regionId: 'ASC' } });
  }

  findOne(accountId: string, regionId: string): Promise<PrivateRegionEntity | null> {
    return this.db.manager.findOneBy(PrivateRegionEntity, { accountId, regionId });
  }

  /** Inserts under the account's lock, so two creates of one id cannot both pass. */
  async create(region: PrivateRegionEntity): Promise<void> {
    try {
      await this.db.transaction(async (m) => {
        await lockAccount(m, this.db.dialect, region.accountId);
        if (await m.existsBy(PrivateRegionEntity, { accountId: region.accountId, regionId: region.regionId })) {
          throw new RegionTakenError();
        }
        await m.insert(PrivateRegionEntity, region);
      });
    } catch (error) {
      if (!(error instanceof RegionTakenError) && (await this.findOne(region.accountId, region.regionId))) {
        throw new RegionTakenError();
      }
      throw error;
    }
  }

  /**
   * Deletes the region unless a monitor of the account lists it (RegionInUseError), judged under the
   * account's lock: a monitor saved with the region meanwhile waits for it (monitors.repository.ts).
   * False when the account has no such region. Its enrollment tokens go with it, and its enrolled
   * agents are marked revoked at `now` (unix seconds): the caller pushes the revocations.
   */
  async delete(accountId: string, regionId: string, now: number): Promise<boolean> {
    return this.db.transaction(async (m) => {
      await lockAccount(m, this.db.dialect, accountId);
      const region = await m.findOneBy(PrivateRegionEntity, { accountId, regionId });
      if (!region) return false;
      // `regions` is JSON text: narrowed by LIKE, decided on the parsed list.
      const candidates = await m
        .createQueryBuilder(MonitorEntity, 'm')
        .select(['m.id', 'm.regions'])
        .where('m.account_id = :accountId', { accountId })
        .andWhere('m.regions LIKE :pattern', { pattern: `%"${regionId}"%` })
        .getMany();
      const users = candidates.filter((monitor) => monitor.regions.includes(regionId)).map((monitor) => monitor.id);
      if (users.length > 0) throw new RegionInUseError(users);
      await m.delete(PrivateRegionEntity, { id: region.id });
      await m.delete(AgentTokenEntity, { accountId, regionId });
      await m.update(PrivateRegionAgentEntity, { accountId, regionId, revokedAt: IsNull() }, { revokedAt: now });
      return true;
    });
  }
}
