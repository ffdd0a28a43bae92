import { RESULT_REGIONS, type ResultRegion } from '#contracts';
import { Field, oneOf } from '#validation';
import { PageQuery } from '../common/pagination.js';
import { STATS_PERIODS, type StatsPeriod } from './stats.js';

/**
 * GET /api/monitors/{id}/checks. `region` is any known region, not only the monitor's
 * current ones: results from a region since removed stay listed (and filterable) while
 * they are kept; a region without results gives an empty page. `heartbeat` selects a heartbeat
 * monitor's results (docs/decisions/0027-heartbeat-monitors.md).
 */
export class ListChecksQuery extends PageQuery {
  @Field(oneOf(RESULT_REGIONS), { optional: true }) region?: ResultRegion;
}

/** GET /api/monitors/{id}/stats. */
export class StatsQuery {
  @Field(oneOf(STATS_PERIODS), { optional: true }) period?: StatsPeriod;
}
