/**
 * "unknown" when Picket cannot see (docs/decisions/0001-truth-when-blind.md), end to end on a
 * ManualClock: a monitor without an UP or DOWN result for more than 3 × check_interval seconds
 * is `unknown` in every answer about it (the monitor endpoints, the account counts, its public
 * page) while its stored status, incidents and notifications stay untouched, and it shows its
 * stored status again as soon as a decided result is written.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
import { MonitorEntity } from '../../apps/coordinator/src/monitors/monitor.entity.js';
import { MonitorsRepository } from '../../apps/coordinator/src/monitors/monitors.repository.js';
import { TransitionWriter } from '../../apps/coordinator/src/transitions/transition.writer.js';
import { NotificationEntity } from '../../apps/coordinator/src/notify/notification.entity.js';
import { PUBLIC_PAGE_CACHE_MS } from '../../apps/coordinator/src/status-pages/public-pages.service.js';
import type { ApiClient } from '../support/api-client.js';
import { probeResult } from '../support/check-results.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { createContact, createMonitor } from '../support/monitor-fixtures.js';

/** 2026-03-10 12:00:00 UTC. */
const START = Date.UTC(2026, 2, 10, 12, 0, 0);
const INTERVAL = 60;

describe.each(testDatabases())('unknown when Picket cannot see, on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  let client: ApiClient;
  const clock = new ManualClock(START);
  const now = () => Math.floor(clock.now() / 1000);
  const tick = (seconds: number) => clock.advance(seconds * 1000);

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock });
    client = (await c.newAccount('blind')).client;
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  const monitorOf = async (id: string) => {
    const res = await client.get(`/api/monitors/${id}`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const listed = async (id: string) => {
    const res = await client.get('/api/monitors?per_page=100');
    expect(res.status).toBe(200);
    return res.body.data.monitors.find((m: { id: string }) => m.id === id);
  };
  const account = async () => (await client.get('/api/account')).body.data;
  const stored = (id: string) => c.app.get(Database).manager.findOneByOrFail(MonitorEntity, { id });
  /** The public page as a visitor gets it, after the page cache has expired. */
  const publicPage = async (pageId: string) => {
    tick(PUBLIC_PAGE_CACHE_MS / 1000);
    const json = (await (await fetch(`${c.baseUrl}/status/${pageId}.json`)).json()) as { data: any };
    const html = await (await fetch(`${c.baseUrl}/status/${pageId}`)).text();
    return { json: json.data, html };
  };
  const write = async (monitorId: string, status: 'up' | 'down' | 'unknown' | 'blocked') => {
    const writer = c.app.get(ResultsWriter);
    writer.add(probeResult(monitorId, 'eu-west-1', status, status === 'up' ? 120 : null));
    await writer.flush();
  };
  /** What the evaluator does on a status change (checks are off in API suites). */
  const transition = (monitorId: string, status: 'up' | 'down') =>
    c.app.get(TransitionWriter).write({
      monitorId,
      status,
      changedAt: now(),
      reason: status === 'down' ? 'HTTP 503' : null,
      evidence: {},
    });

  it('turns a monitor unknown after 3 intervals without an UP or DOWN result, everywhere, and back', async () => {
    const contact = await createContact(client);
    const created = await createMonitor(client, { name: 'Blind spot', check_interval: INTERVAL, contacts: [contact] });
    expect(created).toMatchObject({ last_status: 'pending', last_checked_at: null });
    const createdAt = created.created_at as number;
    const page = await client.post('/api/status_pages', { name: 'Acme', monitors: [created.id], period: 7 });
    expect(page.status).toBe(201);
    const pageId = page.body.data.id as string;

    // Exactly three intervals after creation: still pending (the public read costs the cache's 15 s).
    tick(3 * INTERVAL - PUBLIC_PAGE_CACHE_MS / 1000);
    expect((await publicPage(pageId)).json.monitors[0].status).toBe('pending');
    expect(await monitorOf(created.id)).toMatchObject({ last_status: 'pending', last_checked_at: null });

    // One second more: unknown in every answer about it.
    tick(1);
    const blind = await monitorOf(created.id);
    expect(blind).toMatchObject({
      last_status: 'unknown',
      last_checked_at: null,
      last_status_change: createdAt, // the stored status did not change
    });
    expect(await listed(created.id)).toStrictEqual(blind);
    const renamed = await client.put(`/api/monitors/${created.id}`, { name: 'Blind spot, renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ last_status: 'unknown', last_checked_at: null });
    expect(await account()).toMatchObject({ monitors_count: 1, up_monitors: 0, down_monitors: 0, unknown_monitors: 1 });

    // An overlay: nothing stored, no incident, nobody notified.
    expect(await stored(created.id)).toMatchObject({ lastStatus: 'pending', lastStatusChange: createdAt });
    expect((await client.get('/api/incidents')).body.data.pagination.total).toBe(0);
    expect(await c.app.get(Database).manager.count(NotificationEntity)).toBe(0);

    // Its public page: unknown in the JSON, grey "No data" in the HTML, never operational.
    let visible = await publicPage(pageId);
    expect(visible.json.monitors[0]).toMatchObject({ name: 'Blind spot, renamed', status: 'unknown' });
    expect(visible.json.overall).toBe('no_data');
    expect(visible.html).toContain('data-status="unknown">No data</strong>');
    expect(visible.html).toContain('data-overall="no_data">No data</p>');
    expect(visible.html).not.toContain('Operational');
    expect(visible.html).not.toContain('All systems operational');

    // UNKNOWN and BLOCKED results are what Picket gets when it cannot see: they change nothing.
    await write(created.id, 'unknown');
    await write(created.id, 'blocked');
    expect(await monitorOf(created.id)).toMatchObject({ last_status: 'unknown', last_checked_at: null });

    // A decided result: the stored status shows again (still pending: no transition yet) ...
    await write(created.id, 'up');
    const checkedAt = now();
    expect(await monitorOf(created.id)).toMatchObject({ last_status: 'pending', last_checked_at: checkedAt });
    expect(await account()).toMatchObject({ unknown_monitors: 0 });
    // ... and the evaluator's up with it, on the API and on the public page.
    await transition(created.id, 'up');
    expect(await monitorOf(created.id)).toMatchObject({ last_status: 'up', last_checked_at: checkedAt });
    expect(await account()).toMatchObject({ up_monitors: 1, down_monitors: 0, unknown_monitors: 0 });
    visible = await publicPage(pageId);
    expect(visible.json.monitors[0].status).toBe('up');
    expect(visible.json.overall).toBe('operational');
    expect(visible.html).toContain('data-status="up">Operational</strong>');

    // Down, then blind again: unknown hides the stored down too, and shows it once results return.
    await write(created.id, 'down');
    await transition(created.id, 'down');
    expect(await monitorOf(created.id)).toMatchObject({ last_status: 'down', last_checked_at: now() });
    tick(3 * INTERVAL + 1);
    expect(await monitorOf(created.id)).toMatchObject({ last_status: 'unknown' });
    expect(await account()).toMatchObject({ up_monitors: 0, down_monitors: 0, unknown_monitors: 1 });
    expect((await client.get('/api/incidents')).body.data.pagination.total).toBe(1); // the down's, nothing more
    expect((await stored(created.id)).lastStatus).toBe('down');
    await write(created.id, 'down');
    expect(await monitorOf(created.id)).toMatchObject({ last_status: 'down', last_checked_at: now() });
  });

  it('applies to paused monitors too, whose public entry still says paused', async () => {
    const paused = await createMonitor(client, { name: 'Paused', check_interval: INTERVAL, active: false });
    const watched = await createMonitor(client, { name: 'Watched', check_interval: INTERVAL });
    const page = await client.post('/api/status_pages', { name: 'Two', monitors: [watched.id, paused.id], period: 7 });
    expect(page.status).toBe(201);
    await write(watched.id, 'up');
    await transition(watched.id, 'up');
    tick(3 * INTERVAL + 1);
    await write(watched.id, 'up'); // the watched monitor is still seen
    expect(await monitorOf(paused.id)).toMatchObject({ active: false, last_status: 'unknown' });
    const { json, html } = await publicPage(page.body.data.id as string);
    expect(json.monitors.map((m: { status: string }) => m.status)).toEqual(['up', 'paused']);
    expect(json.overall).toBe('operational');
    expect(html).not.toContain('No data</strong>');
  });

  it('says "some services have no current data" instead of operational when one shown monitor is unknown', async () => {
    const seen = await createMonitor(client, { name: 'Seen', check_interval: INTERVAL });
    const unseen = await createMonitor(client, { name: 'Unseen', check_interval: INTERVAL });
    const page = await client.post('/api/status_pages', { name: 'Mixed', monitors: [seen.id, unseen.id], period: 7 });
    expect(page.status).toBe(201);
    tick(3 * INTERVAL + 1);
    await write(seen.id, 'up');
    await transition(seen.id, 'up');
    const { json, html } = await publicPage(page.body.data.id as string);
    expect(json.monitors.map((m: { status: string }) => m.status)).toEqual(['up', 'unknown']);
    expect(json.overall).toBe('partial_data');
    expect(html).toContain('data-overall="partial_data">Some services have no current data</p>');
    expect(html).not.toContain('All systems operational');
  });

  it('never writes a stale last_checked_at back when the API saves a monitor it loaded earlier', async () => {
    const monitor = await createMonitor(client, { check_interval: INTERVAL });
    const repository = c.app.get(MonitorsRepository);
    const loaded = await repository.findOne((await stored(monitor.id)).accountId, monitor.id);
    expect(loaded?.monitor.lastCheckedAt).toBeNull();
    await write(monitor.id, 'up');
    const checkedAt = now();
    await repository.save(Object.assign(loaded!.monitor, { name: 'Saved late' }), undefined, false);
    expect(await stored(monitor.id)).toMatchObject({ name: 'Saved late', lastCheckedAt: checkedAt });
  });
});
