import { Inject, Injectable, Logger } from '@nestjs/common';
import { REGIONS, type Continent } from '#contracts';
import { CLOCK, newObjectId, unixSeconds, type Clock } from '#runtime';
import { AppError, notFound, validationError } from '../errors.js';
import type { CreateRegionDto } from './region.dto.js';
import { EnrollmentService } from './enrollment.service.js';
import { PrivateAgents } from './private-agents.js';
import type { PrivateRegionEntity } from './private-region.entity.js';
import { PrivateRegionsRepository, RegionInUseError, RegionTakenError } from './private-regions.repository.js';

export interface PublicRegionJson {
  id: string;
  name: string;
  continent: Continent;
  type: 'public';
}

export interface PrivateRegionJson {
  id: string;
  name: string;
  type: 'private';
  agents_online: number;
  created_at: number;
}

/** Every region an account may use: the public ones, then its own (docs/decisions/0030-private-regions.md). */
@Injectable()
export class RegionsService {
  private readonly logger = new Logger('Regions');

  constructor(
    private readonly regions: PrivateRegionsRepository,
    private readonly agents: PrivateAgents,
    private readonly enrollment: EnrollmentService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(accountId: string): Promise<(PublicRegionJson | PrivateRegionJson)[]> {
    const own = await this.regions.list(accountId);
    return [
      ...REGIONS.map((r) => ({ id: r.id, name: r.name, continent: r.continent, type: 'public' as const })),
      ...own.map((r) => this.toJson(r)),
    ];
  }

  async get(accountId: string, regionId: string): Promise<PrivateRegionJson> {
    const region = await this.regions.findOne(accountId, regionId);
    if (!region) throw notFound.region();
    return this.toJson(region);
  }

  async create(accountId: string, dto: CreateRegionDto): Promise<PrivateRegionJson> {
    const region = {
      id: newObjectId(this.clock.now()),
      accountId,
      regionId: dto.id,
      name: dto.name,
      createdAt: unixSeconds(this.clock),
    } satisfies PrivateRegionEntity;
    try {
      await this.regions.create(region);
    } catch (error) {
      if (error instanceof RegionTakenError) {
        throw validationError([{ field: 'id', message: 'is already a region of this account' }]);
      }
      throw error;
    }
    return this.toJson(region);
  }

  /**
   * Deletes the region, its enrollment tokens and its agents' credentials: the revocations are
   * pushed to NATS now, or by the next sync if NATS does not answer (EnrollmentService).
   */
  async delete(accountId: string, regionId: string): Promise<void> {
    try {
      if (!(await this.regions.delete(accountId, regionId, unixSeconds(this.clock)))) throw notFound.region();
      await this.enrollment.sync().catch((error: unknown) => {
        this.logger.error(
          `revocations of region ${regionId}'s agents not pushed to NATS yet (retried): ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    } catch (error) {
      if (!(error instanceof RegionInUseError)) throw error;
      throw new AppError(
        'REGION_IN_USE',
        `${error.monitorIds.length} monitors check from this region; remove it from them first (${error.monitorIds.slice(0, 10).join(', ')}).`,
      );
    }
  }

  private toJson(region: PrivateRegionEntity): PrivateRegionJson {
    return {
      id: region.regionId,
      name: region.name,
      type: 'private',
      agents_online: this.agents.online(region.accountId, region.regionId),
      created_at: region.createdAt,
    };
  }
}
