/** The key permissions of the API (apps/coordinator/src/auth/permissions.ts, the same order). */
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
] as const;
