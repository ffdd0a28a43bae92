import { PERMISSIONS, type Permission } from '../auth/permissions.js';

/**
 * Roles of dashboard users and what each may do (docs/decisions/0022-users-and-sessions.md):
 * admin = every key permission + managing users and API keys; editor = every key permission;
 * viewer = every `:read` permission (`account:read` among them).
 */
export const ROLES = ['admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

const READ_ONLY: readonly Permission[] = PERMISSIONS.filter((p) => p.endsWith(':read'));

/** The key permissions a role carries, in canonical order. */
export function permissionsOfRole(role: Role): readonly Permission[] {
  return role === 'viewer' ? READ_ONLY : PERMISSIONS;
}

/** Whether a role may manage users and API keys (the `admin` access of routes). */
export function managesUsers(role: Role): boolean {
  return role === 'admin';
}

/**
 * The names `GET /api/me` lists: the role's key permissions, and for admins `users:manage` and
 * `keys:manage` (what no API key can hold).
 */
export function describedPermissions(role: Role): string[] {
  return [...permissionsOfRole(role), ...(managesUsers(role) ? ['users:manage', 'keys:manage'] : [])];
}
