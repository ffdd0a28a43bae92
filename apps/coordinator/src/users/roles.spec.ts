import { describe, expect, it } from '@jest/globals';
import { describedPermissions, isRole, managesUsers, permissionsOfRole, ROLES } from './roles.js';

/**
 * The key permissions as docs/decisions/0003-auth-permissions-rate-limit.md lists them, and the
 * two of maintenance windows (docs/decisions/0026-maintenance-windows.md) and of private regions
 * (docs/decisions/0030-private-regions.md); not imported.
 */
const ALL = [
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
];
const READS = [
  'monitors:read',
  'contacts:read',
  'incidents:read',
  'status_pages:read',
  'account:read',
  'maintenance:read',
  'regions:read',
];

describe('roles', () => {
  it.each([
    ['admin', ALL, true, [...ALL, 'users:manage', 'keys:manage']],
    ['editor', ALL, false, ALL],
    ['viewer', READS, false, READS],
  ] as const)(
    '%s: its key permissions, whether it manages users and keys, what /api/me lists',
    (role, keys, admin, listed) => {
      expect([...permissionsOfRole(role)]).toEqual(keys);
      expect(managesUsers(role)).toBe(admin);
      expect(describedPermissions(role)).toEqual(listed);
    },
  );

  it.each([
    ['admin', true],
    ['viewer', true],
    ['Admin', false],
    ['owner', false],
    ['', false],
    [1, false],
  ])('%p is a role: %s', (value, ok) => {
    expect(isRole(value)).toBe(ok);
  });

  it('are exactly three', () => {
    expect(ROLES).toEqual(['admin', 'editor', 'viewer']);
  });
});
