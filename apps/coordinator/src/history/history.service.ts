import { Inject, Injectable } from '@nestjs/common';
import { RESULT_REGIONS, type ResultRegion } from '#contracts';
import { CLOCK, type Clock } from '#runtime';
import { paginationOf, pageRequest, type Pagination } from '../common/pagination.js';
import { notFound, validationError } from '../errors.js';
import { MonitorsRepository } from '../monitors/monitors.repository.js';
import { PrivateRegionsRepository } from '../regions/private-regions.repository.js';
import { CheckResultsRepository } from './check-results.repository.js';
import type { ListChecksQuery, StatsQuery } from './history.dto.js';
import { toCheckJson, type CheckJson } from './history.mapper.js';
import {
  combine,
  NO_FIGURES,
  periodWindow,
  regionOrder,
  toStatsFiguresJson,
  type Figures,
  type MonitorStatsJson,
} from './stats.js';

export const DEFAULT_CHECKS_PER_PAGE = 50;

/** A monitor's check history and statistics, for its own account only. */
@Injectable()
export class HistoryService {
  constructor(
    private readonly monitors: MonitorsRepository,
    private readonly results: CheckResultsRepository,
    private readonly privateRegions: PrivateRegionsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async checks(
    accountId: string,
    monitorId: string,
    query: ListChecksQuery,
  ): Promise<{ checks: CheckJson[]; pagination: Pagination }> {
    await this.monitorRegions(accountId, monitorId);
    if (query.region !== undefined) await this.assertRegionKnown(accountId, query.region);
    const page = pageRequest(query, DEFAULT_CHECKS_PER_PAGE);
    const { total, rows } = await this.results.list({
      monitorId,
      region: query.region,
      order: query.order ?? 'desc',
      page,
    });
    return { checks: rows.map(toCheckJson), pagination: paginationOf(page, total) };
  }

  /**
   * 24h from raw results (p95 exact); 7d, 30d and 90d from the daily roll-ups of those UTC
   * days up to today. Every stored result is added to its day's roll-up at once, so today's
   * is today's raw data; a period's p95 is that of the merged daily histograms (stats.combine).
   */
  async stats(accountId: string, monitorId: string, query: StatsQuery): Promise<MonitorStatsJson> {
    const monitorRegions = await this.monitorRegions(accountId, monitorId);
    const period = query.period ?? '24h';
    const window = periodWindow(period, Math.floor(this.clock.now() / 1000));
    let overall: Figures;
    const byRegion = new Map<ResultRegion, Figures>();
    if (window.source === 'raw') {
      const raw = await this.results.rawFigures(monitorId, window.from, window.to);
      overall = raw.overall;
      for (const { region, ...figures } of raw.regions) byRegion.set(region, figures);
    } else {
      const rollups = await this.results.rollups(monitorId, window.fromDay, window.toDay);
      overall = combine(rollups);
      const parts = new Map<ResultRegion, Figures[]>();
      for (const rollup of rollups) parts.set(rollup.region, [...(parts.get(rollup.region) ?? []), rollup]);
      for (const [region, list] of parts) byRegion.set(region, combine(list));
    }
    return {
      period,
      from: window.from,
      to: window.to,
      overall: toStatsFiguresJson(overall),
      regions: regionOrder(monitorRegions, byRegion.keys()).map((region) => ({
        region,
        ...toStatsFiguresJson(byRegion.get(region) ?? NO_FIGURES),
      })),
    };
  }

  /**
   * A `region` filter names a public region (or `heartbeat`) or one of the account's own private
   * regions; any other id is a 422 like an unknown public one (docs/decisions/0030-private-regions.md).
   */
  private async assertRegionKnown(accountId: string, region: string): Promise<void> {
    if (RESULT_REGIONS.includes(region)) return;
    const own = await this.privateRegions.list(accountId);
    if (own.some((r) => r.regionId === region)) return;
    throw validationError([
      {
        field: 'region',
        message: `must be one of ${RESULT_REGIONS.join(', ')}, or one of this account's private regions`,
      },
    ]);
  }

  /** The monitor's regions; MONITOR_NOT_FOUND when it is not the account's. */
  private async monitorRegions(accountId: string, monitorId: string): Promise<ResultRegion[]> {
    const record = await this.monitors.findOne(accountId, monitorId);
    if (!record) throw notFound.monitor();
    return record.monitor.regions;
  }
}
