import { arrayOf, boolean, described, displayName, Field, oneOf, text } from '#validation';
import { PERMISSIONS } from '../auth/permissions.js';
import { PageQuery } from '../common/pagination.js';
import { emailAddress } from '../contacts/channels.js';
import { newPassword, offeredPassword } from './passwords.js';
import { ROLES } from './roles.js';

export const USER_NAME_MAX = 100;
export const KEY_NAME_MAX = 100;
export const DEFAULT_USERS_PER_PAGE = 50;
export const DEFAULT_KEYS_PER_PAGE = 50;

/** A one-time token as it travels in a setup or set-password URL. */
const oneTimeToken = described(
  (value) => (typeof value === 'string' && value.length > 0 && value.length <= 256 ? null : 'must be a token string'),
  { type: 'string', minLength: 1, maxLength: 256, writeOnly: true },
);

/** An email offered at sign-in: any string of an email's length (a malformed one is a mismatch, never a 422). */
const offeredEmail = text({ max: 254, min: 1 });

export class SignInDto {
  @Field(offeredEmail) email!: string;
  @Field(offeredPassword) password!: string;
}

export class SetupDto {
  @Field(oneTimeToken) token!: string;
  @Field(emailAddress) email!: string;
  @Field(displayName(USER_NAME_MAX)) name!: string;
  @Field(newPassword) password!: string;
}

export class SetPasswordDto {
  @Field(oneTimeToken) token!: string;
  @Field(newPassword) password!: string;
}

export class CreateUserDto {
  @Field(emailAddress) email!: string;
  @Field(displayName(USER_NAME_MAX)) name!: string;
  @Field(oneOf(ROLES)) role!: (typeof ROLES)[number];
}

export class UpdateUserDto {
  @Field(displayName(USER_NAME_MAX), { optional: true }) name?: string;
  @Field(oneOf(ROLES), { optional: true }) role?: (typeof ROLES)[number];
  @Field(boolean, { optional: true }) disabled?: boolean;
}

export class CreateKeyDto {
  @Field(displayName(KEY_NAME_MAX)) name!: string;
  @Field(arrayOf(oneOf(PERMISSIONS), { min: 1, max: PERMISSIONS.length, unique: true }), { optional: true })
  permissions?: (typeof PERMISSIONS)[number][];
}

export class ListUsersQuery extends PageQuery {}
export class ListKeysQuery extends PageQuery {}
