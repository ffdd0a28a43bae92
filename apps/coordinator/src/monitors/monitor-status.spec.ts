import { describe, expect, it } from '@jest/globals';
import type { LastStatus } from './monitor.entity.js';
import { effectiveStatus, UNKNOWN_AFTER_INTERVALS, type EffectiveStatus } from './monitor-status.js';

const CREATED = 1_767_225_600;
const INTERVAL = 60;

describe('effective status', () => {
  it('waits three intervals', () => {
    expect(UNKNOWN_AFTER_INTERVALS).toBe(3);
  });

  it.each<[string, LastStatus, number | null, number, EffectiveStatus]>([
    // [case, stored status, last_checked_at (seconds after CREATED), now (seconds after CREATED), expected]
    ['a new monitor', 'pending', null, 0, 'pending'],
    ['pending, exactly three intervals after creation', 'pending', null, 180, 'pending'],
    ['pending, one second past three intervals', 'pending', null, 181, 'unknown'],
    ['up, checked just now', 'up', 500, 500, 'up'],
    ['up, last checked exactly three intervals ago', 'up', 500, 680, 'up'],
    ['up, last checked just over three intervals ago', 'up', 500, 681, 'unknown'],
    ['down, last checked long ago', 'down', 500, 86_400, 'unknown'],
    ['down, checked two intervals ago', 'down', 500, 620, 'down'],
    // A decided result counts from when it was checked, not from creation.
    ['up long after creation, checked recently', 'up', 10_000, 10_100, 'up'],
    // A clock behind the last check (another replica's) is not stale.
    ['up, checked "in the future"', 'up', 500, 400, 'up'],
  ])('%s (stored %s)', (_case, lastStatus, checked, now, expected) => {
    const input = {
      lastStatus,
      lastCheckedAt: checked === null ? null : CREATED + checked,
      createdAt: CREATED,
      checkInterval: INTERVAL,
      monitorType: 'https' as const,
    };
    expect(effectiveStatus(input, CREATED + now)).toBe(expected);
  });

  it('scales with the check interval', () => {
    const monitor = {
      lastStatus: 'up' as const,
      lastCheckedAt: CREATED,
      createdAt: CREATED,
      checkInterval: 600,
      monitorType: 'tcp' as const,
    };
    expect(effectiveStatus(monitor, CREATED + 1_800)).toBe('up');
    expect(effectiveStatus(monitor, CREATED + 1_801)).toBe('unknown');
    expect(effectiveStatus({ ...monitor, checkInterval: 10 }, CREATED + 31)).toBe('unknown');
  });

  it.each<[LastStatus, number | null]>([
    ['pending', null],
    ['up', 500],
    ['down', 500],
  ])('a heartbeat is never unknown (stored %s, a year without a result)', (lastStatus, checked) => {
    const heartbeat = {
      lastStatus,
      lastCheckedAt: checked === null ? null : CREATED + checked,
      createdAt: CREATED,
      checkInterval: INTERVAL,
      monitorType: 'heartbeat' as const,
    };
    expect(effectiveStatus(heartbeat, CREATED + 365 * 86_400)).toBe(lastStatus);
  });
});
