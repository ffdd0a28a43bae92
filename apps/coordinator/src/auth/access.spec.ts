import { describe, expect, it } from '@jest/globals';
import { permissionsOfRole, type Role } from '../users/roles.js';
import { accessRefusal } from './auth.guard.js';
import type { Principal } from './auth.service.js';
import { PERMISSIONS, type Permission } from './permissions.js';

const key = (permissions: readonly Permission[]): Principal => ({
  accountId: 'a',
  keyId: 'k',
  user: null,
  permissions: new Set(permissions),
});

const user = (role: Role): Principal => ({
  accountId: 'a',
  keyId: null,
  user: {
    sessionId: 's',
    userId: 'u',
    accountId: 'a',
    role,
    permissions: new Set(permissionsOfRole(role)),
    csrfToken: 'c',
  },
  permissions: new Set(permissionsOfRole(role)),
});

describe('accessRefusal: who may call a route', () => {
  it.each([
    ['a key with every permission', key(PERMISSIONS), 'monitors:write', null],
    ['a key without it', key(['monitors:read']), 'monitors:write', /API key lacks the permission monitors:write/],
    ['a key with every permission', key(PERMISSIONS), 'session', /API keys cannot use it/],
    ['a key with every permission', key(PERMISSIONS), 'admin', /API keys cannot use it/],
    ['an admin', user('admin'), 'monitors:write', null],
    ['an admin', user('admin'), 'session', null],
    ['an admin', user('admin'), 'admin', null],
    ['an editor', user('editor'), 'status_pages:write', null],
    ['an editor', user('editor'), 'session', null],
    ['an editor', user('editor'), 'admin', /needs an admin/],
    ['a viewer', user('viewer'), 'incidents:read', null],
    ['a viewer', user('viewer'), 'account:read', null],
    ['a viewer', user('viewer'), 'contacts:write', /role \(viewer\) lacks the permission contacts:write/],
    ['a viewer', user('viewer'), 'admin', /needs an admin/],
  ] as const)('%s on a %s route', (_who, principal, access, refusal) => {
    const answer = accessRefusal(principal, access);
    if (refusal === null) expect(answer).toBeNull();
    else expect(answer).toMatch(refusal);
  });
});
