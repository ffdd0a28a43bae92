import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import { AccountsService } from '../../apps/coordinator/src/auth/accounts.service.js';
import { Database } from '../../apps/coordinator/src/database/database.js';
import { MonitorEntity, type LastStatus } from '../../apps/coordinator/src/monitors/monitor.entity.js';
import type { ApiClient } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { createMonitor, expectError } from '../support/monitor-fixtures.js';
import { SPEC_PERMISSIONS } from '../support/spec-lists.js';

const ACCOUNT_FIELDS = [
  'created_at',
  'down_monitors',
  'id',
  'monitors_count',
  'name',
  'paused_monitors',
  'subscription_status',
  'unknown_monitors',
  'up_monitors',
];

describe.each(testDatabases())('GET /api/account on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  const clock = new ManualClock(Date.UTC(2026, 2, 15, 9, 30, 0));

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock });
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  /** What the checker would do: record a status straight in the database. */
  const setLastStatus = async (monitorId: string, status: LastStatus) => {
    const result = await c.app.get(Database).manager.update(MonitorEntity, { id: monitorId }, { lastStatus: status });
    expect(result.affected).toBe(1);
  };

  const accountOf = async (client: ApiClient) => {
    const res = await client.get('/api/account');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'status']);
    expect(res.body.status).toBe('ok');
    expect(Object.keys(res.body.data).sort()).toEqual(ACCOUNT_FIELDS);
    return res.body.data;
  };

  it('returns exactly the documented fields for a new account', async () => {
    clock.advance(60_000);
    const created = Math.floor(clock.now() / 1000);
    const { accountId, client } = await c.newAccount('Acme Ops ' + '\u{1F6A8}');
    clock.advance(60_000);
    const res = await client.get('/api/account');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body).toStrictEqual({
      status: 'ok',
      data: {
        id: accountId,
        name: 'Acme Ops \u{1F6A8}',
        subscription_status: 'active',
        monitors_count: 0,
        up_monitors: 0,
        down_monitors: 0,
        unknown_monitors: 0,
        paused_monitors: 0,
        created_at: created,
      },
    });
  });

  it('refuses query parameters, which no route without a query DTO accepts (422)', async () => {
    const { client } = await c.newAccount();
    for (const path of ['/api/account?x=1', '/api/account?verbose=true&x=2']) {
      const res = await client.get(path);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(
        [...new URL(path, 'http://x').searchParams.keys()].sort(),
      );
    }
    const monitor = await client.post('/api/monitors', {
      name: 'q',
      settings: { tcp: { url: 'tcp://db.example:5432' } },
      regions: ['eu-west-1'],
    });
    expect((await client.get(`/api/monitors/${monitor.body.data.id}?fields=name`)).status).toBe(422);
    expect((await client.post(`/api/monitors/${monitor.body.data.id}/pause?force=1`)).status).toBe(422);
    expect((await client.get(`/api/monitors/${monitor.body.data.id}`)).body.data.active).toBe(true);
  });

  it('counts monitors by status and paused flag, for this account only', async () => {
    const { client } = await c.newAccount('counting');
    const { client: neighbour } = await c.newAccount('neighbour');

    // Seven monitors: 2 up, 1 down, 2 pending (all active); 2 paused and pending.
    const up = [await createMonitor(client), await createMonitor(client)];
    const down = [await createMonitor(client)];
    const pending = [await createMonitor(client), await createMonitor(client)];
    const paused = [await createMonitor(client), await createMonitor(client, { active: false })];
    for (const m of up) await setLastStatus(m.id, 'up');
    for (const m of down) await setLastStatus(m.id, 'down');
    expect((await client.post(`/api/monitors/${paused[0].id}/pause`)).status).toBe(200);

    // The neighbour's monitors, in every state, must not leak into the counts.
    const theirs = [await createMonitor(neighbour), await createMonitor(neighbour), await createMonitor(neighbour)];
    await setLastStatus(theirs[0].id, 'up');
    await setLastStatus(theirs[1].id, 'down');
    expect((await neighbour.post(`/api/monitors/${theirs[2].id}/pause`)).status).toBe(200);

    expect(pending).toHaveLength(2);
    expect(await accountOf(client)).toMatchObject({
      monitors_count: 7,
      up_monitors: 2,
      down_monitors: 1,
      unknown_monitors: 0,
      paused_monitors: 2,
    });
    expect(await accountOf(neighbour)).toMatchObject({
      monitors_count: 3,
      up_monitors: 1,
      down_monitors: 1,
      paused_monitors: 1,
    });

    // Counts follow changes: a resumed monitor, a recovered one, a deleted one.
    expect((await client.post(`/api/monitors/${paused[1].id}/resume`)).status).toBe(200);
    await setLastStatus(down[0].id, 'up');
    expect((await client.delete(`/api/monitors/${up[0].id}`)).status).toBe(204);
    expect(await accountOf(client)).toMatchObject({
      monitors_count: 6,
      up_monitors: 2,
      down_monitors: 0,
      paused_monitors: 1,
    });

    // PUT active=false counts as paused just like the pause endpoint.
    expect((await client.put(`/api/monitors/${pending[0].id}`, { active: false })).status).toBe(200);
    await setLastStatus(pending[1].id, 'down');
    expect(await accountOf(client)).toMatchObject({
      monitors_count: 6,
      up_monitors: 2,
      down_monitors: 1,
      paused_monitors: 2,
    });
  });

  it('counts a monitor without an UP or DOWN result for over 3 intervals as unknown, not up or down', async () => {
    const { client } = await c.newAccount('blind');
    const started = Math.floor(clock.now() / 1000);
    const up = await createMonitor(client, { check_interval: 60 });
    const down = await createMonitor(client, { check_interval: 600 });
    const pending = await createMonitor(client, { check_interval: 60 });
    const pausedUp = await createMonitor(client, { check_interval: 60, active: false });
    await setLastStatus(up.id, 'up');
    await setLastStatus(down.id, 'down');
    await setLastStatus(pausedUp.id, 'up');
    const checkedAt = (id: string, seconds: number) =>
      c.app.get(Database).manager.update(MonitorEntity, { id }, { lastCheckedAt: seconds });
    await checkedAt(up.id, started);
    await checkedAt(down.id, started);
    await checkedAt(pausedUp.id, started);
    expect(await accountOf(client)).toMatchObject({
      monitors_count: 4,
      up_monitors: 2,
      down_monitors: 1,
      unknown_monitors: 0,
      paused_monitors: 1,
    });

    // Exactly three 60 s intervals: still as stored; one second more: unknown (paused ones too).
    clock.advance(180_000);
    expect(await accountOf(client)).toMatchObject({ up_monitors: 2, down_monitors: 1, unknown_monitors: 0 });
    clock.advance(1_000);
    expect(await accountOf(client)).toMatchObject({
      monitors_count: 4,
      up_monitors: 0,
      down_monitors: 1,
      unknown_monitors: 3,
      paused_monitors: 1,
    });

    // A decided result brings the stored status back; the 600 s monitor turns unknown after 1800 s.
    await checkedAt(up.id, started + 181);
    expect(await accountOf(client)).toMatchObject({ up_monitors: 1, down_monitors: 1, unknown_monitors: 2 });
    clock.advance((1_800 - 181) * 1_000);
    expect(await accountOf(client)).toMatchObject({ down_monitors: 1 });
    clock.advance(1_000);
    expect(await accountOf(client)).toMatchObject({ up_monitors: 0, down_monitors: 0, unknown_monitors: 4 });
    expect((await client.get(`/api/monitors/${pending.id}`)).body.data.last_status).toBe('unknown');
  });

  it('reports the subscription status the operator set', async () => {
    const { accountId, client } = await c.newAccount('subscriber');
    const accounts = c.app.get(AccountsService);
    expect((await accountOf(client)).subscription_status).toBe('active');
    await accounts.setSubscription(accountId, 'inactive');
    expect((await accountOf(client)).subscription_status).toBe('inactive');
    await accounts.setSubscription(accountId, 'active');
    expect((await accountOf(client)).subscription_status).toBe('active');
  });

  it('needs account:read and a valid key', async () => {
    const { accountId } = await c.newAccount('permissions');
    const { client: reader } = await c.newKey(accountId, ['account:read']);
    expect((await accountOf(reader)).id).toBe(accountId);

    const { client: others } = await c.newKey(
      accountId,
      SPEC_PERMISSIONS.filter((p) => p !== 'account:read'),
    );
    expectError(await others.get('/api/account'), 403, 'FORBIDDEN');

    const anonymous = await c.client().get('/api/account');
    expectError(anonymous, 401, 'UNAUTHORIZED');
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
  });
});
