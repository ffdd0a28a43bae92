import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { PartitionManager } from '../../apps/coordinator/src/cluster/partition-manager.js';
import { PARTITION_COUNT } from '../../apps/coordinator/src/cluster/partitions.js';
import { StatusEvaluation } from '../../apps/coordinator/src/evaluation/status-evaluation.js';
import { ResultsWriter } from '../../apps/coordinator/src/history/results-writer.js';
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

  /** A new heartbeat monitor: its id, ping token, owner and the other replica (partitions shared out first). */
  const heartbeat = async (apiKey: string) => {
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
    return { id, token, owner, other };
  };

  it('a ping or a failure reported to the other replica decides the status on the owner', async () => {
    const { apiKey } = await replicas[0]!.newAccount('replicas');
    const { id, token, owner, other } = await heartbeat(apiKey);
    const status = async () => (await owner.client(apiKey).get(`/api/monitors/${id}`)).body.data.last_status;

    expect((await fetch(`${other.baseUrl}/ping/${token}`)).status).toBe(200);
    await waitFor('up on the owner', async () => ((await status()) === 'up' ? true : undefined), 15_000);
    expect((await fetch(`${other.baseUrl}/ping/${token}/fail`, { method: 'POST' })).status).toBe(200);
    await waitFor('down on the owner', async () => ((await status()) === 'down' ? true : undefined), 15_000);
  }, 90_000);

  it('a failure reported to the other replica in a maintenance window: stored in maintenance, not evaluated', async () => {
    const { apiKey } = await replicas[0]!.newAccount('replicas in maintenance');
    const { id, token, owner, other } = await heartbeat(apiKey);
    const status = async () => (await owner.client(apiKey).get(`/api/monitors/${id}`)).body.data.last_status;
    expect((await fetch(`${other.baseUrl}/ping/${token}`)).status).toBe(200);
    await waitFor('up on the owner', async () => ((await status()) === 'up' ? true : undefined), 15_000);
    // Made through the replica that takes the ping: the owner's calendar learns of it only later.
    const now = Math.floor(Date.now() / 1000);
    const window = await other.client(apiKey).post('/api/maintenance_windows', {
      name: 'backup rework',
      monitors: [id],
      starts_at: now - 60,
      ends_at: now + 3600,
    });
    expect(window.status).toBe(201);
    const waiting = owner.app.get(StatusEvaluation).waitingForWindows;

    expect((await fetch(`${other.baseUrl}/ping/${token}/fail`, { method: 'POST' })).status).toBe(200);
    await other.app.get(ResultsWriter).flush();
    const checks = (await owner.client(apiKey).get(`/api/monitors/${id}/checks?per_page=10`)).body.data.checks as any[];
    expect(checks[0]).toMatchObject({ status: 'down', in_maintenance: true });
    // The owner took it as an owner-handled ping in the window: waiting for the window's end, not down.
    await waitFor(
      'the owner waiting for the window',
      () => Promise.resolve(owner.app.get(StatusEvaluation).waitingForWindows > waiting ? true : undefined),
      15_000,
    );
    expect(await status()).toBe('up');
  }, 90_000);
});
