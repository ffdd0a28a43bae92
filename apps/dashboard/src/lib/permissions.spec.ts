import { describe, expect, it } from '@jest/globals';
import { PERMISSIONS as SERVER_PERMISSIONS } from '../../../coordinator/src/auth/permissions.ts';
import { PERMISSIONS } from './permissions.ts';

describe('the dashboard permissions', () => {
  it("are the API's key permissions, in the same order (a new permission must show in the key form)", () => {
    expect([...PERMISSIONS]).toEqual([...SERVER_PERMISSIONS]);
  });
});
