import {
  arrayOf,
  boolean,
  type Checker,
  described,
  displayName,
  Field,
  IgnoreFields,
  objectIdString,
} from '#validation';
import { PageQuery } from '../common/pagination.js';
import { REDACTED } from '../contacts/channels.js';

export const STATUS_PAGE_LIMITS = { name: 100, monitors: 20, periods: [7, 30, 90], defaultPeriod: 30 } as const;
export const DEFAULT_STATUS_PAGES_PER_PAGE = 20;

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/i;

const monitorList = arrayOf(objectIdString, { min: 1, max: STATUS_PAGE_LIMITS.monitors, unique: true });
const period: Checker = described(
  (value) =>
    typeof value === 'number' && (STATUS_PAGE_LIMITS.periods as readonly number[]).includes(value)
      ? null
      : 'must be 7, 30 or 90',
  { enum: [...STATUS_PAGE_LIMITS.periods] },
);
/** A host name, or "" (clears it). */
const customDomain: Checker = described(
  (value) =>
    typeof value === 'string' && (value === '' || HOSTNAME.test(value))
      ? null
      : 'must be a host name such as status.example.com',
  { type: 'string', maxLength: 253 },
);
const BASIC_AUTH = /^[^:\p{Cc}]{1,100}:[^\p{Cc}]{1,200}$/u;
/** `user:password` (user without a colon, no control characters) or "" (clears it). */
const basicAuth: Checker = described(
  (value) => {
    if (value === REDACTED) return `must be the real value, not ${REDACTED}`;
    return typeof value === 'string' && (value === '' || BASIC_AUTH.test(value))
      ? null
      : 'must be "user:password" (1 to 100 characters without a colon, a colon, 1 to 200 characters; no control characters)';
  },
  { type: 'string' },
);
/** On update, [REDACTED] also passes: it keeps the stored value (the service refuses it when none is stored). */
const basicAuthUpdate: Checker = described((value) => (value === REDACTED ? null : basicAuth(value)), {
  type: 'string',
});

/** Read-only fields a client may send back unchanged; they are ignored (docs/decisions/0002-wire-conventions.md). */
const READ_ONLY = ['id', 'url', 'created_at', 'updated_at'];

@IgnoreFields(...READ_ONLY)
export class CreateStatusPageDto {
  @Field(displayName(STATUS_PAGE_LIMITS.name)) name!: string;
  @Field(monitorList) monitors!: string[];
  @Field(period, { optional: true }) period?: number;
  @Field(customDomain, { optional: true, nullable: true }) custom_domain?: string | null;
  @Field(boolean, { optional: true }) show_incident_reasons?: boolean;
  @Field(basicAuth, { optional: true, nullable: true }) basic_auth?: string | null;
}

/** PUT and PATCH: any subset of the fields; only supplied fields change. */
@IgnoreFields(...READ_ONLY)
export class UpdateStatusPageDto {
  @Field(displayName(STATUS_PAGE_LIMITS.name), { optional: true }) name?: string;
  @Field(monitorList, { optional: true }) monitors?: string[];
  @Field(period, { optional: true }) period?: number;
  @Field(customDomain, { optional: true, nullable: true }) custom_domain?: string | null;
  @Field(boolean, { optional: true }) show_incident_reasons?: boolean;
  @Field(basicAuthUpdate, { optional: true, nullable: true }) basic_auth?: string | null;
}

export class ListStatusPagesQuery extends PageQuery {}
