import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '#runtime';
import type { Permission } from '../../apps/coordinator/src/auth/permissions.js';
import { TransitionWriter, type TransitionInput } from '../../apps/coordinator/src/transitions/transition.writer.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { createMonitor, expectError, expectValidationError, UNKNOWN_ID } from '../support/monitor-fixtures.js';
import { SPEC_PERMISSIONS } from '../support/spec-lists.js';

/** The fields of an Incident (docs/decisions/0007-incidents.md), written out here rather than read from the code. */
const INCIDENT_FIELDS = [
  'check_results',
  'duration',
  'id',
  'is_resolved',
  'monitor_id',
  'monitor_name',
  'reason',
  'resolved_at',
  'started_at',
  'user_comment',
];

/** The evidence of a down decided in eu-west-1, with the other regions as they last answered. */
const EVIDENCE: TransitionInput['evidence'] = {
  'eu-west-1': {
    status: 'down',
    response_time_ms: null,
    error: 'HTTP 503 Service Unavailable',
    checked_at: 1767268795,
    checker_ip: '192.0.2.10',
  },
  'us-east-1': {
    status: 'unknown',
    response_time_ms: null,
    error: 'no agent serves the region',
    checked_at: 1767268790,
    checker_ip: null,
  },
  'ap-east-1': { status: 'up', response_time_ms: 123, error: null, checked_at: 1767268780, checker_ip: '2001:db8::7' },
};

interface Incident {
  id: string;
  monitor_id: string;
  is_resolved: boolean;
  started_at: number;
  resolved_at: number | null;
  duration: number;
  user_comment: string;
  [field: string]: unknown;
}

describe.each(testDatabases())('incidents on $name', (kind) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  let db: TestDatabase;
  let c: RunningCoordinator;

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { clock });
  });

  afterAll(async () => {
    await c?.close();
    await db?.drop();
  });

  // ---- helpers ---------------------------------------------------------------------------

  const now = () => Math.floor(clock.now() / 1000);
  const tick = (seconds = 1) => clock.advance(seconds * 1000);

  /** The monitor goes down now (through the notification outbox, as the evaluator does). */
  const down = (monitorId: string, reason: string | null = 'HTTP 503', evidence = EVIDENCE) =>
    c.app.get(TransitionWriter).write({ monitorId, status: 'down', changedAt: now(), reason, evidence });
  const up = (monitorId: string) =>
    c.app.get(TransitionWriter).write({ monitorId, status: 'up', changedAt: now(), reason: null, evidence: {} });

  /** One finished outage of `seconds`, then a second of quiet. */
  async function outage(monitorId: string, seconds = 60): Promise<void> {
    await down(monitorId);
    tick(seconds);
    await up(monitorId);
    tick();
  }

  async function list(client: ApiClient, query = ''): Promise<{ incidents: Incident[]; pagination: any }> {
    const res = await client.get(`/api/incidents${query}`);
    expect({ query, status: res.status }).toEqual({ query, status: 200 });
    expect(res.body.status).toBe('ok');
    return res.body.data;
  }

  const ids = (incidents: readonly Incident[]) => incidents.map((i) => i.id);

  async function get(client: ApiClient, id: string): Promise<Incident> {
    const res = await client.get(`/api/incidents/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    return res.body.data;
  }

  /** The monitor's only open incident. */
  async function openIncidentOf(client: ApiClient, monitorId: string): Promise<Incident> {
    const { incidents } = await list(client, `?monitor_id=${monitorId}&resolved=false`);
    expect(incidents).toHaveLength(1);
    return incidents[0]!;
  }

  const comment = (client: ApiClient, id: string, json: unknown) => client.put(`/api/incidents/${id}/comment`, json);

  /** Two 404s that cannot be told apart: same status, body and content type. */
  function expectSame404(res: ApiResponse, reference: ApiResponse, label: string): void {
    expectError(res, 404, 'INCIDENT_NOT_FOUND');
    expect({ label, text: res.text, type: res.headers.get('content-type') }).toEqual({
      label,
      text: reference.text,
      type: reference.headers.get('content-type'),
    });
  }

  // ---- the incident itself -----------------------------------------------------------------

  describe('an incident', () => {
    it('has exactly the documented fields, with the reason and evidence the down recorded', async () => {
      const { client } = await c.newAccount('fields');
      const monitor = await createMonitor(client, { name: 'Checkout 🛒', regions: ['eu-west-1', 'us-east-1'] });
      const startedAt = now();
      await down(monitor.id, 'HTTP 503 Service Unavailable');

      const { incidents } = await list(client);
      expect(incidents).toHaveLength(1);
      const incident = incidents[0]!;
      expect(Object.keys(incident).sort()).toEqual(INCIDENT_FIELDS);
      expect(incident).toStrictEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        monitor_id: monitor.id,
        monitor_name: 'Checkout 🛒',
        is_resolved: false,
        started_at: startedAt,
        resolved_at: null,
        duration: 0,
        reason: 'HTTP 503 Service Unavailable',
        user_comment: '',
        check_results: EVIDENCE,
      });
      expect(await get(client, incident.id)).toStrictEqual(incident);
    });

    it('keeps the monitor name it opened with, and reads "Down" when the down had no cause', async () => {
      const { client } = await c.newAccount('names');
      const monitor = await createMonitor(client, { name: 'Before' });
      await down(monitor.id, null, {});
      expect((await client.put(`/api/monitors/${monitor.id}`, { name: 'After' })).status).toBe(200);
      const incident = await openIncidentOf(client, monitor.id);
      expect(incident).toMatchObject({ monitor_name: 'Before', reason: 'Down', check_results: {} });
    });

    it('counts its duration up to now while open, and stops counting once resolved', async () => {
      const { client } = await c.newAccount('duration');
      const monitor = await createMonitor(client);
      const startedAt = now();
      await down(monitor.id);
      const { id } = await openIncidentOf(client, monitor.id);
      expect((await get(client, id)).duration).toBe(0);
      tick(90);
      expect(await get(client, id)).toMatchObject({ duration: 90, is_resolved: false, resolved_at: null });
      tick(30);
      expect((await list(client)).incidents[0]).toMatchObject({ id, duration: 120 });

      await up(monitor.id);
      const resolved = await get(client, id);
      expect(resolved).toMatchObject({
        is_resolved: true,
        started_at: startedAt,
        resolved_at: startedAt + 120,
        duration: 120,
      });
      expect((await client.get(`/api/monitors/${monitor.id}`)).body.data.last_status).toBe('up');
      tick(3600);
      expect(await get(client, id)).toStrictEqual(resolved);
      // An hour without any check result: the API shows the monitor as unknown (docs/decisions/0001).
      expect((await client.get(`/api/monitors/${monitor.id}`)).body.data.last_status).toBe('unknown');
    });

    it('is one per outage: a second down while open and an up without an outage change nothing', async () => {
      const { client } = await c.newAccount('one per outage');
      const monitor = await createMonitor(client);
      await up(monitor.id);
      expect((await list(client)).pagination.total).toBe(0);

      await down(monitor.id, 'HTTP 503');
      tick(10);
      await down(monitor.id, 'connection refused');
      const first = await openIncidentOf(client, monitor.id);
      expect(first.reason).toBe('HTTP 503');
      tick(10);
      await up(monitor.id);
      tick(10);
      await up(monitor.id);
      expect(await get(client, first.id)).toMatchObject({ is_resolved: true, duration: 20 });

      tick(10);
      await down(monitor.id, 'connection refused');
      const second = await openIncidentOf(client, monitor.id);
      expect(second.id).not.toBe(first.id);
      expect(second.reason).toBe('connection refused');
      expect(ids((await list(client)).incidents)).toEqual([second.id, first.id]);
    });

    it('is not opened by a paused monitor, whose status is still recorded; an open one still resolves', async () => {
      const { client } = await c.newAccount('paused');
      const monitor = await createMonitor(client);
      expect((await client.post(`/api/monitors/${monitor.id}/pause`)).status).toBe(200);
      await down(monitor.id);
      expect((await list(client)).pagination.total).toBe(0);
      expect((await client.get(`/api/monitors/${monitor.id}`)).body.data.last_status).toBe('down');
      tick(10);
      await up(monitor.id);
      expect((await list(client)).pagination.total).toBe(0);

      // Open while active, paused mid-outage: the recovery still closes it.
      expect((await client.post(`/api/monitors/${monitor.id}/resume`)).status).toBe(200);
      await down(monitor.id);
      const { id } = await openIncidentOf(client, monitor.id);
      expect((await client.post(`/api/monitors/${monitor.id}/pause`)).status).toBe(200);
      tick(45);
      await up(monitor.id);
      expect(await get(client, id)).toMatchObject({ is_resolved: true, duration: 45 });
    });

    it('is deleted with its monitor; other monitors keep theirs', async () => {
      const { client } = await c.newAccount('deletion');
      const doomed = await createMonitor(client, { name: 'Doomed' });
      const kept = await createMonitor(client, { name: 'Kept' });
      await outage(doomed.id);
      await down(doomed.id);
      await down(kept.id);
      const doomedIds = ids((await list(client, `?monitor_id=${doomed.id}`)).incidents);
      expect(doomedIds).toHaveLength(2);
      const keptIncident = await openIncidentOf(client, kept.id);

      expect((await client.delete(`/api/monitors/${doomed.id}`)).status).toBe(204);
      for (const id of doomedIds) expectError(await client.get(`/api/incidents/${id}`), 404, 'INCIDENT_NOT_FOUND');
      expect(ids((await list(client)).incidents)).toEqual([keptIncident.id]);
      expect((await list(client, `?monitor_id=${doomed.id}`)).incidents).toEqual([]);
      expect(await get(client, keptIncident.id)).toStrictEqual(keptIncident);
      // A late transition for the deleted monitor opens nothing.
      await down(doomed.id);
      expect(ids((await list(client)).incidents)).toEqual([keptIncident.id]);
    });
  });

  // ---- the list ----------------------------------------------------------------------------

  describe('the list', () => {
    let client: ApiClient;
    let a: string;
    let b: string;
    /** Every incident of the account, newest first. */
    let all: Incident[];

    beforeAll(async () => {
      client = (await c.newAccount('lists')).client;
      a = (await createMonitor(client, { name: 'A' })).id;
      b = (await createMonitor(client, { name: 'B' })).id;
      // Interleaved outages: A, B, A, B, A resolved; then A and B open.
      for (const id of [a, b, a, b, a]) await outage(id);
      await down(a);
      tick();
      await down(b);
      tick();
      all = (await list(client, '?per_page=100')).incidents;
    });

    it('holds every incident of the account, newest first by started_at', () => {
      expect(all).toHaveLength(7);
      const starts = all.map((i) => i.started_at);
      expect(starts).toEqual([...starts].sort((x, y) => y - x));
      expect(new Set(starts).size).toBe(7);
      expect(all.map((i) => i.monitor_id)).toEqual([b, a, a, b, a, b, a]);
    });

    it('is reversed by order=asc, and order=desc is the default', async () => {
      expect(ids((await list(client, '?order=asc')).incidents)).toEqual(ids(all).reverse());
      expect(ids((await list(client, '?order=desc')).incidents)).toEqual(ids(all));
      expect(ids((await list(client)).incidents)).toEqual(ids(all));
    });

    it.each([
      ['?per_page=20', () => all],
      ['?resolved=true', () => all.filter((i) => i.is_resolved)],
      ['?resolved=false', () => all.filter((i) => !i.is_resolved)],
      ['?monitor_id=A', () => all.filter((i) => i.monitor_id === a)],
      ['?monitor_id=B', () => all.filter((i) => i.monitor_id === b)],
      ['?monitor_id=A&resolved=true', () => all.filter((i) => i.monitor_id === a && i.is_resolved)],
      ['?monitor_id=A&resolved=false', () => all.filter((i) => i.monitor_id === a && !i.is_resolved)],
      ['?resolved=true&monitor_id=B&order=asc', () => all.filter((i) => i.monitor_id === b && i.is_resolved).reverse()],
      ['?monitor_id=A&resolved=false&page=2', () => []],
    ])('filters %s', async (query, expected) => {
      const data = await list(client, query.replace('=A', `=${a}`).replace('=B', `=${b}`));
      expect(ids(data.incidents)).toEqual(ids(expected()));
      expect(data.pagination.total).toBe(/[?&]page=2/.test(query) ? 1 : expected().length);
    });

    it('filters by a monitor id that is unknown or another account’s to an empty page', async () => {
      const stranger = (await c.newAccount('stranger')).client;
      const foreign = await createMonitor(stranger);
      await down(foreign.id);
      for (const id of [UNKNOWN_ID, foreign.id]) {
        const data = await list(client, `?monitor_id=${id}`);
        expect(data).toEqual({
          incidents: [],
          pagination: { page: 1, per_page: 20, total: 0, total_pages: 0, has_next: false, has_prev: false },
        });
      }
      expect(ids((await list(stranger)).incidents)).toHaveLength(1);
      expect((await list(stranger, `?monitor_id=${a}`)).incidents).toEqual([]);
    });

    it('pages through the same order without gaps or repeats', async () => {
      const pages: Incident[] = [];
      for (let page = 1; page <= 3; page++) {
        const data = await list(client, `?per_page=3&page=${page}`);
        expect(data.pagination).toEqual({
          page,
          per_page: 3,
          total: 7,
          total_pages: 3,
          has_next: page < 3,
          has_prev: page > 1,
        });
        pages.push(...data.incidents);
      }
      expect(ids(pages)).toEqual(ids(all));
      const past = await list(client, '?per_page=3&page=4');
      expect(past).toEqual({
        incidents: [],
        pagination: { page: 4, per_page: 3, total: 7, total_pages: 3, has_next: false, has_prev: true },
      });
      const far = await list(client, '?page=2147483647');
      expect(far.incidents).toEqual([]);
      expect(far.pagination).toMatchObject({ page: 2147483647, total: 7, has_next: false, has_prev: true });
    });

    it.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=2147483648', 'page'],
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['per_page=ten', 'per_page'],
      ['order=newest', 'order'],
      ['order=DESC', 'order'],
      ['resolved=yes', 'resolved'],
      ['resolved=1', 'resolved'],
      ['resolved=TRUE', 'resolved'],
      ['resolved=', 'resolved'],
      ['monitor_id=nope', 'monitor_id'],
      ['monitor_id=', 'monitor_id'],
      [`monitor_id=${UNKNOWN_ID.toUpperCase()}`, 'monitor_id'],
      [`monitor_id=${UNKNOWN_ID}0`, 'monitor_id'],
      ['sort=started_at', 'sort'],
      ['status=open', 'status'],
    ])('refuses ?%s with 422 naming %s', async (query, field) => {
      expectValidationError(await client.get(`/api/incidents?${query}`), field);
    });

    it('reports every bad parameter at once', async () => {
      const res = await client.get('/api/incidents?resolved=maybe&per_page=500&monitor_id=x');
      expectValidationError(res, 'resolved');
      const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
      expect(fields).toEqual(['monitor_id', 'per_page', 'resolved']);
    });
  });

  describe('page sizes', () => {
    let client: ApiClient;
    let monitorId: string;

    beforeAll(async () => {
      client = (await c.newAccount('page sizes')).client;
      monitorId = (await createMonitor(client)).id;
      for (let i = 0; i < 101; i++) await outage(monitorId, 5);
    });

    it('defaults to 20 per page', async () => {
      const first = await list(client);
      expect(first.incidents).toHaveLength(20);
      expect(first.pagination).toEqual({
        page: 1,
        per_page: 20,
        total: 101,
        total_pages: 6,
        has_next: true,
        has_prev: false,
      });
      const last = await list(client, '?page=6');
      expect(last.incidents).toHaveLength(1);
      expect(last.pagination).toMatchObject({ page: 6, has_next: false, has_prev: true });
    });

    it('allows up to 100 per page and refuses 101', async () => {
      const full = await list(client, '?per_page=100');
      expect(full.incidents).toHaveLength(100);
      expect(full.pagination).toMatchObject({ per_page: 100, total: 101, total_pages: 2 });
      const rest = await list(client, '?per_page=100&page=2');
      expect(rest.incidents).toHaveLength(1);
      expect(new Set([...ids(full.incidents), ...ids(rest.incidents)]).size).toBe(101);
      expectValidationError(await client.get('/api/incidents?per_page=101'), 'per_page');
      expect((await list(client, '?per_page=1')).incidents).toHaveLength(1);
    });
  });

  // ---- comments ----------------------------------------------------------------------------

  describe('the comment', () => {
    let client: ApiClient;
    let monitorId: string;
    let incident: Incident;

    beforeAll(async () => {
      client = (await c.newAccount('comments')).client;
      monitorId = (await createMonitor(client)).id;
      await outage(monitorId, 300);
      incident = (await list(client)).incidents[0]!;
    });

    it('is empty by default, and PUT sets it and answers the whole incident', async () => {
      expect(incident.user_comment).toBe('');
      const text = 'Upstream DNS outage.\r\nFixed by the provider;\tno action on our side. ✅';
      const res = await comment(client, incident.id, { comment: text });
      expect(res.status).toBe(200);
      expect(res.body).toStrictEqual({ status: 'ok', data: { ...incident, user_comment: text } });
      expect(await get(client, incident.id)).toStrictEqual({ ...incident, user_comment: text });
      expect((await list(client)).incidents[0]!.user_comment).toBe(text);
    });

    it('is replaced by the next PUT, and cleared by an empty one', async () => {
      expect((await comment(client, incident.id, { comment: 'first' })).body.data.user_comment).toBe('first');
      expect((await comment(client, incident.id, { comment: 'second' })).body.data.user_comment).toBe('second');
      expect((await comment(client, incident.id, { comment: '' })).body.data.user_comment).toBe('');
      expect((await get(client, incident.id)).user_comment).toBe('');
    });

    it('takes 5000 code points, emoji included, and refuses 5001', async () => {
      const emoji = '🚑'.repeat(5000);
      expect(emoji.length).toBe(10_000);
      const res = await comment(client, incident.id, { comment: emoji });
      expect(res.status).toBe(200);
      expect(res.body.data.user_comment).toBe(emoji);
      const mixed = `${'é'.repeat(2500)}${'🔥'.repeat(2500)}`;
      expect((await comment(client, incident.id, { comment: mixed })).status).toBe(200);
      expect((await get(client, incident.id)).user_comment).toBe(mixed);

      for (const tooLong of ['x'.repeat(5001), '🚑'.repeat(5001), `${mixed}.`]) {
        expectValidationError(await comment(client, incident.id, { comment: tooLong }), 'comment');
      }
      expect((await get(client, incident.id)).user_comment).toBe(mixed);
    });

    it.each([
      ['a number', { comment: 5 }],
      ['null', { comment: null }],
      ['a boolean', { comment: true }],
      ['an array', { comment: ['x'] }],
      ['an object', { comment: { text: 'x' } }],
      ['a NUL character', { comment: 'a\u0000b' }],
      ['a control character', { comment: 'bell\u0007' }],
      ['no comment field', {}],
    ])('refuses %s with 422 naming comment', async (_, json) => {
      expectValidationError(await comment(client, incident.id, json), 'comment');
    });

    it('refuses unknown fields and bodies that are not objects', async () => {
      expectValidationError(await comment(client, incident.id, { comment: 'ok', user_comment: 'x' }), 'user_comment');
      for (const json of [['x'], 'text', 42, null]) {
        const res = await comment(client, incident.id, json);
        expectError(res, 422, 'VALIDATION_ERROR');
      }
      expectError(await client.request('PUT', `/api/incidents/${incident.id}/comment`), 422, 'VALIDATION_ERROR');
      expect((await get(client, incident.id)).user_comment).not.toBe('x');
    });

    it('can be set while the incident is open, and survives its resolution', async () => {
      await down(monitorId);
      const open = await openIncidentOf(client, monitorId);
      expect((await comment(client, open.id, { comment: 'Looking into it' })).status).toBe(200);
      tick(60);
      await up(monitorId);
      expect(await get(client, open.id)).toMatchObject({ is_resolved: true, user_comment: 'Looking into it' });
    });

    it('answers 404 for a missing incident before judging the body', async () => {
      const reference = await comment(client, UNKNOWN_ID, { comment: 'fine' });
      expectError(reference, 404, 'INCIDENT_NOT_FOUND');
      for (const json of [{ comment: 5 }, { comment: 'x'.repeat(5001) }, { nope: true }, [], undefined]) {
        expectSame404(await comment(client, UNKNOWN_ID, json), reference, JSON.stringify(json));
      }
    });
  });

  // ---- isolation ---------------------------------------------------------------------------

  describe('another account', () => {
    it('never sees, reads or comments on the incident; foreign, unknown and malformed ids get the same 404', async () => {
      const owner = (await c.newAccount('owner')).client;
      const stranger = (await c.newAccount('stranger')).client;
      const monitor = await createMonitor(owner);
      await down(monitor.id);
      const incident = await openIncidentOf(owner, monitor.id);
      const before = (await owner.get(`/api/incidents/${incident.id}`)).text;

      expect((await list(stranger)).incidents).toEqual([]);
      expect((await list(stranger, '?resolved=false')).pagination.total).toBe(0);

      const reference = await stranger.get(`/api/incidents/${UNKNOWN_ID}`);
      expectError(reference, 404, 'INCIDENT_NOT_FOUND');
      for (const id of [
        incident.id,
        'nope',
        incident.id.toUpperCase(),
        `${incident.id}0`,
        incident.id.slice(1),
        '%zz',
        '%E0%A4%A',
      ]) {
        expectSame404(await stranger.get(`/api/incidents/${id}`), reference, `GET ${id}`);
        expectSame404(await owner.get(`/api/incidents/${id === incident.id ? UNKNOWN_ID : id}`), reference, id);
        expectSame404(await comment(stranger, id, { comment: 'mine now' }), reference, `PUT ${id}`);
        expectSame404(await comment(stranger, id, { comment: 5 }), reference, `PUT bad ${id}`);
      }
      expect((await owner.get(`/api/incidents/${incident.id}`)).text).toBe(before);
    });
  });

  // ---- permissions -------------------------------------------------------------------------

  describe('permissions', () => {
    it('incidents:read reads, incidents:write comments, and nothing else does either', async () => {
      const { accountId, client: admin } = await c.newAccount('permissions');
      const monitor = await createMonitor(admin);
      await down(monitor.id);
      const incident = await openIncidentOf(admin, monitor.id);
      const key = async (permissions: readonly Permission[]) => (await c.newKey(accountId, permissions)).client;

      const reader = await key(['incidents:read']);
      expect((await reader.get('/api/incidents')).status).toBe(200);
      expect((await reader.get(`/api/incidents/${incident.id}`)).status).toBe(200);
      expectError(await comment(reader, incident.id, { comment: 'x' }), 403, 'FORBIDDEN');

      const writer = await key(['incidents:write']);
      expectError(await writer.get('/api/incidents'), 403, 'FORBIDDEN');
      expectError(await writer.get(`/api/incidents/${incident.id}`), 403, 'FORBIDDEN');
      const res = await comment(writer, incident.id, { comment: 'from a narrow key' });
      expect(res.status).toBe(200);
      expect(res.body.data.user_comment).toBe('from a narrow key');

      const others = await key(SPEC_PERMISSIONS.filter((p) => !p.startsWith('incidents:')));
      expectError(await others.get('/api/incidents'), 403, 'FORBIDDEN');
      expectError(await others.get(`/api/incidents/${incident.id}`), 403, 'FORBIDDEN');
      expectError(await comment(others, incident.id, { comment: 'x' }), 403, 'FORBIDDEN');
      // 403 comes before the id and the body are looked at.
      expectError(await reader.put(`/api/incidents/${UNKNOWN_ID}/comment`, { comment: 5 }), 403, 'FORBIDDEN');
      expectError(await writer.get('/api/incidents/nope'), 403, 'FORBIDDEN');

      expect((await get(admin, incident.id)).user_comment).toBe('from a narrow key');
      expectError(await c.client().get('/api/incidents'), 401, 'UNAUTHORIZED');
    });
  });
});
