import { isRegionId, PRIVATE_REGION_ID_PATTERN, REGION_IDS } from '#contracts';
import { type Checker, described, displayName, Field, IgnoreFields } from '#validation';

export const REGION_LIMITS = { name: 100 } as const;

/** A new private region's id: the pattern of docs/decisions/0030-private-regions.md, never a public id. */
const privateRegionId: Checker = described(
  (value) => {
    if (typeof value !== 'string' || !PRIVATE_REGION_ID_PATTERN.test(value)) {
      return 'must be 3 to 32 lowercase letters, digits or dashes, starting with a letter';
    }
    return isRegionId(value) ? `must not be a public region id (${REGION_IDS.join(', ')})` : null;
  },
  { type: 'string', pattern: PRIVATE_REGION_ID_PATTERN.source, description: 'Not a public region id.' },
);

/** Read-only fields a client may send back unchanged (docs/decisions/0002-wire-conventions.md). */
const READ_ONLY = ['type', 'agents_online', 'created_at'];

/** `POST /api/regions`. */
@IgnoreFields(...READ_ONLY)
export class CreateRegionDto {
  @Field(privateRegionId) id!: string;
  @Field(displayName(REGION_LIMITS.name)) name!: string;
}
