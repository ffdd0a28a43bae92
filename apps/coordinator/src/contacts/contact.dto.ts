import { boolean, displayName, Field, IgnoreFields, oneOf, plainObject, text } from '#validation';
import { PageQuery } from '../common/pagination.js';
import { CHANNELS, type Channel } from './channels.js';

export const CONTACT_NAME_MAX = 100;
const READ_ONLY = ['id', 'created_at', 'error'];

@IgnoreFields(...READ_ONLY)
export class CreateContactDto {
  @Field(displayName(CONTACT_NAME_MAX)) name!: string;
  @Field(oneOf(CHANNELS)) channel!: Channel;
  @Field(plainObject) details!: Record<string, unknown>;
  @Field(boolean, { optional: true }) active?: boolean;
  @Field(boolean, { optional: true }) down_alerts_only?: boolean;
}

/** PUT: all optional; `channel` is accepted only when it equals the stored one. */
@IgnoreFields(...READ_ONLY)
export class UpdateContactDto {
  @Field(displayName(CONTACT_NAME_MAX), { optional: true }) name?: string;
  @Field(text({ max: 32 }), { optional: true }) channel?: string;
  @Field(plainObject, { optional: true }) details?: Record<string, unknown>;
  @Field(boolean, { optional: true }) active?: boolean;
  @Field(boolean, { optional: true }) down_alerts_only?: boolean;
}

export const CONTACT_SORTS = ['name', 'created_at'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

export class ListContactsQuery extends PageQuery {
  @Field(text({ max: CONTACT_NAME_MAX }), { optional: true }) search?: string;
  @Field(oneOf(CHANNELS), { optional: true }) channel?: Channel;
  @Field(oneOf(CONTACT_SORTS), { optional: true }) sort?: ContactSort;
}
