/**
 * The granular permissions (docs/decisions/0003-auth-permissions-rate-limit.md; the two of maintenance
 * windows: docs/decisions/0026-maintenance-windows.md; the two of private regions:
 * docs/decisions/0030-private-regions.md). A key created without a list has all.
 */
export const PERMISSIONS = [
  'monitors:read',
  'monitors:write',
  'contacts:read',
  'contacts:write',
  'incidents:read',
  'incidents:write',
  'status_pages:read',
  'status_pages:write',
  'account:read',
  'maintenance:read',
  'maintenance:write',
  'regions:read',
  'regions:write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Parses `monitors:read,contacts:read`; unknown names are reported, duplicates folded. */
export function parsePermissionList(list: string): { permissions: Permission[] } | { unknown: string[] } {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = names.filter((n) => !isPermission(n));
  if (unknown.length > 0 || names.length === 0) return { unknown: names.length === 0 ? [''] : unknown };
  return { permissions: PERMISSIONS.filter((p) => names.includes(p)) };
}
