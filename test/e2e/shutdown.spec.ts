import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../support/api-client.js';
import { freePort } from '../support/faults.js';
import { createMonitor } from '../support/monitor-fixtures.js';
import { startPicket, type RunningProcess } from '../support/processes.js';
import { waitFor } from '../support/wait.js';

const KEY = `pkt_${randomBytes(32).toString('hex')}`;
/** How long running checks may finish after SIGTERM (docs/operations.md); the stop must fit in it plus start-up slack. */
const DOCUMENTED_GRACE_MS = 10_000;
const SLACK_MS = 4_000;

/**
 * An embedded-mode coordinator stopped while a check hangs on a silent target: it waits the
 * documented grace for running checks once, not once for the dispatch and again for the
 * executor, and exits cleanly. A connection opened ahead of need and never used (as browsers
 * do) does not hold the exit either (docs/decisions/0036-connection-drain.md).
 */
describe('stopping an embedded coordinator with a check in flight', () => {
  const dir = mkdtempSync(join(tmpdir(), 'picket-shutdown-'));
  const held: Socket[] = [];
  let silent: Server;
  let silentPort: number;
  let coordinator: RunningProcess | undefined;

  beforeAll(async () => {
    // Accepts connections and never answers: an HTTP check to it runs until its timeout.
    silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });

  afterAll(async () => {
    await coordinator?.kill('SIGKILL');
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it(`exits within the ${DOCUMENTED_GRACE_MS / 1000} s grace (plus slack) after SIGTERM`, async () => {
    const port = await freePort();
    coordinator = startPicket('start', {
      DATABASE_URL: `sqlite:${join(dir, 'picket.db')}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      BOOTSTRAP_API_KEY: KEY,
      DISPATCH_ENABLED: 'false',
      LOG_LEVEL: 'warn',
    });
    const api = new ApiClient(`http://127.0.0.1:${port}`, KEY);
    await waitFor('the coordinator', async () =>
      (await api.get('/readyz').catch(() => null))?.status === 200 ? true : undefined,
    );
    await createMonitor(api, {
      settings: { https: { url: `http://127.0.0.1:${silentPort}/` } },
      regions: ['us-east-1'],
      check_interval: 30,
      timeout: 30,
    });
    await waitFor('a check in flight', () => Promise.resolve(held.length > 0 ? true : undefined), 60_000);
    const preconnected = connect(port, '127.0.0.1');
    held.push(preconnected);
    await once(preconnected, 'connect');
    const started = Date.now();
    const code = await coordinator.kill('SIGTERM');
    const took = Date.now() - started;
    // Nest closes the app, then lets the signal end the process, as a stop by SIGTERM should.
    expect([0, 'SIGTERM']).toContain(code);
    expect(coordinator.output()).not.toMatch(/ERROR/);
    expect(took).toBeLessThan(DOCUMENTED_GRACE_MS + SLACK_MS);
  }, 120_000);
});
