import { REGION_IDS, type RegionId } from '#contracts';
import { systemClock } from '#runtime';
import { Scheduler } from '../apps/coordinator/src/scheduling/scheduler.js';
import { systemTimers } from '../apps/coordinator/src/scheduling/timers.js';
import { cpuSeconds, percentile, publish, rssMb, sleep, type Row } from './report.js';

/**
 * The coordinator's scheduler with N monitors (3 regions each, check_interval 60 s, random
 * ids) dispatching to a no-op transport for BENCH_SECONDS: lateness of each dispatch against
 * its slot, the per-second load spread (max / mean over full seconds), CPU and RSS.
 */
export async function schedulingBench(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 60);
  const sizes = (process.env.BENCH_MONITORS ?? '10000,100000').split(',').map(Number);
  const rows: Row[] = [];
  for (const size of sizes) rows.push(await runOnce(size, seconds));
  publish(
    'Scheduling',
    `\`npm run bench -- scheduling\`: one Scheduler, monitors with 3 regions and check_interval 60 s, ` +
      `dispatching to a no-op transport for ${seconds} s after a 5 s warm-up. Lateness = dispatch time − slot.`,
    rows,
  );
}

async function runOnce(size: number, seconds: number): Promise<Row> {
  const lateness: number[] = [];
  const perSecond = new Map<number, number>();
  let measuring = false;
  const scheduler = new Scheduler({
    clock: systemClock,
    timers: systemTimers,
    dispatch: () => undefined,
    onLateness: (late, due) => {
      if (!measuring) return;
      lateness.push(late);
      const second = Math.floor(due.scheduledAt / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    },
  });
  const rssBefore = rssMb();
  const regions = (i: number): RegionId[] => [0, 1, 2].map((k) => REGION_IDS[(i + k * 5) % REGION_IDS.length]!);
  const buildStart = process.hrtime.bigint();
  for (let i = 0; i < size; i++) {
    scheduler.upsert({
      monitorId: `${(0x6650a1b2 + i).toString(16)}${'0'.repeat(16)}`,
      intervalSeconds: 60,
      regions: regions(i),
    });
  }
  const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6;
  scheduler.start();
  await sleep(5000);
  measuring = true;
  const cpu = process.cpuUsage();
  const started = Date.now();
  let peakRss = rssMb();
  while (Date.now() - started < seconds * 1000) {
    await sleep(1000);
    peakRss = Math.max(peakRss, rssMb());
  }
  measuring = false;
  const cpuUsed = cpuSeconds(cpu);
  scheduler.stop();
  lateness.sort((a, b) => a - b);
  const full = [...perSecond.entries()]
    .sort((a, b) => a[0] - b[0])
    .slice(1, -1)
    .map(([, n]) => n);
  const mean = full.reduce((a, b) => a + b, 0) / Math.max(1, full.length);
  return {
    monitors: size,
    'checks/s': Math.round(lateness.length / seconds),
    'p50 ms': percentile(lateness, 50),
    'p99 ms': percentile(lateness, 99),
    'p99.9 ms': percentile(lateness, 99.9),
    'max ms': lateness.at(-1) ?? 0,
    'spread max/mean': full.length ? Math.max(...full) / mean : 0,
    'CPU %': (100 * cpuUsed) / seconds,
    'RSS MB': Math.round(peakRss),
    'heap for monitors MB': Math.round(peakRss - rssBefore),
    'build ms': Math.round(buildMs),
  };
}
