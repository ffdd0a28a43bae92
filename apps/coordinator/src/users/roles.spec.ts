import { describe, expect, it } from '@jest/globals';
import { describedPermissions, isRole, managesUsers, permissionsOfRole, ROLES } from './roles.js';

/** The nine permissions as docs/decisions/0003-auth-permissions-rate-limit.md lists them (not imported). */
const NINE = [
  'monitors:read',
  'monitors:write',
  'contacts:read',
  'contacts:write',
  'incidents:read',
  'incidents:write',
  'status_pages:read',
  'status_pages:write',
  'account:read',
];
const READS = ['monitors:read', 'contacts:read', 'incidents:read', 'status_pages:read', 'account:read'];

describe('roles', () => {
  it.each([
    ['admin', NINE, true, [...NINE, 'users:manage', 'keys:manage']],
    ['editor', NINE, false, NINE],
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
