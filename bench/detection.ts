import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../test/support/wait.js';
import { startCoordinator, stopCoordinator } from './coordinator-process.js';
import { apiClient, NftTable, Target, WebhookReceiver } from './harness.js';
import { percentile, publish, sleep, type Row } from './report.js';

/**
 * Detection: a coordinator (embedded mode, SQLite) checks monitors of loopback targets every
 * 10 s from 3 regions with fail_threshold 2 and a webhook contact. Each outage target is
 * switched off at a random moment; the time from then to the monitor.down webhook arriving
 * is the detection time (and to monitor.up after it is switched on again, the recovery
 * time). Meanwhile healthy monitors check a target behind 5 % packet loss each way (nftables
 * drops, root only): any monitor.down for them is a false alarm.
 */
export async function detectionBench(): Promise<void> {
  const outages = Number(process.env.BENCH_OUTAGES ?? 30);
  const lossyMonitors = Number(process.env.BENCH_LOSSY ?? 20);
  const lossSeconds = Number(process.env.BENCH_LOSS_SECONDS ?? 180);
  const dir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  const receiver = new WebhookReceiver();
  await receiver.start();
  const first = (id: string, event: 'monitor.down' | 'monitor.up') => receiver.times(id, event)[0];
  const targets = Array.from({ length: outages }, () => new Target());
  for (const target of targets) await target.start();
  const lossy = new Target();
  await lossy.start();
  const loss = new NftTable('picket_bench_loss');
  const lossOn = lossyMonitors > 0 && enableLoss(loss, lossy.port);

  const apiKey = `pkt_${randomBytes(32).toString('hex')}`;
  const coordinator = await startCoordinator({
    DATABASE_URL: `sqlite:${join(dir, 'picket.db')}`,
    BOOTSTRAP_API_KEY: apiKey,
    LOG_LEVEL: 'error',
    RATE_LIMIT_POINTS_PER_HOUR: '100000000',
  });
  const api = apiClient(coordinator.url, apiKey);
  try {
    const contact = await api<{ contact: { id: string } }>('POST', '/api/contacts', {
      name: 'bench',
      channel: 'webhook',
      details: { url: receiver.url },
    });
    const monitor = async (name: string, url: string) =>
      (
        await api<{ data: { id: string } }>('POST', '/api/monitors', {
          name,
          settings: { https: { url } },
          regions: ['us-east-1', 'eu-west-1', 'ap-southeast-1'],
          check_interval: 10,
          fail_threshold: 2,
          timeout: 10,
          contacts: [contact.contact.id],
        })
      ).data.id;
    const outageIds: string[] = [];
    for (const [i, target] of targets.entries()) outageIds.push(await monitor(`outage ${i}`, target.url));
    const lossyIds: string[] = [];
    for (let i = 0; i < lossyMonitors; i++) lossyIds.push(await monitor(`lossy ${i}`, lossy.url));
    await waitFor(
      'every monitor up',
      async () => {
        const list = await api<{ data: { monitors: { last_status: string }[] } }>('GET', '/api/monitors?per_page=100');
        return list.data.monitors.every((m) => m.last_status === 'up') ? true : undefined;
      },
      60_000,
    );
    const lossStarted = Date.now();

    // Outages at random moments over two intervals, each target off until its down arrives.
    const stoppedAt = new Map<string, number>();
    await Promise.all(
      targets.map(async (target, i) => {
        await sleep(Math.random() * 20_000);
        const id = outageIds[i]!;
        target.stop();
        stoppedAt.set(id, Date.now());
        await waitFor(
          `monitor.down of outage ${i}`,
          () => Promise.resolve(first(id, 'monitor.down') !== undefined || undefined),
          120_000,
        );
        await sleep(2000);
        await target.start();
        stoppedAt.set(`${id}:up`, Date.now());
        await waitFor(
          `monitor.up of outage ${i}`,
          () => Promise.resolve(first(id, 'monitor.up') !== undefined || undefined),
          120_000,
        );
      }),
    );
    const remaining = lossSeconds * 1000 - (Date.now() - lossStarted);
    if (lossOn && remaining > 0) await sleep(remaining);
    const lossyFor = (Date.now() - lossStarted) / 1000;

    const detect = outageIds
      .map((id) => ((first(id, 'monitor.down') ?? NaN) - (stoppedAt.get(id) ?? NaN)) / 1000)
      .sort((a, b) => a - b);
    const recover = outageIds
      .map((id) => ((first(id, 'monitor.up') ?? NaN) - (stoppedAt.get(`${id}:up`) ?? NaN)) / 1000)
      .sort((a, b) => a - b);
    let checks = 0;
    let failed = 0;
    for (const id of lossyIds) {
      const stats = await api<{ data: { overall: { checks: number; failures: number } } }>(
        'GET',
        `/api/monitors/${id}/stats?period=24h`,
      );
      checks += stats.data.overall.checks;
      failed += stats.data.overall.failures;
    }
    const detection: Row[] = [
      {
        outages,
        'down p50 s': percentile(detect, 50),
        'down p99 s': percentile(detect, 99),
        'down max s': detect.at(-1) ?? NaN,
        'up p50 s': percentile(recover, 50),
        'up p99 s': percentile(recover, 99),
      },
    ];
    publish(
      'Detection',
      `\`npm run bench -- detection\`: ${outages} loopback HTTP targets switched off at random moments ` +
        `(connections refused); monitors with check_interval 10 s, 3 regions, fail_threshold 2, one webhook contact; ` +
        `embedded mode on SQLite. Time from the target going off to the monitor.down webhook arriving (down), and ` +
        `from it coming back to monitor.up (up).`,
      detection,
    );
    publish(
      'False downs under packet loss',
      lossOn
        ? `\`npm run bench -- detection\`: ${lossyMonitors} monitors (same settings) of one loopback target whose ` +
            `packets nftables drops at random, 5 % each way, for ${Math.round(lossyFor)} s.`
        : 'Skipped: dropping packets needs root and nftables (`apt-get install nftables`).',
      lossOn
        ? [
            {
              monitors: lossyMonitors,
              seconds: Math.round(lossyFor),
              checks,
              'failed checks': failed,
              'false downs': lossyIds.filter((id) => first(id, 'monitor.down') !== undefined).length,
            },
          ]
        : [],
    );
  } finally {
    loss.remove();
    await stopCoordinator(coordinator);
    for (const target of targets) target.stop();
    lossy.stop();
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 5 % of the packets to and from `port` dropped (nftables, root). False when it cannot be done. */
function enableLoss(table: NftTable, port: number): boolean {
  try {
    table.create();
    for (const direction of ['dport', 'sport']) {
      table.rule(['tcp', direction, String(port), 'numgen', 'random', 'mod', '100', '<', '5', 'drop']);
    }
    return true;
  } catch (error) {
    process.stderr.write(`packet loss not available (${String(error)}): the false-down part is skipped\n`);
    return false;
  }
}
