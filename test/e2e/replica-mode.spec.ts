import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/faults.js';
import { ensureBuilt, startPicket, whenOutputMatches, type RunningProcess } from '../support/processes.js';

/**
 * The replica-mode guard as a user meets it: a coordinator started by mistake without NATS_URL
 * (or with another subject prefix) on the database of running NATS-mode replicas exits 1 with
 * the reason and the fix, before it schedules anything; one started the same way joins.
 * No NATS server is needed: the mode is what the replica is configured for, read from the
 * `coordinators` table, whatever the state of its connection (here a closed port).
 */
describe('replica-mode guard (real processes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'picket-replica-mode-'));
  const processes: RunningProcess[] = [];
  let env: (id: string, extra: Record<string, string>) => Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    const natsPort = await freePort(); // nothing listens there
    env = (id, extra) => ({
      DATABASE_URL: `sqlite:${join(dir, 'shared.db')}`,
      COORDINATOR_ID: id,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      NATS_SUBJECT_PREFIX: 'prod',
      HOST: '127.0.0.1',
      PORT: '0',
      CHECKS_ENABLED: 'true',
      DISPATCH_ENABLED: 'false',
      ...extra,
    });
    const first = startPicket('start', env('replica-a', {}));
    processes.push(first);
    await whenOutputMatches(first, /replica replica-a schedules/);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.kill('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [
      'without NATS_URL',
      { NATS_URL: '' },
      `runs on this database in NATS mode (subject prefix prod), but this one (replica-b) would run in embedded mode (no NATS_URL). ` +
        `Every replica of a cluster must run checks the same way: set NATS_URL to the running replicas' NATS servers ` +
        `and NATS_SUBJECT_PREFIX=prod, or point DATABASE_URL at another database.`,
    ],
    [
      'with another subject prefix',
      { NATS_SUBJECT_PREFIX: 'staging' },
      `but this one (replica-b) would run in NATS mode (subject prefix staging)`,
    ],
  ])(
    'a coordinator %s refuses to start, saying why and what to set',
    async (_name, extra, reason) => {
      const wrong = startPicket('start', env('replica-b', extra));
      processes.push(wrong);
      expect(await wrong.exited).toBe(1);
      const output = wrong.output();
      expect(output).toContain('picket: refusing to start: coordinator replica-a (seen ');
      expect(output).toContain(reason);
      expect(output).not.toMatch(/replica replica-b schedules/);
      expect(output).not.toMatch(/at Partition|\n\s+at /); // a refusal, not a stack trace
    },
    120_000,
  );

  it('a coordinator configured like the running replica joins it', async () => {
    const same = startPicket('start', env('replica-c', {}));
    processes.push(same);
    await whenOutputMatches(same, /replica replica-c schedules/);
    expect(same.output()).not.toContain('refusing to start');
  }, 120_000);
});
