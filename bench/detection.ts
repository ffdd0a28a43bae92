import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../test/support/wait.js';
import { startCoordinator, stopCoordinator } from './coordinator-process.js';
import { percentile, publish, sleep, type Row } from './report.js';

const NFT = process.env.BENCH_NFT ?? '/usr/sbin/nft';
const TABLE = 'picket_bench_loss';

/** A loopback HTTP target that can be switched off (connections refused) and on again. */
class Target {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async start(): Promise<void> {
    const server = createServer((_req, res) => res.end('ok'));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  stop(): void {
    this.server?.close();
    for (const socket of this.sockets) socket.destroy();
    this.server = null;
  }
}

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
  const downs = new Map<string, number>();
  const ups = new Map<string, number>();
  const receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event?: string; monitor_id?: string };
        if (body.monitor_id && body.event === 'monitor.down' && !downs.has(body.monitor_id))
          downs.set(body.monitor_id, at);
        if (body.monitor_id && body.event === 'monitor.up' && !ups.has(body.monitor_id)) ups.set(body.monitor_id, at);
      } catch {
        // not ours
      }
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const targets = Array.from({ length: outages }, () => new Target());
  for (const target of targets) await target.start();
  const lossy = new Target();
  await lossy.start();
  const lossOn = lossyMonitors > 0 && enableLoss(lossy.port);

  const apiKey = `pkt_${randomBytes(32).toString('hex')}`;
  const coordinator = await startCoordinator({
    DATABASE_URL: `sqlite:${join(dir, 'picket.db')}`,
    BOOTSTRAP_API_KEY: apiKey,
    LOG_LEVEL: 'error',
    RATE_LIMIT_POINTS_PER_HOUR: '100000000',
  });
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${coordinator.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as T;
  };
  try {
    const contact = await api<{ contact: { id: string } }>('POST', '/api/contacts', {
      name: 'bench',
      channel: 'webhook',
      details: { url: receiverUrl },
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
    for (const [i, target] of targets.entries())
      outageIds.push(await monitor(`outage ${i}`, `http://127.0.0.1:${target.port}/`));
    const lossyIds: string[] = [];
    for (let i = 0; i < lossyMonitors; i++)
      lossyIds.push(await monitor(`lossy ${i}`, `http://127.0.0.1:${lossy.port}/`));
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
        await waitFor(`monitor.down of outage ${i}`, () => Promise.resolve(downs.has(id) || undefined), 120_000);
        await sleep(2000);
        await target.start();
        stoppedAt.set(`${id}:up`, Date.now());
        await waitFor(`monitor.up of outage ${i}`, () => Promise.resolve(ups.has(id) || undefined), 120_000);
      }),
    );
    const remaining = lossSeconds * 1000 - (Date.now() - lossStarted);
    if (lossOn && remaining > 0) await sleep(remaining);
    const lossyFor = (Date.now() - lossStarted) / 1000;

    const detect = outageIds
      .map((id) => ((downs.get(id) ?? NaN) - (stoppedAt.get(id) ?? NaN)) / 1000)
      .sort((a, b) => a - b);
    const recover = outageIds
      .map((id) => ((ups.get(id) ?? NaN) - (stoppedAt.get(`${id}:up`) ?? NaN)) / 1000)
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
              'false downs': lossyIds.filter((id) => downs.has(id)).length,
            },
          ]
        : [],
    );
  } finally {
    if (lossOn) disableLoss();
    await stopCoordinator(coordinator);
    for (const target of targets) target.stop();
    lossy.stop();
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 5 % of the packets to and from `port` dropped (nftables, root). False when it cannot be done. */
function enableLoss(port: number): boolean {
  try {
    disableLoss();
    execFileSync(NFT, ['add', 'table', 'inet', TABLE]);
    execFileSync(NFT, ['add', 'chain', 'inet', TABLE, 'input', '{ type filter hook input priority 0; }']);
    for (const direction of ['dport', 'sport']) {
      execFileSync(NFT, [
        'add',
        'rule',
        'inet',
        TABLE,
        'input',
        'tcp',
        direction,
        String(port),
        'numgen',
        'random',
        'mod',
        '100',
        '<',
        '5',
        'drop',
      ]);
    }
    return true;
  } catch (error) {
    process.stderr.write(`packet loss not available (${String(error)}): the false-down part is skipped\n`);
    return false;
  }
}

function disableLoss(): void {
  try {
    execFileSync(NFT, ['delete', 'table', 'inet', TABLE], { stdio: 'ignore' });
  } catch {
    // not there
  }
}
