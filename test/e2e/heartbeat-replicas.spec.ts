import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { PartitionManager } from '../../apps/coordinator/src/cluster/partition-manager.js';
import { PARTITION_COUNT } from '../../apps/coordinator/src/cluster/partitions.js';
import { MonitorRoster } from '../../apps/coordinator/src/scheduling/monitor-roster.js';
import { startCoordinator, type RunningCoordinator } from '../support/coordinator.js';
import { testDatabases, type TestDatabase } from '../support/databases.js';
import { describeWithNats, testNatsUrl } from '../support/nats.js';
import { waitFor } from '../support/wait.js';

/**
 * A heartbeat ping taken by a replica that does not own the monitor (docs/decisions/0027-heartbeat-monitors.md):
 * stored there, sent over NATS to the owner, which evaluates it. Two coordinators share one
 * database and one NATS; the test pings through the one that does not own the monitor.
 */
describeWithNats('heartbeat pings across coordinator replicas', () => {
  const prefix = `test_${randomBytes(4).toString('hex')}`;
  let db: TestDatabase;
  const replicas: RunningCoordinator[] = [];

  beforeAll(async () => {
    const kinds = testDatabases();
    db = await kinds[kinds.length - 1]!.create();
    for (const id of ['hb-a', 'hb-b']) {
      replicas.push(
        await startCoordinator(db.url, {
          env: {
            CHECKS_ENABLED: 'true',
            NATS_URL: testNatsUrl()!,
            NATS_SUBJECT_PREFIX: prefix,
            COORDINATOR_ID: id,
            COORDINATOR_LEASE_SECONDS: '2',
          },
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    for (const c of replicas) await c.close();
    await db?.drop();
  });

  it('a ping or a failure reported to the other replica decides the status on the owner', async () => {
    const [a, b] = replicas as [RunningCoordinator, RunningCoordinator];
    // The partitions are shared out first (each replica holds some, together all of them): otherwise a
    // handover between the ping and the failure could hand the failure to a replica that no longer
    // owns the monitor (a lost notice waits for the deadline, docs/decisions/0027-heartbeat-monitors.md).
    await waitFor(
      'the partitions shared out',
      () => {
        const held = replicas.map((r) => r.app.get(PartitionManager).partitions.length);
        return Promise.resolve(held.every((n) => n > 0) && held[0]! + held[1]! === PARTITION_COUNT ? true : undefined);
      },
      30_000,
    );
    const { apiKey } = await a.newAccount('replicas');
    const created = await a.client(apiKey).post('/api/monitors', {
      name: 'cron',
      settings: { heartbeat: { period: 3600, grace: 300 } },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const token = (created.body.data.settings.heartbeat.ping_url as string).split('/ping/')[1]!;
    // Once the leases have settled, exactly one replica owns the monitor.
    const owner = await waitFor(
      'one owner',
      async () => {
        const owners = replicas.filter((r) => r.app.get(MonitorRoster).owns(id));
        return owners.length === 1 ? owners[0] : undefined;
      },
      30_000,
    );
    const other = owner === a ? b : a;
    const status = async () => (await owner.client(apiKey).get(`/api/monitors/${id}`)).body.data.last_status;

    expect((await fetch(`${other.baseUrl}/ping/${token}`)).status).toBe(200);
    await waitFor('up on the owner', async () => ((await status()) === 'up' ? true : undefined), 15_000);
    expect((await fetch(`${other.baseUrl}/ping/${token}/fail`, { method: 'POST' })).status).toBe(200);
    await waitFor('down on the owner', async () => ((await status()) === 'down' ? true : undefined), 15_000);
  }, 90_000);
});
