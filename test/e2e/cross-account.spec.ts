/**
 * Isolation between accounts (docs/decisions/0002-wire-conventions.md): three accounts make
 * random calls over the whole API with ids drawn from every account, of every kind, deleted
 * ones and unknown ones. After every call:
 * - no 5xx; an error is the documented envelope, its code matching its status;
 * - a path id the caller does not own (another account's, another kind's, deleted, unknown)
 *   gets the route's 404, byte for byte the answer for a fresh unknown id;
 * - a body that names an id the caller does not own is 422; one naming only its own succeeds;
 * - no answer carries an id of another account (no cross-account read);
 * - every other account's monitors, contacts, incidents, status pages and account figures are
 *   exactly as before, and no notification left for another account's contact (no
 *   cross-account write).
 * The owners' own calls change their own data, so the world keeps moving while it is probed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { ManualClock } from '#runtime';
import { TransitionWriter } from '../../apps/coordinator/src/transitions/transition.writer.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { STATUS_OF_CODE } from '../support/error-codes.js';
import { FakeReceiver, reply } from '../support/fake-receiver.js';
import { createContact, createMonitor, monitorBody } from '../support/monitor-fixtures.js';

const SEED = Number(process.env.PICKET_CROSS_ACCOUNT_SEED ?? 20261124);
const NOW_MS = Date.UTC(2026, 10, 24, 12, 0, 0);

type Kind = 'monitor' | 'contact' | 'incident' | 'status_page';

const ROUTE: { readonly [K in Kind]: { path: string; notFound: string } } = {
  monitor: { path: '/api/monitors', notFound: 'MONITOR_NOT_FOUND' },
  contact: { path: '/api/contacts', notFound: 'CONTACT_NOT_FOUND' },
  incident: { path: '/api/incidents', notFound: 'INCIDENT_NOT_FOUND' },
  status_page: { path: '/api/status_pages', notFound: 'STATUS_PAGE_NOT_FOUND' },
};

interface Owned {
  id: string;
  kind: Kind;
  account: number;
  /** Contacts: the channel, for what a test notification does. */
  channel?: string;
  /** Incidents: their monitor, whose deletion takes them along. */
  monitorId?: string;
  deleted: boolean;
}

/** Every id the test knows of, with its owner; ids created during the run join it. */
class Registry {
  private readonly byId = new Map<string, Owned>();

  add(entry: Omit<Owned, 'deleted'>): void {
    this.byId.set(entry.id, { ...entry, deleted: false });
  }
  get(id: string): Owned | undefined {
    return this.byId.get(id);
  }
  /** Live objects of this kind owned by the account. */
  live(account: number, kind: Kind): Owned[] {
    return [...this.byId.values()].filter((o) => o.account === account && o.kind === kind && !o.deleted);
  }
  all(): Owned[] {
    return [...this.byId.values()];
  }
  delete(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    entry.deleted = true;
    // docs/decisions/0004-monitors.md: a monitor goes with its incidents.
    if (entry.kind === 'monitor') {
      for (const other of this.byId.values()) if (other.monitorId === id) other.deleted = true;
    }
  }
  /** Whether `id` names a live object of this kind that the account owns. */
  owns(account: number, id: string, kind: Kind): boolean {
    const entry = this.byId.get(id);
    return entry !== undefined && entry.account === account && entry.kind === kind && !entry.deleted;
  }
  ownerOf(id: string): number | undefined {
    return this.byId.get(id)?.account;
  }
}

/** A call, as drawn: who makes it, what it does, and the id (index into the pool) it names. */
type Op =
  | { op: 'get'; kind: Kind }
  | { op: 'update'; kind: Kind; method: 'PUT' | 'PATCH' }
  | { op: 'delete'; kind: 'monitor' | 'contact' | 'status_page' }
  | { op: 'action'; kind: 'monitor'; action: 'pause' | 'resume' | 'checks' | 'stats' }
  | { op: 'action'; kind: 'contact'; action: 'reactivate' | 'test' | 'deliveries' }
  | {
      op: 'reference';
      what: 'monitor-with-contact' | 'page-with-monitor' | 'update-monitor-contacts' | 'update-page-monitors';
    }
  | { op: 'list'; what: 'monitors' | 'contacts' | 'incidents' | 'status_pages' | 'account' | 'incidents-of-monitor' };

/**
 * Which id a call names, relative to the caller and the kind the call is about: its own,
 * another account's (live or deleted), one of another kind, any known id, or a fresh unknown one.
 */
type Pick = { from: 'own' | 'foreign' | 'other-kind' | 'any' | 'unknown'; index: number };

interface Call {
  actor: number;
  op: Op;
  pick: Pick;
}

const KINDS: Kind[] = ['monitor', 'contact', 'incident', 'status_page'];
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constantFrom(...KINDS).map((kind): Op => ({ op: 'get', kind })), weight: 4 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom(...KINDS), fc.constantFrom('PUT' as const, 'PATCH' as const))
      .map(([kind, method]): Op => ({ op: 'update', kind, method: kind === 'status_page' ? method : 'PUT' })),
    weight: 4,
  },
  {
    arbitrary: fc
      .constantFrom('monitor' as const, 'contact' as const, 'status_page' as const)
      .map((kind): Op => ({ op: 'delete', kind })),
    weight: 1,
  },
  {
    arbitrary: fc.oneof(
      fc
        .constantFrom('pause' as const, 'resume' as const, 'checks' as const, 'stats' as const)
        .map((action): Op => ({ op: 'action', kind: 'monitor', action })),
      fc
        .constantFrom('reactivate' as const, 'test' as const, 'deliveries' as const)
        .map((action): Op => ({ op: 'action', kind: 'contact', action })),
    ),
    weight: 3,
  },
  {
    arbitrary: fc
      .constantFrom(
        'monitor-with-contact' as const,
        'page-with-monitor' as const,
        'update-monitor-contacts' as const,
        'update-page-monitors' as const,
      )
      .map((what): Op => ({ op: 'reference', what })),
    weight: 3,
  },
  {
    arbitrary: fc
      .constantFrom(
        'monitors' as const,
        'contacts' as const,
        'incidents' as const,
        'status_pages' as const,
        'account' as const,
        'incidents-of-monitor' as const,
      )
      .map((what): Op => ({ op: 'list', what })),
    weight: 2,
  },
);

const ACCOUNTS = 3;
const callArb: fc.Arbitrary<Call> = fc.record({
  actor: fc.integer({ min: 0, max: ACCOUNTS - 1 }),
  op: opArb,
  pick: fc.record({
    from: fc.oneof(
      { arbitrary: fc.constant('own' as const), weight: 3 },
      { arbitrary: fc.constant('foreign' as const), weight: 4 },
      { arbitrary: fc.constant('other-kind' as const), weight: 1 },
      { arbitrary: fc.constant('any' as const), weight: 1 },
      { arbitrary: fc.constant('unknown' as const), weight: 1 },
    ),
    index: fc.nat(),
  }),
});

/** The kind of object a call's id is meant to be. */
function kindOf(op: Op): Kind {
  switch (op.op) {
    case 'reference':
      return op.what === 'monitor-with-contact' || op.what === 'update-monitor-contacts' ? 'contact' : 'monitor';
    case 'list':
      return 'monitor';
    default:
      return op.kind;
  }
}

const ID_PATTERN = /\b[0-9a-f]{24}\b/g;

describe.each(testDatabases())('isolation between accounts on $name', (kind) => {
  const RUNS = Number(process.env.PICKET_CROSS_ACCOUNT_RUNS ?? (kind.name === 'sqlite' ? 400 : 200));
  let db: TestDatabase;
  let c: RunningCoordinator;
  const clients: ApiClient[] = [];
  const registry = new Registry();
  const receiver = new FakeReceiver((_req, res) => reply(res, 200, { ok: true }));
  let serial = 0;

  beforeAll(async () => {
    db = await kind.create();
    await receiver.start({ https: false });
    c = await startCoordinator(db.url, {
      clock: new ManualClock(NOW_MS),
      env: { RATE_LIMIT_POINTS_PER_HOUR: '100000000' },
    });
    const transitions = c.app.get(TransitionWriter);
    const now = Math.floor(NOW_MS / 1000);
    for (let account = 0; account < ACCOUNTS; account++) {
      const { client } = await c.newAccount(`account ${account}`);
      clients.push(client);
      const email = await createContact(client, `Email ${account}`);
      registry.add({ id: email, kind: 'contact', account, channel: 'email' });
      const hook = await client.post('/api/contacts', {
        name: `Hook ${account}`,
        channel: 'webhook',
        details: { url: `${receiver.baseUrl}/hook/${account}` },
      });
      expect(hook.status).toBe(201);
      registry.add({ id: hook.body.contact.id, kind: 'contact', account, channel: 'webhook' });
      for (let i = 0; i < 2; i++) {
        // No contacts at first: the incidents below queue no notification that could change a contact meanwhile.
        const monitor = await createMonitor(client, { name: `Monitor ${account}.${i}` });
        registry.add({ id: monitor.id, kind: 'monitor', account });
        // A resolved incident on each monitor, and one still open on the second.
        await transitions.write({
          monitorId: monitor.id,
          status: 'down',
          changedAt: now - 600,
          reason: 'HTTP 503',
          evidence: {},
        });
        await transitions.write({
          monitorId: monitor.id,
          status: 'up',
          changedAt: now - 300,
          reason: null,
          evidence: {},
        });
        if (i === 1) {
          await transitions.write({
            monitorId: monitor.id,
            status: 'down',
            changedAt: now - 60,
            reason: 'timeout',
            evidence: {},
          });
        }
        const incidents = await client.get(`/api/incidents?monitor_id=${monitor.id}`);
        for (const incident of incidents.body.data.incidents) {
          registry.add({ id: incident.id, kind: 'incident', account, monitorId: monitor.id });
        }
      }
      const page = await client.post('/api/status_pages', {
        name: `Page ${account}`,
        monitors: registry.live(account, 'monitor').map((m) => m.id),
      });
      expect(page.status).toBe(201);
      registry.add({ id: page.body.data.id, kind: 'status_page', account });
    }
  }, 60_000);

  afterAll(async () => {
    await c?.close();
    await receiver.stop();
    await db?.drop();
  });

  /** Everything an account can read about itself, as text: what a foreign call must never change. */
  async function snapshot(account: number): Promise<string> {
    const client = clients[account] as ApiClient;
    const parts = await Promise.all(
      [
        '/api/monitors?per_page=100',
        '/api/contacts?per_page=100',
        '/api/incidents?per_page=100',
        '/api/status_pages?per_page=100',
        '/api/account',
      ].map(async (path) => {
        const res = await client.get(path);
        expect(res.status).toBe(200);
        return res.text;
      }),
    );
    return parts.join('\n');
  }

  /** The id a call names (see Pick); a fresh unknown id when there is none to pick from. */
  function idOf(call: Call): string {
    const wanted = kindOf(call.op);
    const candidates = registry.all().filter((o) => {
      switch (call.pick.from) {
        case 'own':
          return o.account === call.actor && o.kind === wanted && !o.deleted;
        case 'foreign':
          return o.account !== call.actor && o.kind === wanted;
        case 'other-kind':
          return o.kind !== wanted;
        case 'any':
          return true;
        case 'unknown':
          return false;
      }
    });
    const picked = candidates[call.pick.index % Math.max(1, candidates.length)];
    return picked?.id ?? randomBytes(12).toString('hex');
  }

  function ownOf(account: number, kindOf: Kind): string | undefined {
    return registry.live(account, kindOf)[0]?.id;
  }

  /** Runs one call; checks what it answered against who owns what; keeps the registry current. */
  async function perform(call: Call): Promise<{ res: ApiResponse; id: string; receiverPath?: string }> {
    const client = clients[call.actor] as ApiClient;
    const id = idOf(call);
    const answered = (res: ApiResponse, receiverPath?: string) => ({ res, id, receiverPath });
    const name = `renamed ${++serial}`;
    const { op } = call;
    const expectNotFound = async (res: ApiResponse, k: Kind, method: string, suffix: string, body?: unknown) => {
      const reference = await client.request(method, `${ROUTE[k].path}/${randomBytes(12).toString('hex')}${suffix}`, {
        json: body,
      });
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 404, code: ROUTE[k].notFound });
      expect(res.text).toBe(reference.text);
    };

    switch (op.op) {
      case 'get': {
        const res = await client.get(`${ROUTE[op.kind].path}/${id}`);
        if (registry.owns(call.actor, id, op.kind)) expect(res.status).toBe(200);
        else await expectNotFound(res, op.kind, 'GET', '');
        return answered(res);
      }
      case 'update': {
        const body =
          op.kind === 'incident' ? { comment: name } : op.kind === 'status_page' ? { name, period: 7 } : { name };
        const suffix = op.kind === 'incident' ? '/comment' : '';
        const res = await client.request(op.method, `${ROUTE[op.kind].path}/${id}${suffix}`, { json: body });
        if (registry.owns(call.actor, id, op.kind)) expect(res.status).toBe(200);
        else await expectNotFound(res, op.kind, op.method, suffix, body);
        return answered(res);
      }
      case 'delete': {
        const res = await client.delete(`${ROUTE[op.kind].path}/${id}`);
        if (registry.owns(call.actor, id, op.kind)) {
          expect(res.status).toBe(204);
          registry.delete(id);
        } else {
          await expectNotFound(res, op.kind, 'DELETE', '');
        }
        return answered(res);
      }
      case 'action': {
        const method = op.action === 'checks' || op.action === 'stats' || op.action === 'deliveries' ? 'GET' : 'POST';
        const suffix = op.action === 'stats' ? '/stats?period=24h' : `/${op.action}`;
        const res = await client.request(method, `${ROUTE[op.kind].path}/${id}${suffix}`);
        if (!registry.owns(call.actor, id, op.kind)) {
          await expectNotFound(res, op.kind, method, suffix);
          return answered(res);
        }
        if (op.action !== 'test') {
          expect(res.status).toBe(200);
          return answered(res);
        }
        // A test of an own contact: the webhook reaches its own receiver path; e-mail has no SMTP here (422).
        const channel = registry.get(id)?.channel;
        expect(res.status).toBe(channel === 'webhook' ? 200 : 422);
        return answered(res, channel === 'webhook' ? `/hook/${call.actor}` : undefined);
      }
      case 'reference':
        return answered(await reference(call.actor, op.what, id, name));
      case 'list': {
        const path = {
          monitors: '/api/monitors?per_page=100',
          contacts: '/api/contacts?per_page=100',
          incidents: '/api/incidents?per_page=100',
          status_pages: '/api/status_pages?per_page=100',
          account: '/api/account',
          'incidents-of-monitor': `/api/incidents?monitor_id=${id}`,
        }[op.what];
        const res = await client.get(path);
        expect(res.status).toBe(200);
        if (op.what === 'incidents-of-monitor' && !registry.owns(call.actor, id, 'monitor')) {
          expect(res.body.data.incidents).toEqual([]);
        }
        return answered(res);
      }
    }
  }

  /** Calls whose body names an id: success exactly when the caller owns it (and it is of the right kind). */
  async function reference(actor: number, what: Extract<Op, { op: 'reference' }>['what'], id: string, name: string) {
    const client = clients[actor] as ApiClient;
    let res: ApiResponse;
    let ok: boolean;
    let success: number;
    switch (what) {
      case 'monitor-with-contact':
        res = await client.post('/api/monitors', monitorBody({ name, contacts: [id] }));
        ok = registry.owns(actor, id, 'contact');
        success = 201;
        if (res.status === 201) registry.add({ id: res.body.data.id, kind: 'monitor', account: actor });
        break;
      case 'page-with-monitor':
        res = await client.post('/api/status_pages', { name, monitors: [id] });
        ok = registry.owns(actor, id, 'monitor');
        success = 201;
        if (res.status === 201) registry.add({ id: res.body.data.id, kind: 'status_page', account: actor });
        break;
      case 'update-monitor-contacts': {
        const own = ownOf(actor, 'monitor');
        if (own === undefined) return client.get('/api/monitors');
        res = await client.put(`/api/monitors/${own}`, { contacts: [id] });
        ok = registry.owns(actor, id, 'contact');
        success = 200;
        break;
      }
      case 'update-page-monitors': {
        const own = ownOf(actor, 'status_page');
        if (own === undefined) return client.get('/api/status_pages');
        res = await client.patch(`/api/status_pages/${own}`, { monitors: [id] });
        ok = registry.owns(actor, id, 'monitor');
        success = 200;
        break;
      }
    }
    expect({ what, status: res.status, code: res.body?.error?.code }).toEqual(
      ok ? { what, status: success, code: undefined } : { what, status: 422, code: 'VALIDATION_ERROR' },
    );
    return res;
  }

  it('no call reads or writes another account’s data, and every refusal is a documented 4xx', async () => {
    const snapshots: string[] = [];
    for (let account = 0; account < ACCOUNTS; account++) snapshots.push(await snapshot(account));
    const counts = { calls: 0, foreignIds: 0, byStatus: new Map<number, number>() };

    await fc.assert(
      fc.asyncProperty(callArb, async (call) => {
        const before = receiver.requests.length;
        const { res, id, receiverPath } = await perform(call);
        counts.calls++;
        counts.byStatus.set(res.status, (counts.byStatus.get(res.status) ?? 0) + 1);
        const owner = registry.ownerOf(id);
        if (owner !== undefined && owner !== call.actor) counts.foreignIds++;

        // No 5xx; a refusal is the documented envelope with the code of its status.
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.body?.status).toBe('error');
          expect(STATUS_OF_CODE[res.body?.error?.code]).toBe(res.status);
        }
        // No cross-account read: no answer names another account's object.
        const leaked = (res.text.match(ID_PATTERN) ?? []).filter((id) => {
          const o = registry.ownerOf(id);
          return o !== undefined && o !== call.actor;
        });
        expect(leaked).toEqual([]);
        // No cross-account write: the others read exactly what they read before.
        for (let account = 0; account < ACCOUNTS; account++) {
          const now = await snapshot(account);
          if (account !== call.actor) expect(now).toBe(snapshots[account]);
          snapshots[account] = now;
        }
        // Notifications go only to the caller's own contacts.
        expect(receiver.requests.slice(before).map((r) => r.url)).toEqual(receiverPath ? [receiverPath] : []);
      }),
      // No shrinking: each call changes the world, so a shrunk call would be judged on another state.
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // The run really exercised foreign ids and both outcomes.
    expect(counts.foreignIds).toBeGreaterThan(RUNS / 4);
    expect(counts.byStatus.get(404) ?? 0).toBeGreaterThan(0);
    expect(counts.byStatus.get(200) ?? 0).toBeGreaterThan(0);
    expect(counts.byStatus.get(422) ?? 0).toBeGreaterThan(0);
  }, 300_000);
});
