import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountsService } from '../../apps/coordinator/src/auth/accounts.service.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { createMonitor, monitorBody } from '../support/monitor-fixtures.js';
import { SPEC_REGIONS } from '../support/spec-lists.js';

const MAX_MONITORS = 4;
const MAX_CONTACTS = 3;
const QUOTAS = { MAX_MONITORS_PER_ACCOUNT: String(MAX_MONITORS), MAX_CONTACTS_PER_ACCOUNT: String(MAX_CONTACTS) };

const contactBody = (name = 'On call') => ({ name, channel: 'email', details: { email: 'oncall@example.com' } });

function expectCode(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
}

/**
 * Quotas and subscriptions (docs/decisions/0018-abuse-limits-and-quotas.md): at most
 * MAX_MONITORS_PER_ACCOUNT monitors and MAX_CONTACTS_PER_ACCOUNT contacts per account, paused
 * ones included; a create past them is 403 QUOTA_EXCEEDED, however many requests race, on any
 * replica. An inactive subscription refuses creating monitors with 402, as it refuses resume.
 */
describe.each(testDatabases())('quotas and subscriptions on $name', (kind) => {
  let db: TestDatabase;
  let c: RunningCoordinator;
  /** A second coordinator on the same database: another replica. */
  let replica: RunningCoordinator;

  beforeAll(async () => {
    db = await kind.create();
    c = await startCoordinator(db.url, { env: QUOTAS });
    replica = await startCoordinator(db.url, { env: QUOTAS });
  }, 60_000);

  afterAll(async () => {
    await replica?.close();
    await c?.close();
    await db?.drop();
  });

  const count = async (client: ApiClient, what: 'monitors' | 'contacts') => {
    const res = await client.get(`/api/${what}?per_page=100`);
    return what === 'monitors' ? (res.body.data.pagination.total as number) : (res.body.pagination.total as number);
  };

  it('refuses the monitor past MAX_MONITORS_PER_ACCOUNT with 403 QUOTA_EXCEEDED naming the limit; paused ones count', async () => {
    const { client } = await c.newAccount('monitor quota');
    const other = await c.newAccount('other');
    // Every region: the quota counts monitors, not monitors × regions.
    await createMonitor(client, { active: false, regions: [...SPEC_REGIONS] });
    for (let i = 1; i < MAX_MONITORS; i++) await createMonitor(client, { name: `site ${i}` });

    const refused = await client.post('/api/monitors', monitorBody({ name: 'one too many' }));
    expectCode(refused, 403, 'QUOTA_EXCEEDED');
    expect(refused.body.error.message).toContain(String(MAX_MONITORS));
    expect(refused.body.error.message).toContain('monitors');
    expectCode(await client.post('/api/monitors', monitorBody({ active: false })), 403, 'QUOTA_EXCEEDED');
    expect(await count(client, 'monitors')).toBe(MAX_MONITORS);

    // Another account has its own quota.
    await createMonitor(other.client);
    // Deleting one makes room for exactly one more.
    const list = await client.get('/api/monitors?per_page=100');
    expect((await client.delete(`/api/monitors/${list.body.data.monitors[0].id}`)).status).toBe(204);
    await createMonitor(client, { name: 'fits again' });
    expectCode(await client.post('/api/monitors', monitorBody()), 403, 'QUOTA_EXCEEDED');
  });

  it('never goes past the monitor quota when creates race on two replicas', async () => {
    const { apiKey } = await c.newAccount('monitor race');
    const clients = [c.client(apiKey), replica.client(apiKey)];
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) => clients[i % 2]!.post('/api/monitors', monitorBody({ name: `race ${i}` }))),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 201 && s !== 403)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_MONITORS);
    expect(await count(clients[0]!, 'monitors')).toBe(MAX_MONITORS);
  });

  it('refuses the contact past MAX_CONTACTS_PER_ACCOUNT, and never goes past it when creates race on two replicas', async () => {
    const { client } = await c.newAccount('contact quota');
    for (let i = 0; i < MAX_CONTACTS; i++) expect((await client.post('/api/contacts', contactBody())).status).toBe(201);
    const refused = await client.post('/api/contacts', contactBody('one too many'));
    expectCode(refused, 403, 'QUOTA_EXCEEDED');
    expect(refused.body.error.message).toContain(String(MAX_CONTACTS));
    expect(refused.body.error.message).toContain('contacts');
    expect(await count(client, 'contacts')).toBe(MAX_CONTACTS);

    const { apiKey } = await c.newAccount('contact race');
    const clients = [c.client(apiKey), replica.client(apiKey)];
    const answers = await Promise.all(
      Array.from({ length: 18 }, (_, i) => clients[i % 2]!.post('/api/contacts', contactBody(`race ${i}`))),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 201 && s !== 403)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_CONTACTS);
    expect(await count(clients[0]!, 'contacts')).toBe(MAX_CONTACTS);
  });

  it('an inactive subscription refuses creating monitors with 402 SUBSCRIPTION_NOT_ACTIVE, as it refuses resume', async () => {
    const { accountId, client } = await c.newAccount('billing');
    const paused = await createMonitor(client, { active: false });
    const running = await createMonitor(client);
    await c.app.get(AccountsService).setSubscription(accountId, 'inactive');

    expectCode(await client.post('/api/monitors', monitorBody()), 402, 'SUBSCRIPTION_NOT_ACTIVE');
    expectCode(await client.post('/api/monitors', monitorBody({ active: true })), 402, 'SUBSCRIPTION_NOT_ACTIVE');
    // Paused monitors are checked too: creating one is refused the same way.
    expectCode(await client.post('/api/monitors', monitorBody({ active: false })), 402, 'SUBSCRIPTION_NOT_ACTIVE');
    expectCode(await client.post(`/api/monitors/${paused.id}/resume`), 402, 'SUBSCRIPTION_NOT_ACTIVE');
    expect(await count(client, 'monitors')).toBe(2);
    // What the subscription does not govern keeps working: pause, PUT (active as given), delete, contacts.
    expect((await client.post(`/api/monitors/${running.id}/pause`)).status).toBe(200);
    const put = await client.put(`/api/monitors/${running.id}`, { active: true });
    expect({ status: put.status, active: put.body.data?.active }).toEqual({ status: 200, active: true });
    expect((await client.post('/api/contacts', contactBody())).status).toBe(201);
    expect((await client.delete(`/api/monitors/${running.id}`)).status).toBe(204);

    await c.app.get(AccountsService).setSubscription(accountId, 'active');
    expect((await client.post('/api/monitors', monitorBody())).status).toBe(201);
    expect((await client.post(`/api/monitors/${paused.id}/resume`)).status).toBe(200);
  });
});
