import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RegionId } from '#contracts';
import { waitFor } from '../test/support/wait.js';
import { startCoordinator, stopCoordinator, type CoordinatorProcess } from './coordinator-process.js';
import { apiClient, NftTable, onCleanup, Target, WebhookReceiver } from './harness.js';
import { percentile, publish, sleep, type Row } from './report.js';

/** The agent's main module (this file runs from dist/bench). */
const AGENT_MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'apps', 'agent', 'src', 'main.js');
const REGIONS: readonly RegionId[] = ['us-east-1', 'eu-west-1', 'ap-southeast-1'];
/** The region the faults of scenarios 1, 2 and 5 hit: its agent runs under its own uid. */
const FAULTY: RegionId = 'ap-southeast-1';
/** Each agent runs under its own uid (64001, 64002, …), which nftables matches (`meta skuid`). */
const FIRST_UID = 64_001;
const INTERVAL = 10;
const CONN_MARK = '0x5e';

type Api = ReturnType<typeof apiClient>;

interface MonitorSpec {
  name: string;
  url: string;
  failThreshold: number;
  timeout: number;
  interval: number;
}

interface Tally {
  checks: number;
  failed: number;
  unknown: number;
  byRegion: Map<string, { checks: number; failed: number }>;
}

/**
 * Detection under adversity (`npm run bench -- adversity`, as root). NATS mode: a coordinator
 * process and one agent process per region (three regions per monitor, `check_interval` 10 s,
 * a webhook contact), each agent under its own uid so that nftables can make one region's
 * checks fail the way networks do, without touching the others or any non-loopback address.
 * Scenarios, each on fresh monitors: one region blackholed; heavy loss in one region; a
 * flapping target (fail_threshold 2 and 3); a slow target near its timeout; a real outage
 * during a blackhole. See docs/benchmarks.md, "Detection under adversity".
 */
export async function adversityBench(): Promise<void> {
  const natsUrl = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
  const natsPort = new URL(natsUrl).port || '4222';
  const monitors = Number(process.env.BENCH_MONITORS ?? 10);
  const seconds = Number(process.env.BENCH_SECONDS ?? 120);
  const lossPercent = Number(process.env.BENCH_LOSS_PERCENT ?? 40);
  const chosen = new Set((process.env.BENCH_SCENARIOS ?? '1,2,3,4,5').split(',').map(Number));
  const faults = new NftTable('picket_bench_adversity');
  try {
    faults.create();
  } catch (error) {
    throw new Error(`the adversity benchmark needs root and nftables (apt-get install nftables): ${String(error)}`, {
      cause: error,
    });
  }
  const dir = mkdtempSync(join(tmpdir(), 'picket-bench-'));
  const prefix = `adversity_${randomBytes(4).toString('hex')}`;
  const receiver = new WebhookReceiver();
  await receiver.start();
  const apiKey = `pkt_${randomBytes(32).toString('hex')}`;
  let coordinator: CoordinatorProcess | null = null;
  const agents: ChildProcess[] = [];
  let cancelKill: () => void = () => undefined;
  try {
    coordinator = await startCoordinator({
      DATABASE_URL: `sqlite:${join(dir, 'picket.db')}`,
      BOOTSTRAP_API_KEY: apiKey,
      LOG_LEVEL: 'error',
      RATE_LIMIT_POINTS_PER_HOUR: '100000000',
      NATS_URL: natsUrl,
      NATS_SUBJECT_PREFIX: prefix,
    });
    const base = coordinator.url;
    REGIONS.forEach((region, i) => agents.push(startAgent(natsUrl, prefix, region, FIRST_UID + i)));
    // Ctrl-C must not leave agents (or the coordinator) running under their uids.
    const started = [...agents, coordinator.child];
    cancelKill = onCleanup(() => {
      for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
    });
    await waitFor(
      'an agent in every region',
      async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        return REGIONS.every((r) => new RegExp(`^picket_region_agents\\{region="${r}"\\} [1-9]`, 'm').test(text))
          ? true
          : undefined;
      },
      60_000,
    );
    const api = apiClient(base, apiKey);
    const contact = (
      await api<{ contact: { id: string } }>('POST', '/api/contacts', {
        name: 'bench',
        channel: 'webhook',
        details: { url: receiver.url },
      })
    ).contact.id;
    const run = new ScenarioRunner(api, base, contact, receiver, faults, seconds);
    const faultyUid = String(FIRST_UID + REGIONS.indexOf(FAULTY));
    /** Every TCP packet the faulty region's agent sends, except to NATS. */
    const fromFaulty = ['meta', 'skuid', faultyUid, 'tcp', 'dport', '!=', natsPort];
    const common = `${monitors} monitors of a loopback HTTP target, regions ${REGIONS.join(', ')} (one agent each), check_interval ${INTERVAL} s, NATS mode`;

    if (chosen.has(1)) {
      const target = new Target();
      await target.start();
      const rows: Row[] = [];
      for (const interval of [INTERVAL, 3 * INTERVAL]) {
        rows.push(
          await run.steady(`blackhole`, specs(monitors, target.url, 2, 5, 'm', interval), () => {
            faults.rule([...fromFaulty, 'drop']);
          }),
        );
      }
      target.stop();
      publish(
        'Adversity 1: one region blackholed',
        `\`npm run bench -- adversity\`: ${common} (then ${3 * INTERVAL} s), fail_threshold 2, timeout 5 s. ` +
          `Every packet ${FAULTY}'s agent sends to the target is dropped (nftables, matching the agent's uid) for ` +
          `${seconds} s; the target serves every other region. "failed, late": DOWNs that arrived after a newer ` +
          `check of the monitor had been applied, so were not evaluated (picket_results_late_total). At ${INTERVAL} s ` +
          `the next region checks ${(INTERVAL / REGIONS.length).toFixed(1)} s after the blackholed one, before its ` +
          `5 s timeout; at ${3 * INTERVAL} s it checks ${INTERVAL} s after, so the DOWN is evaluated and asks the ` +
          `next region for an immediate confirmation. Goal: 0 false downs, every monitor up at the end, the ` +
          `region's failures in the history.`,
        rows,
      );
    }

    if (chosen.has(2)) {
      const target = new Target();
      await target.start();
      const row = await run.steady(`loss ${lossPercent} %`, specs(monitors, target.url, 2, 5), () => {
        faults.rule([...fromFaulty, 'ct', 'mark', 'set', CONN_MARK]);
        faults.rule([...fromFaulty, 'numgen', 'random', 'mod', '100', '<', String(lossPercent), 'drop']);
        faults.rule([
          'ct',
          'direction',
          'reply',
          'ct',
          'mark',
          CONN_MARK,
          'numgen',
          'random',
          'mod',
          '100',
          '<',
          String(lossPercent),
          'drop',
        ]);
      });
      target.stop();
      publish(
        'Adversity 2: heavy loss in one region',
        `\`npm run bench -- adversity\`: ${common}, fail_threshold 2, timeout 5 s. ${lossPercent} % of the packets ` +
          `between ${FAULTY}'s agent and the target dropped each way for ${seconds} s (its connections marked by ` +
          `conntrack). Goal: 0 false downs, every monitor up at the end.`,
        [row],
      );
    }

    if (chosen.has(3)) {
      const target = new Target();
      await target.start();
      const rows = await run.flapping(
        [...specs(monitors, target.url, 2, 5, 'flap2'), ...specs(monitors, target.url, 3, 5, 'flap3')],
        () => {
          // One connection attempt in ten refused (a TCP reset to the SYN), from every region.
          faults.rule([
            ...['tcp', 'dport', String(target.port), 'tcp', 'flags', '&', '(syn|ack)', '==', 'syn'],
            ...['numgen', 'random', 'mod', '10', '==', '0', 'reject', 'with', 'tcp', 'reset'],
          ]);
        },
      );
      target.stop();
      publish(
        'Adversity 3: a flapping target',
        `\`npm run bench -- adversity\`: ${common} per threshold, timeout 5 s. The target refuses one connection in ` +
          `ten at random, whatever the region (nftables answers the SYN with a reset), for ${seconds} s. "expected ` +
          `downs" = decided scheduled checks × p^fail_threshold, p the observed share of failed checks: a DOWN starts ` +
          `a run that immediate confirmations extend, and the run pages at fail_threshold.`,
        rows,
      );
    }

    if (chosen.has(4)) {
      const timeout = 5;
      // Answers between 90 % and 110 % of the timeout.
      const target = new Target(() => timeout * 1000 * (0.9 + Math.random() * 0.2));
      await target.start();
      const row = await run.steady(`slow`, specs(monitors, target.url, 2, timeout), () => undefined);
      target.stop();
      publish(
        'Adversity 4: a slow target near its timeout',
        `\`npm run bench -- adversity\`: ${common}, fail_threshold 2, timeout ${timeout} s. The target answers after ` +
          `${timeout * 0.9}-${timeout * 1.1} s (uniform), from every region, for ${seconds} s. Downs here are real ` +
          `(the target is too slow about half the time); the regions should fail alike.`,
        [row],
      );
    }

    if (chosen.has(5)) {
      const rows = await run.outagesDuringBlackhole(monitors, () => {
        faults.rule([...fromFaulty, 'drop']);
      });
      publish(
        'Adversity 5: a real outage during a blackhole',
        `\`npm run bench -- adversity\`: ${common}, fail_threshold 2, timeout 5 s, each monitor with its own ` +
          `target. ${FAULTY} is blackholed as in scenario 1; each target is switched off (connections refused) at a ` +
          `random moment in 20 s and on again once its monitor.down arrived. Detection = target off → monitor.down ` +
          `webhook; late = over one check interval (${INTERVAL} s); missed = none within 60 s. Goal: p99 ≤ ${INTERVAL} s.`,
        rows,
      );
    }
  } finally {
    faults.remove();
    cancelKill();
    for (const agent of agents) agent.kill('SIGKILL');
    if (coordinator) await stopCoordinator(coordinator);
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function specs(
  count: number,
  url: string,
  failThreshold: number,
  timeout: number,
  name = 'm',
  interval = INTERVAL,
): MonitorSpec[] {
  return Array.from({ length: count }, (_, i) => ({ name: `${name} ${i}`, url, failThreshold, timeout, interval }));
}

function startAgent(natsUrl: string, prefix: string, region: RegionId, uid: number): ChildProcess {
  const agent = spawn(process.execPath, [AGENT_MAIN], {
    uid,
    gid: uid,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: tmpdir(),
      NATS_URL: natsUrl,
      NATS_SUBJECT_PREFIX: prefix,
      AGENT_REGIONS: region,
      AGENT_ID: `adversity-${region}`,
      AGENT_HTTP_PORT: '0',
      AGENT_HEARTBEAT_SECONDS: '2',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  agent.once('exit', (code, signal) => {
    if (code !== null && code !== 0) process.stderr.write(`agent ${region} exited with ${code ?? signal}\n`);
  });
  return agent;
}

/** Creates a scenario's monitors, waits for them to be up, applies its faults, and counts what happened. */
class ScenarioRunner {
  constructor(
    private readonly api: Api,
    private readonly baseUrl: string,
    private readonly contact: string,
    private readonly receiver: WebhookReceiver,
    private readonly faults: NftTable,
    private readonly seconds: number,
  ) {}

  /** Scenarios 1, 2, 4: the target serves; every monitor.down while the faults are on is counted. */
  async steady(name: string, monitors: MonitorSpec[], applyFaults: () => void): Promise<Row> {
    const ids = await this.createUp(monitors);
    const lateBefore = await this.lateDowns();
    const from = Date.now();
    applyFaults();
    await sleep(this.seconds * 1000);
    const upAtEnd = await this.countUp(ids);
    const to = Date.now();
    this.faults.flush();
    const tally = await this.tally(ids, from);
    const late = (await this.lateDowns()) - lateBefore;
    await this.remove(ids);
    return {
      scenario: name,
      interval: `${monitors[0]?.interval ?? NaN} s`,
      checks: tally.checks,
      'failed checks': tally.failed,
      'failed by region': regionShares(tally),
      'failed, late': late,
      unknown: tally.unknown,
      downs: this.downs(ids, from, to),
      'up at end': `${upAtEnd}/${ids.length}`,
    };
  }

  /** Scenario 3: one row per fail_threshold, with the analytic expectation beside the count. */
  async flapping(monitors: MonitorSpec[], applyFaults: () => void): Promise<Row[]> {
    const ids = await this.createUp(monitors);
    const from = Date.now();
    applyFaults();
    await sleep(this.seconds * 1000);
    const to = Date.now();
    this.faults.flush();
    const rows: Row[] = [];
    for (const threshold of [...new Set(monitors.map((m) => m.failThreshold))]) {
      const group = ids.filter((_, i) => monitors[i]!.failThreshold === threshold);
      const tally = await this.tally(group, from);
      const p = tally.failed / Math.max(1, tally.checks - tally.unknown);
      // Scheduled checks only: confirmations are part of the runs they extend.
      const scheduled = group.length * REGIONS.length * (this.seconds / INTERVAL);
      rows.push({
        fail_threshold: threshold,
        monitors: group.length,
        checks: tally.checks,
        'failed checks': tally.failed,
        'p (failed share)': p,
        downs: this.downs(group, from, to),
        'expected downs': scheduled * p ** threshold,
      });
    }
    await this.remove(ids);
    return rows;
  }

  /** Scenario 5: a target of its own per monitor, off at a random moment; detection times. */
  async outagesDuringBlackhole(count: number, applyFaults: () => void): Promise<Row[]> {
    const targets = Array.from({ length: count }, () => new Target());
    for (const target of targets) await target.start();
    const ids = await this.createUp(
      targets.map((t, i) => ({ name: `outage ${i}`, url: t.url, failThreshold: 2, timeout: 5, interval: INTERVAL })),
    );
    applyFaults();
    await sleep(2 * INTERVAL * 1000); // the blackhole is established before the outages start
    const detect: number[] = [];
    let missed = 0;
    await Promise.all(
      targets.map(async (target, i) => {
        const id = ids[i]!;
        await sleep(Math.random() * 20_000);
        target.stop();
        const off = Date.now();
        try {
          await waitFor(
            `monitor.down of outage ${i}`,
            () => Promise.resolve(this.receiver.times(id, 'monitor.down').some((t) => t >= off) || undefined),
            60_000,
          );
          detect.push(((this.receiver.times(id, 'monitor.down').find((t) => t >= off) ?? NaN) - off) / 1000);
        } catch {
          missed++;
        }
        await target.start();
      }),
    );
    this.faults.flush();
    await this.remove(ids);
    for (const target of targets) target.stop();
    detect.sort((a, b) => a - b);
    return [
      {
        outages: count,
        detected: detect.length,
        missed,
        [`late (> ${INTERVAL} s)`]: detect.filter((d) => d > INTERVAL).length,
        'p50 s': percentile(detect, 50),
        'p99 s': percentile(detect, 99),
        'max s': detect.at(-1) ?? NaN,
      },
    ];
  }

  /** DOWN results the coordinator did not evaluate because a newer check was applied first (all regions). */
  private async lateDowns(): Promise<number> {
    const text = await (await fetch(`${this.baseUrl}/metrics`)).text();
    let sum = 0;
    for (const match of text.matchAll(/^picket_results_late_total\{[^}]*status="down"[^}]*\} (\d+)/gm)) {
      sum += Number(match[1]);
    }
    return sum;
  }

  private async createUp(monitors: MonitorSpec[]): Promise<string[]> {
    const ids: string[] = [];
    for (const m of monitors) {
      const created = await this.api<{ data: { id: string } }>('POST', '/api/monitors', {
        name: m.name,
        settings: { https: { url: m.url } },
        regions: REGIONS,
        check_interval: m.interval,
        fail_threshold: m.failThreshold,
        timeout: m.timeout,
        contacts: [this.contact],
      });
      ids.push(created.data.id);
    }
    await waitFor(
      'every monitor up',
      async () => ((await this.countUp(ids)) === ids.length ? true : undefined),
      90_000,
    );
    return ids;
  }

  private async countUp(ids: readonly string[]): Promise<number> {
    let up = 0;
    for (const id of ids) {
      const monitor = await this.api<{ data: { last_status: string } }>('GET', `/api/monitors/${id}`);
      if (monitor.data.last_status === 'up') up++;
    }
    return up;
  }

  /** monitor.down notifications of these monitors that arrived between `from` and `to` (+5 s in flight). */
  private downs(ids: readonly string[], from: number, to: number): number {
    return ids.reduce(
      (n, id) => n + this.receiver.times(id, 'monitor.down').filter((t) => t >= from && t <= to + 5000).length,
      0,
    );
  }

  /** The stored results of these monitors since `from` (ms), by region. */
  private async tally(ids: readonly string[], from: number): Promise<Tally> {
    const tally: Tally = { checks: 0, failed: 0, unknown: 0, byRegion: new Map() };
    for (const id of ids) {
      for (let page = 1; ; page++) {
        const answer = await this.api<{
          data: { checks: { region: string; status: string; checked_at: number }[]; pagination: { has_next: boolean } };
        }>('GET', `/api/monitors/${id}/checks?per_page=100&page=${page}`);
        const recent = answer.data.checks.filter((c) => c.checked_at * 1000 >= from);
        for (const check of recent) {
          tally.checks++;
          const region = tally.byRegion.get(check.region) ?? { checks: 0, failed: 0 };
          region.checks++;
          if (check.status === 'down') {
            tally.failed++;
            region.failed++;
          }
          if (check.status === 'unknown') tally.unknown++;
          tally.byRegion.set(check.region, region);
        }
        if (recent.length < answer.data.checks.length || !answer.data.pagination.has_next) break;
      }
    }
    return tally;
  }

  private async remove(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.api('DELETE', `/api/monitors/${id}`);
  }
}

/** "us-east-1 0/120, …": failed of all checks per region. */
function regionShares(tally: Tally): string {
  return REGIONS.map((r) => {
    const region = tally.byRegion.get(r) ?? { checks: 0, failed: 0 };
    return `${r} ${region.failed}/${region.checks}`;
  }).join(', ');
}
