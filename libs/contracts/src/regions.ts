/** The fifteen regions of the API spec, in the spec's order. */
export const REGION_IDS = [
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'eu-central-2',
  'eu-north-1',
  'ap-east-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-southeast-1',
  'ap-southeast-2',
  'sa-east-1',
  'af-south-1',
] as const;

export type RegionId = (typeof REGION_IDS)[number];

/**
 * Where the results of passive monitors come from: a heartbeat's pings, /fail reports and missed
 * deadlines are recorded by the coordinator, not checked from a region
 * (docs/decisions/0027-heartbeat-monitors.md). A pseudo-region in the check history only; never
 * a value of a monitor's `regions`.
 */
export const HEARTBEAT_REGION = 'heartbeat';

/**
 * What a private region's id looks like (docs/decisions/0030-private-regions.md): an account's own
 * region, served only by the agents enrolled for it. Never a public region's id.
 */
export const PRIVATE_REGION_ID_PATTERN = /^[a-z][a-z0-9-]{2,31}$/;

/** A region a monitor may name: a public RegionId, or a private region id of its account. */
export type MonitorRegionId = RegionId | (string & {});

/** Whether `value` has the form of a private region id (and is no public one). Not whether it exists. */
export function isPrivateRegionId(value: unknown): value is string {
  return typeof value === 'string' && PRIVATE_REGION_ID_PATTERN.test(value) && !isRegionId(value);
}

/** Where a recorded check result came from: a region, or HEARTBEAT_REGION. */
export type ResultRegion = MonitorRegionId | typeof HEARTBEAT_REGION;

/** Every public value a result's `region` may have, regions first (private region ids besides). */
export const RESULT_REGIONS: readonly ResultRegion[] = [...REGION_IDS, HEARTBEAT_REGION];

export type Continent = 'North America' | 'Europe' | 'Asia' | 'Oceania' | 'South America' | 'Africa';

export interface Region {
  readonly id: RegionId;
  readonly name: string;
  readonly continent: Continent;
}

const REGION_TABLE: { readonly [K in RegionId]: Omit<Region, 'id'> } = {
  'us-east-1': { name: 'N. Virginia', continent: 'North America' },
  'us-east-2': { name: 'Ohio', continent: 'North America' },
  'us-west-1': { name: 'N. California', continent: 'North America' },
  'us-west-2': { name: 'Oregon', continent: 'North America' },
  'eu-west-1': { name: 'Ireland', continent: 'Europe' },
  'eu-central-1': { name: 'Frankfurt', continent: 'Europe' },
  'eu-central-2': { name: 'Zurich', continent: 'Europe' },
  'eu-north-1': { name: 'Stockholm', continent: 'Europe' },
  'ap-east-1': { name: 'Hong Kong', continent: 'Asia' },
  'ap-northeast-1': { name: 'Tokyo', continent: 'Asia' },
  'ap-northeast-2': { name: 'Seoul', continent: 'Asia' },
  'ap-southeast-1': { name: 'Singapore', continent: 'Asia' },
  'ap-southeast-2': { name: 'Sydney', continent: 'Oceania' },
  'sa-east-1': { name: 'São Paulo', continent: 'South America' },
  'af-south-1': { name: 'Cape Town', continent: 'Africa' },
};

export const REGIONS: readonly Region[] = REGION_IDS.map((id) => ({ id, ...REGION_TABLE[id] }));

const REGION_ID_SET: ReadonlySet<string> = new Set(REGION_IDS);

export function isRegionId(value: unknown): value is RegionId {
  return typeof value === 'string' && REGION_ID_SET.has(value);
}
