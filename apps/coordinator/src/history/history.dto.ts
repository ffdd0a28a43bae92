import { isPrivateRegionId, PRIVATE_REGION_ID_PATTERN, RESULT_REGIONS, type ResultRegion } from '#contracts';
import { type Checker, described, Field, oneOf } from '#validation';
import { PageQuery } from '../common/pagination.js';
import { STATS_PERIODS, type StatsPeriod } from './stats.js';

/**
 * GET /api/monitors/{id}/checks. `region` is any known region, not only the monitor's
 * current ones: results from a region since removed stay listed (and filterable) while
 * they are kept; a region without results gives an empty page. `heartbeat` selects a heartbeat
 * monitor's results (docs/decisions/0027-heartbeat-monitors.md); a private region's id its
 * results (docs/decisions/0030-private-regions.md).
 */
const resultRegion: Checker = described(
  (value) =>
    RESULT_REGIONS.includes(value as ResultRegion) || isPrivateRegionId(value)
      ? null
      : `must be one of ${RESULT_REGIONS.join(', ')}, or a private region id`,
  { anyOf: [{ enum: [...RESULT_REGIONS] }, { type: 'string', pattern: PRIVATE_REGION_ID_PATTERN.source }] },
);

export class ListChecksQuery extends PageQuery {
  @Field(resultRegion, { optional: true }) region?: ResultRegion;
}

/** GET /api/monitors/{id}/stats. */
export class StatsQuery {
  @Field(oneOf(STATS_PERIODS), { optional: true }) period?: StatsPeriod;
}
