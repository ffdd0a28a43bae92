import { randomBytes } from 'node:crypto';
import { systemClock } from '#runtime';
import { createProberTable, IcmpPinger, ProbeExecutor } from '#probes';
import type { MonitorType, ProbeRequest } from '#contracts';
import { atFixedRate } from './report.js';

/**
 * One Picket prober process for the probe benchmark: runs `kind` checks of `url` at `rate`
 * per second for `seconds` through the agent's ProbeExecutor, then prints one JSON line:
 * checks, failures, the CPU seconds the checks cost (start-up excluded) and the peak RSS (MB).
 * Usage: probe-worker <https|tcp|ping> <url> <rate> <seconds> [ca-file]
 */
const [kind, url, rateText, secondsText, caFile] = process.argv.slice(2);
const rate = Number(rateText);
const seconds = Number(secondsText);
const { readFileSync } = await import('node:fs');
const pinger = await IcmpPinger.open();
const table = createProberTable({ pinger, https: caFile ? { ca: readFileSync(caFile, 'utf8') } : {} });
const executor = new ProbeExecutor({ agentId: 'bench', clock: systemClock, table, maxInFlight: 10_000 });
const monitorId = randomBytes(12).toString('hex');
const type = kind as MonitorType;
const settings = type === 'https' ? { url: url ?? '', check_certificate_expiration: false } : { url: url ?? '' };

let checks = 0;
let failures = 0;
let peakRssMb = 0;
const sampler = setInterval(() => {
  peakRssMb = Math.max(peakRssMb, process.memoryUsage().rss / 2 ** 20);
}, 250);
const cpu = process.cpuUsage();
const started = Date.now();
await atFixedRate(rate, seconds, async (i, due) => {
  const scheduledAt = Math.floor(due) + i;
  const request = {
    check_id: `${monitorId}:${scheduledAt}:eu-west-1`,
    monitor_id: monitorId,
    region: 'eu-west-1',
    scheduled_at: scheduledAt,
    type,
    settings,
    timeout_ms: 5000,
  } as ProbeRequest;
  const result = await executor.execute(request);
  checks++;
  if (result.status !== 'up') failures++;
});
const used = process.cpuUsage(cpu);
const elapsed = (Date.now() - started) / 1000;
pinger.close();
clearInterval(sampler);
process.stdout.write(
  `${JSON.stringify({ checks, failures, cpu: (used.user + used.system) / 1e6, elapsed, rss: Math.round(peakRssMb) })}\n`,
);
process.exit(0);
