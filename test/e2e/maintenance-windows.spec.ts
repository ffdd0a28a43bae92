import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { MaintenanceCalendar } from '../../apps/coordinator/src/maintenance/maintenance-calendar.js';
import { MaintenanceWindowEntity } from '../../apps/coordinator/src/maintenance/maintenance-window.entity.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { Dispatcher } from '../../apps/coordinator/src/notify/dispatcher.js';
import { nextSlot, rotationPlan } from '../../apps/coordinator/src/scheduling/rotation.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { SwitchableTarget } from '../support/target.js';
import { waitFor } from '../support/wait.js';

/**
 * Maintenance windows end to end (docs/decisions/0026-maintenance-windows.md), in embedded mode:
 * a real local target goes down inside a window: its checks go on, flagged `in_maintenance`, no
 * incident opens and the webhook hears nothing; the window ends with the target still down: a
 * new outage, with its incident and its notification. The API around it on both databases.
 */
describe('maintenance windows: the effect on status', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  const target = new SwitchableTarget();
  const hooks = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));
  let monitorId: string;

  const monitor = async () => (await api.get(`/api/monitors/${monitorId}`)).body.data;
  const checks = async () => {
    await c.app.get(ResultsWriter).flush();
    return (await api.get(`/api/monitors/${monitorId}/checks?per_page=100&order=asc`)).body.data.checks as any[];
  };
  const incidents = async () => (await api.get(`/api/incidents?monitor_id=${monitorId}`)).body.data.incidents as any[];
  const downs = () => hooks.requests.filter((r) => (r.json as { event?: string }).event === 'monitor.down');

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    await target.start();
    await hooks.start({ https: false });
    c = await startCoordinator(db.url, { env: { CHECKS_ENABLED: 'true' } });
    api = (await c.newAccount('maintenance')).client;
    const contact = await api.post('/api/contacts', {
      name: 'ops',
      channel: 'webhook',
      details: { url: `${hooks.baseUrl}/ops` },
    });
    expect(contact.status).toBe(201);
    const created = await api.post('/api/monitors', {
      name: 'deployed service',
      settings: { https: { url: target.url } },
      regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'],
      check_interval: 10,
      timeout: 5,
      fail_threshold: 2,
      contacts: [contact.body.contact.id],
    });
    expect(created.status).toBe(201);
    monitorId = created.body.data.id;
    await waitFor('the monitor up', async () => ((await monitor()).last_status === 'up' ? true : undefined));
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await target.stop();
    await hooks.stop();
    await db?.drop();
  });

  it('in the window: checks go on flagged, no incident, nobody told; after it, still down: a new outage, told', async () => {
    const now = Math.floor(Date.now() / 1000);
    const end = now + 20;
    const window = await api.post('/api/maintenance_windows', {
      name: 'deploy',
      monitors: [monitorId],
      starts_at: now - 1,
      ends_at: end,
    });
    expect(window.status).toBe(201);
    expect(window.body.data.state).toBe('in_progress');
    await target.stop();

    // At least fail_threshold (2) DOWN results, inside the window.
    const inWindow = await waitFor(
      'two DOWN results in the window',
      async () => {
        const list = (await checks()).filter((k) => k.status === 'down' && k.checked_at < end);
        return list.length >= 2 ? list : undefined;
      },
      20_000,
    );
    expect(inWindow.every((k) => k.in_maintenance === true)).toBe(true);
    await c.app.get(Dispatcher).runOnce();
    // Still inside the window (the machine was not too slow for this test to mean anything).
    expect(Date.now() / 1000).toBeLessThan(end);
    expect(await incidents()).toEqual([]);
    expect(downs()).toEqual([]);
    expect((await monitor()).last_status).toBe('up');

    // The window ends with the target still down: evaluated afresh, a new outage.
    const opened = await waitFor(
      'an incident after the window',
      async () => {
        const list = await incidents();
        return list.length > 0 ? list : undefined;
      },
      30_000,
    );
    expect(opened).toHaveLength(1);
    expect(opened[0].started_at).toBeGreaterThanOrEqual(end);
    expect((await monitor()).last_status).toBe('down');
    await waitFor('the monitor.down notification', async () => {
      await c.app.get(Dispatcher).runOnce();
      return downs().length > 0 ? true : undefined;
    });
    expect(downs()).toHaveLength(1);
    const after = (await checks()).filter((k) => k.checked_at >= end);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((k) => k.in_maintenance === false)).toBe(true);
    // Statistics count only results outside the window. Checks go on meanwhile, so the counts
    // are compared on a reading with no new result stored between the two lists around it.
    const stable = await waitFor('statistics read while no check landed', async () => {
      const before = await checks();
      const stats = (await api.get(`/api/monitors/${monitorId}/stats?period=24h`)).body.data;
      const all = await checks();
      return all.length === before.length ? { stats, all } : undefined;
    });
    expect(stable.all.some((k) => k.in_maintenance)).toBe(true);
    expect(stable.stats.overall.checks).toBe(stable.all.filter((k) => !k.in_maintenance).length);
  }, 90_000);
});

/**
 * The end-of-window check survives a restart inside the window: the restarted coordinator reads
 * the monitor's last result (DOWN, in maintenance) and checks again when the window ends, long
 * before the monitor's next regular slot.
 */
describe('maintenance windows: the end of a window after a restart', () => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let apiKey: string;
  const target = new SwitchableTarget();
  const start = async () => {
    c = await startCoordinator(db.url, { env: { CHECKS_ENABLED: 'true' } });
  };

  beforeAll(async () => {
    db = await testDatabases()[0]!.create();
    await target.start();
    await target.stop();
    await start();
    const account = await c.newAccount('restart');
    api = account.client;
    apiKey = account.apiKey;
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  it('a monitor down in the window is checked at its end, though the coordinator restarted in it', async () => {
    const end = Math.floor(Date.now() / 1000) + 25;
    const window = await api.post('/api/maintenance_windows', {
      name: 'deploy',
      monitors: [],
      starts_at: end - 60,
      ends_at: end,
    });
    expect(window.status).toBe(201);
    const created = await api.post('/api/monitors', {
      name: 'deployed service',
      settings: { https: { url: target.url } },
      regions: ['eu-west-1'],
      check_interval: 10,
      timeout: 5,
      fail_threshold: 1,
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const checks = async () => {
      await c.app.get(ResultsWriter).flush();
      return (await api.get(`/api/monitors/${id}/checks?per_page=100&order=asc`)).body.data.checks as any[];
    };
    await waitFor(
      'a DOWN result in the window',
      async () => ((await checks()).some((k) => k.status === 'down' && k.in_maintenance) ? true : undefined),
      20_000,
    );
    // A long interval whose next regular slot is well after the window's end: only the
    // end-of-window check can come before it.
    const interval = [600, 590, 580, 570, 560, 550].find(
      (i) => nextSlot(rotationPlan(id, i * 1000, 1), Date.now()).at > (end + 60) * 1000,
    )!;
    expect((await api.put(`/api/monitors/${id}`, { check_interval: interval })).status).toBe(200);
    const regular = nextSlot(rotationPlan(id, interval * 1000, 1), Date.now()).at / 1000;
    await c.close();
    await start();
    api = c.client(apiKey);
    expect(Date.now() / 1000).toBeLessThan(end);

    const after = await waitFor(
      'a check at the end of the window',
      async () => {
        const list = (await checks()).filter((k) => k.checked_at >= end);
        return list.length > 0 ? list : undefined;
      },
      40_000,
    );
    expect(after[0].checked_at).toBeLessThan(regular);
    expect(after[0]).toMatchObject({ status: 'down', in_maintenance: false });
    await waitFor('the monitor down', async () =>
      (await api.get(`/api/monitors/${id}`)).body.data.last_status === 'down' ? true : undefined,
    );
  }, 90_000);
});

describe.each(testDatabases())('maintenance windows API on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let api: ApiClient;
  let accountId: string;
  let other: ApiClient;
  let monitorId: string;
  let foreignMonitorId: string;
  const now = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url);
    ({ client: api, accountId } = await c.newAccount('one'));
    other = (await c.newAccount('two')).client;
    const monitor = async (client: ApiClient) =>
      (
        await client.post('/api/monitors', {
          name: 'm',
          settings: { https: { url: 'https://example.com' } },
          regions: ['eu-west-1'],
        })
      ).body.data.id as string;
    monitorId = await monitor(api);
    foreignMonitorId = await monitor(other);
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  it('creates one-off and recurring windows with their defaults and computed state', async () => {
    const oneOff = await api.post('/api/maintenance_windows', {
      name: 'Deploy',
      monitors: [monitorId],
      starts_at: now + 3600,
      ends_at: now + 7200,
    });
    expect(oneOff.status).toBe(201);
    expect(oneOff.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Deploy',
      monitors: [monitorId],
      starts_at: now + 3600,
      ends_at: now + 7200,
      rrule: null,
      duration: null,
      timezone: 'UTC',
      active: true,
      state: 'scheduled',
      next_start_at: now + 3600,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    const weekly = await api.post('/api/maintenance_windows', {
      name: 'Sunday nights',
      monitors: [],
      starts_at: Date.parse('2026-03-22T02:00:00Z') / 1000,
      rrule: 'FREQ=WEEKLY;BYDAY=SU',
      duration: 7200,
      timezone: 'europe/berlin',
    });
    expect(weekly.status).toBe(201);
    expect(weekly.body.data).toMatchObject({ ends_at: null, duration: 7200, timezone: 'Europe/Berlin' });
    expect(['scheduled', 'in_progress']).toContain(weekly.body.data.state);
    expect(weekly.body.data.next_start_at).toBeGreaterThan(now);
    // Berlin 03:00 is 01:00 or 02:00 UTC, on a Sunday.
    const next = new Date(weekly.body.data.next_start_at * 1000);
    expect(next.getUTCDay()).toBe(0);
    expect([1, 2]).toContain(next.getUTCHours());

    const list = await api.get('/api/maintenance_windows?per_page=1');
    expect(list.status).toBe(200);
    expect(list.body.data.maintenance_windows).toHaveLength(1);
    expect(list.body.data.pagination).toMatchObject({ page: 1, per_page: 1, total: 2, total_pages: 2 });
    expect((await other.get('/api/maintenance_windows')).body.data.pagination.total).toBe(0);
  });

  it('refuses bad input with 422 naming each field', async () => {
    const bad = async (body: Record<string, unknown>) => {
      const res = await api.post('/api/maintenance_windows', body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      return (res.body.error.details as { field: string }[]).map((d) => d.field).sort();
    };
    const base = { name: 'w', monitors: [], starts_at: now };
    expect(await bad({ ...base, rrule: 'FREQ=SOMETIMES', duration: 60 })).toEqual(['rrule']);
    // More often than hourly: refused, so that no question expands more than 25 occurrences a day.
    expect(await bad({ ...base, rrule: 'FREQ=HOURLY;BYMINUTE=0,30', duration: 60 })).toEqual(['rrule']);
    expect(await bad({ ...base, rrule: 'FREQ=DAILY', duration: 60, timezone: 'Europe/Atlantis' })).toEqual([
      'timezone',
    ]);
    expect(await bad({ ...base, rrule: 'FREQ=DAILY', duration: 59 })).toEqual(['duration']);
    expect(await bad({ ...base, rrule: 'FREQ=DAILY', duration: 604_801 })).toEqual(['duration']);
    expect(await bad({ ...base, rrule: 'FREQ=DAILY' })).toEqual(['duration']);
    expect(await bad({ ...base, ends_at: now })).toEqual(['ends_at']);
    expect(await bad(base)).toEqual(['ends_at']);
    expect(await bad({ ...base, ends_at: now + 60, rrule: 'FREQ=DAILY', duration: 60 })).toEqual(['ends_at']);
    expect(await bad({ ...base, ends_at: now + 60, monitors: [monitorId, foreignMonitorId] })).toEqual(['monitors[1]']);
    expect(await bad({ name: '', monitors: 'all', starts_at: -1, ends_at: now + 60, extra: 1 })).toEqual([
      'extra',
      'monitors',
      'name',
      'starts_at',
    ]);
  });

  it('updates (GET body round-trips; null switches kinds), deletes, and hides other accounts', async () => {
    const created = (
      await api.post('/api/maintenance_windows', {
        name: 'Once',
        monitors: [monitorId],
        starts_at: now - 60,
        ends_at: now + 600,
      })
    ).body.data;
    expect(created.state).toBe('in_progress');
    const path = `/api/maintenance_windows/${created.id as string}`;
    const roundTrip = await api.put(path, created);
    expect(roundTrip.status).toBe(200);
    const recurring = await api.put(path, { ends_at: null, rrule: 'FREQ=DAILY;COUNT=1', duration: 60 });
    expect(recurring.status).toBe(200);
    expect(recurring.body.data).toMatchObject({ ends_at: null, rrule: 'FREQ=DAILY;COUNT=1', state: 'ended' });
    const inactive = await api.put(path, { rrule: null, duration: null, ends_at: now + 600, active: false });
    expect(inactive.body.data).toMatchObject({ active: false, state: 'ended', next_start_at: null });
    expect((await api.put(path, { duration: 60 })).status).toBe(422);

    for (const client of [other]) {
      for (const res of [await client.get(path), await client.put(path, {}), await client.delete(path)]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('MAINTENANCE_WINDOW_NOT_FOUND');
      }
    }
    expect((await api.get('/api/maintenance_windows/nope')).body.error.code).toBe('MAINTENANCE_WINDOW_NOT_FOUND');
    expect((await api.delete(path)).status).toBe(204);
    expect((await api.get(path)).status).toBe(404);
  });

  it('previews the next occurrences of a window without storing it', async () => {
    const preview = (body: unknown, client = api) => client.post('/api/maintenance_windows/preview', body);
    const stored = async () => (await api.get('/api/maintenance_windows?per_page=100')).text;
    const before = await stored();
    const DAY = 86_400;
    // This file's other suites run first: a fresh instant, not the suite's `now`.
    const t = Math.floor(Date.now() / 1000);

    // Weekly, Sundays 03:00 Berlin time, first a week before next year's spring change (the last
    // Sunday of March, 01:00 UTC): 02:00 UTC (CET) once, then 01:00 UTC (CEST), each 2 h long.
    const year = new Date(t * 1000).getUTCFullYear() + 1;
    const march31 = Date.UTC(year, 2, 31) / 1000;
    const change = march31 - new Date(march31 * 1000).getUTCDay() * DAY;
    const weekly = await preview({
      name: 'Sunday nights',
      monitors: [monitorId],
      starts_at: change - 7 * DAY + 2 * 3600,
      rrule: 'FREQ=WEEKLY;BYDAY=SU',
      duration: 7200,
      timezone: 'europe/berlin',
    });
    expect(weekly.status).toBe(200);
    const firstSummer = change + 3600;
    expect(weekly.body).toEqual({
      status: 'ok',
      data: {
        occurrences: [
          { starts_at: change - 7 * DAY + 2 * 3600, ends_at: change - 7 * DAY + 4 * 3600 },
          ...[0, 1, 2, 3, 4, 5, 6, 7, 8].map((week) => ({
            starts_at: firstSummer + week * 7 * DAY,
            ends_at: firstSummer + week * 7 * DAY + 7200,
          })),
        ],
      },
    });

    // An occurrence under way is the first; COUNT ends the list.
    const daily = await preview({ name: 'd', monitors: [], starts_at: t - 60, rrule: 'FREQ=DAILY', duration: 3600 });
    expect(daily.status).toBe(200);
    expect(daily.body.data.occurrences).toHaveLength(10);
    expect(daily.body.data.occurrences[0]).toEqual({ starts_at: t - 60, ends_at: t + 3540 });
    expect(daily.body.data.occurrences[9]).toEqual({ starts_at: t - 60 + 9 * DAY, ends_at: t + 3540 + 9 * DAY });
    const counted = await preview({
      name: 'c',
      monitors: [],
      starts_at: t + 3600,
      rrule: 'FREQ=DAILY;COUNT=3',
      duration: 60,
      timezone: 'UTC',
    });
    expect(counted.body.data.occurrences.map((o: any) => o.starts_at)).toEqual([
      t + 3600,
      t + 3600 + DAY,
      t + 3600 + 2 * DAY,
    ]);

    // One-off: its one occurrence (under way or to come), none once ended; `active` is not looked at.
    for (const [starts, ends] of [
      [t - 60, t + 600],
      [t + 600, t + 1200],
    ] as const) {
      const res = await preview({ name: 'o', monitors: [], starts_at: starts, ends_at: ends, active: false });
      expect(res.body).toEqual({ status: 'ok', data: { occurrences: [{ starts_at: starts, ends_at: ends }] } });
    }
    const ended = await preview({ name: 'o', monitors: [], starts_at: t - 600, ends_at: t - 60 });
    expect(ended.body).toEqual({ status: 'ok', data: { occurrences: [] } });

    // Judged exactly as a create: the same 422, byte for byte, the account's monitors included.
    const base = { name: 'w', monitors: [], starts_at: t };
    for (const body of [
      { ...base, rrule: 'FREQ=SOMETIMES', duration: 60 },
      { ...base, rrule: 'FREQ=DAILY', duration: 60, timezone: 'Europe/Atlantis' },
      { ...base, rrule: 'FREQ=DAILY' },
      { ...base, ends_at: t },
      { ...base, ends_at: t + 60, rrule: 'FREQ=DAILY', duration: 60 },
      { ...base, ends_at: t + 60, monitors: [monitorId, foreignMonitorId] },
      { name: '', monitors: 'all', starts_at: -1, ends_at: t + 60, extra: 1 },
      // Never occurs: the library gives up searching (was a 500 after storing, on create).
      { ...base, rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', duration: 60 },
    ]) {
      const refused = await preview(body);
      const created = await api.post('/api/maintenance_windows', body);
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('VALIDATION_ERROR');
      expect([refused.status, refused.text]).toEqual([created.status, created.text]);
    }
    expect((await preview({ ...base, ends_at: t + 60, monitors: [monitorId] }, other)).body.error.details).toEqual([
      { field: 'monitors[0]', message: 'is not a monitor of this account' },
    ]);
    // Nothing was stored by any of it.
    expect(await stored()).toBe(before);

    // maintenance:read is enough; maintenance:write alone is not.
    const body = { ...base, ends_at: t + 60 };
    expect((await preview(body, (await c.newKey(accountId, ['maintenance:read'])).client)).status).toBe(200);
    const writer = await preview(body, (await c.newKey(accountId, ['maintenance:write'])).client);
    expect([writer.status, writer.body.error.code]).toEqual([403, 'FORBIDDEN']);

    // `/preview` beside `/{id}`: other methods still reach the id routes (a malformed id: 404).
    for (const res of [
      await api.get('/api/maintenance_windows/preview'),
      await api.put('/api/maintenance_windows/preview', {}),
      await api.delete('/api/maintenance_windows/preview'),
    ]) {
      expect([res.status, res.body.error.code]).toEqual([404, 'MAINTENANCE_WINDOW_NOT_FOUND']);
    }
    const patch = await api.request('PATCH', '/api/maintenance_windows/preview');
    expect([patch.status, patch.headers.get('allow')]).toEqual([
      405,
      expect.stringMatching(/^(?=.*DELETE)(?=.*GET)(?=.*POST)(?=.*PUT)/),
    ]);
  });

  it('a window stored before never-occurring rules were refused reads as ended, and covers nothing', async () => {
    const created = await api.post('/api/maintenance_windows', {
      name: 'Leap',
      monitors: [monitorId],
      starts_at: now - 3600,
      rrule: 'FREQ=DAILY',
      duration: 7200,
    });
    expect(created.status).toBe(201);
    expect(created.body.data.state).toBe('in_progress');
    const id = created.body.data.id as string;
    // As such a row was stored by earlier versions: the rule written directly.
    await c.app
      .get(Database)
      .manager.update(MaintenanceWindowEntity, { id }, { rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' });
    await c.app.get(MaintenanceCalendar).reload();
    const read = await api.get(`/api/maintenance_windows/${id}`);
    expect([read.status, read.body.data.state, read.body.data.next_start_at]).toEqual([200, 'ended', null]);
    expect((await api.get('/api/maintenance_windows')).status).toBe(200);
    expect(c.app.get(MaintenanceCalendar).coverOf(accountId, monitorId, now)).toBeNull();
    expect((await api.delete(`/api/maintenance_windows/${id}`)).status).toBe(204);
  });

  it('public status page: the covered monitor "Under maintenance", windows within 7 days listed', async () => {
    // Start from no windows (the tests above left some).
    for (const w of (await api.get('/api/maintenance_windows?per_page=100')).body.data.maintenance_windows) {
      expect((await api.delete(`/api/maintenance_windows/${w.id as string}`)).status).toBe(204);
    }
    const second = (
      await api.post('/api/monitors', {
        name: 'second',
        settings: { https: { url: 'https://example.com' } },
        regions: ['eu-west-1'],
      })
    ).body.data.id as string;
    const page = (await api.post('/api/status_pages', { name: 'Public', monitors: [monitorId, second] })).body.data;
    const publicJson = async () => (await c.client().get(`/status/${page.id as string}.json`)).body.data;
    const before = await publicJson();
    expect(before.maintenance).toEqual([]);
    expect(before.monitors.map((m: any) => m.status)).not.toContain('maintenance');

    // Created after the page was rendered: the change drops the cached page.
    const post = (body: Record<string, unknown>) => api.post('/api/maintenance_windows', body);
    expect((await post({ name: 'Now', monitors: [monitorId], starts_at: now - 60, ends_at: now + 900 })).status).toBe(
      201,
    );
    expect(
      (await post({ name: 'Soon', monitors: [], starts_at: now + 2 * 86_400, ends_at: now + 2 * 86_400 + 600 })).status,
    ).toBe(201);
    expect(
      (await post({ name: 'Later', monitors: [], starts_at: now + 10 * 86_400, ends_at: now + 10 * 86_400 + 600 }))
        .status,
    ).toBe(201);
    expect(
      (await post({ name: 'Off', monitors: [], starts_at: now + 86_400, ends_at: now + 86_400 + 60, active: false }))
        .status,
    ).toBe(201);
    expect(
      (
        await other.post('/api/maintenance_windows', {
          name: 'Foreign',
          monitors: [],
          starts_at: now + 60,
          ends_at: now + 600,
        })
      ).status,
    ).toBe(201);

    const after = await publicJson();
    expect(after.monitors.map((m: any) => [m.name, m.status])).toEqual([
      ['m', 'maintenance'],
      ['second', 'pending'],
    ]);
    expect(after.maintenance).toEqual([
      { name: 'Now', monitors: ['m'], starts_at: expect.any(Number), ends_at: now + 900, in_progress: true },
      {
        name: 'Soon',
        monitors: ['m', 'second'],
        starts_at: now + 2 * 86_400,
        ends_at: now + 2 * 86_400 + 600,
        in_progress: false,
      },
    ]);
    const html = (await c.client().get(`/status/${page.id as string}`)).text;
    expect(html).toContain('data-status="maintenance">Under maintenance</strong>');
    expect(html).toContain('Scheduled maintenance');
    expect(html).not.toContain('Later');
  });
});
