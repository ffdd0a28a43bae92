import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import { MaintenanceCalendar } from './maintenance-calendar.js';
import { MaintenanceWindowEntity } from './maintenance-window.entity.js';
import type { MaintenanceWindowsRepository } from './maintenance-windows.repository.js';
import type { MaintenanceWindowsService } from './maintenance-windows.service.js';

const ACCOUNT = 'a'.repeat(24);
const M1 = '1'.repeat(24);
const M2 = '2'.repeat(24);
const T = Date.parse('2026-05-01T10:00:00Z') / 1000;

const window = (id: string, fields: Partial<MaintenanceWindowEntity>): MaintenanceWindowEntity =>
  Object.assign(new MaintenanceWindowEntity(), {
    id,
    accountId: ACCOUNT,
    name: id,
    monitors: [],
    startsAt: T,
    endsAt: T + 3600,
    rrule: null,
    duration: null,
    timezone: 'UTC',
    active: true,
    createdAt: T,
    updatedAt: T,
    ...fields,
  });

function setup(stored: MaintenanceWindowEntity[]) {
  const listeners: ((w: MaintenanceWindowEntity, deleted: boolean) => void)[] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const repository = {
    all: async () => {
      if (hold) await new Promise<void>((resolve) => (release = resolve));
      return stored.map((w) => ({ ...w }));
    },
  } as unknown as MaintenanceWindowsRepository;
  const service = { onChange: (l: (w: MaintenanceWindowEntity, d: boolean) => void) => listeners.push(l) };
  const calendar = new MaintenanceCalendar(
    repository,
    service as unknown as MaintenanceWindowsService,
    new ManualClock(T * 1000),
  );
  return {
    calendar,
    changed: (w: MaintenanceWindowEntity, deleted = false) => listeners.forEach((l) => l(w, deleted)),
    holdReads: () => (hold = true),
    releaseRead: () => release?.(),
  };
}

describe('MaintenanceCalendar', () => {
  it('answers per monitor from the loaded windows: [] covers all, a list only its monitors, the latest end wins', async () => {
    const s = setup([
      window('w1', { monitors: [M1], endsAt: T + 600 }),
      window('w2', { monitors: [], endsAt: T + 1200 }),
      window('w3', { monitors: [M2], endsAt: T + 9000, active: false }),
    ]);
    await s.calendar.reload();
    expect(s.calendar.coverOf(ACCOUNT, M1, T + 10)).toEqual({ endsAt: T + 1200, windowId: 'w2' });
    expect(s.calendar.coverOf(ACCOUNT, M2, T + 10)).toEqual({ endsAt: T + 1200, windowId: 'w2' });
    expect(s.calendar.coverOf(ACCOUNT, M1, T + 1200)).toBeNull();
    expect(s.calendar.coverOf(ACCOUNT, M1, T - 1)).toBeNull();
    expect(s.calendar.coverOf('b'.repeat(24), M1, T + 10)).toBeNull();
  });

  it('takes changes made through this process at once, deletions too', async () => {
    const s = setup([]);
    await s.calendar.reload();
    expect(s.calendar.coverOf(ACCOUNT, M1, T + 10)).toBeNull();
    const w = window('w1', { monitors: [M1] });
    s.changed(w);
    expect(s.calendar.coverOf(ACCOUNT, M1, T + 10)).toEqual({ endsAt: T + 3600, windowId: 'w1' });
    s.changed({ ...w, endsAt: T + 60 });
    expect(s.calendar.coverOf(ACCOUNT, M1, T + 10)).toEqual({ endsAt: T + 60, windowId: 'w1' });
    s.changed(w, true);
    expect(s.calendar.coverOf(ACCOUNT, M1, T + 10)).toBeNull();
  });

  it('a change made while a reload reads the table is not lost by it', async () => {
    const s = setup([]);
    s.holdReads();
    const reloading = s.calendar.reload();
    s.changed(window('w1', { monitors: [M1] }));
    s.releaseRead();
    await reloading;
    expect(s.calendar.coverOf(ACCOUNT, M1, T + 10)).toEqual({ endsAt: T + 3600, windowId: 'w1' });
  });

  it('lists the active windows of an account with what they are now', async () => {
    const s = setup([window('w1', {}), window('w2', { active: false })]);
    await s.calendar.reload();
    expect(s.calendar.windowsOf(ACCOUNT, T + 10).map((x) => [x.window.id, x.at.state])).toEqual([
      ['w1', 'in_progress'],
    ]);
  });

  it('tells which monitors any window names, whatever its state (the lookups at start are only for those)', async () => {
    const listed = setup([window('w1', { monitors: [M1], active: false })]);
    await listed.calendar.onModuleInit();
    expect(listed.calendar.concerns(ACCOUNT, M1)).toBe(true);
    expect(listed.calendar.concerns(ACCOUNT, M2)).toBe(false);
    expect(listed.calendar.concerns('b'.repeat(24), M1)).toBe(false);
    const all = setup([window('w2', { monitors: [] })]);
    await all.calendar.onModuleInit();
    expect(all.calendar.concerns(ACCOUNT, M2)).toBe(true);
    listed.calendar.onModuleDestroy();
    all.calendar.onModuleDestroy();
  });
});
